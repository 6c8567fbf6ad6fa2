"""A skill's timing in words, with its next runs: what a store or update answers. Pure, no I/O.

The model writes the timing as fields ({"every": "weekday", "time": "18:30"}) and reads back only a cron
expression, which a small model cannot read: asked for Monday, Wednesday and Friday, the 1.5B model stored
weekdays and told the owner "Mon, Wed and Fri"; asked for Thursday once, it stored a daily reminder and said
"every Thursday". An answer that says "At 18:30, Monday through Friday; next Mon 30 Nov 18:30, Tue 01 Dec 18:30"
lets the model repeat what was stored, and the owner catch what was not meant.

Cron in words is cron-descriptor's (a maintained library, in English like every tool result; the model answers in
the owner's language); the next runs are the scheduler's own (`triggers.next_fire`), in the skill's zone.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, tzinfo
from typing import Any

from orchestrator.skills.triggers import CronTrigger, IntervalTrigger, next_fire, parse_trigger

NEXT_RUNS = 2
_MOMENT = "%a %d %b %Y %H:%M"


def timing_words(config: Mapping[str, Any] | None, *, default_tz: str, now: datetime) -> str | None:
    """ "At 18:30, Monday through Friday (Europe/Berlin); next Mon 30 Nov 2026 18:30, Tue 01 Dec 2026 18:30";
    "Once, Sun 29 Nov 2026 18:00 (Europe/Berlin)"; None for a skill with no timing (manual, event)."""
    trigger = parse_trigger(config, default_tz=default_tz)
    if trigger is None:
        return None
    if isinstance(trigger, IntervalTrigger):
        return f"Every {trigger.minutes} minutes, counted from its last run"
    if not isinstance(trigger, CronTrigger):
        return f"Once, {_local(trigger.at, trigger.at.tzinfo)} ({trigger.at.tzinfo})"
    runs: list[datetime] = []
    after = now
    while len(runs) < NEXT_RUNS and (moment := next_fire(trigger, after)) is not None:
        runs.append(moment)
        after = moment
    upcoming = f"; next {', '.join(_local(run, trigger.tz) for run in runs)}" if runs else ""
    return f"{_cron_words(trigger.schedule)} ({trigger.tz}){upcoming}"


def _cron_words(schedule: str) -> str:
    from cron_descriptor import ExpressionDescriptor, Options  # only when a skill is written: ~35 ms to import

    options = Options()
    options.use_24hour_time_format = True
    return str(ExpressionDescriptor(schedule, options).get_description())


def _local(moment: datetime, tz: tzinfo | None) -> str:
    return moment.astimezone(tz).strftime(_MOMENT)
