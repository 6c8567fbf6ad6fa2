"""When a skill fires: cron, interval and one-shot triggers, missed runs and failure backoff. Pure, no I/O.

Every function takes the current time as an argument (the scheduler injects its clock), so tests walk through DST
days, month ends and a day of downtime without waiting.

Cron semantics are croniter's, which are cron's: five fields, weekdays 0-7 with 0 and 7 both Sunday, `L` for the
last day of the month, day-of-month and day-of-week ORed when both are restricted. (APScheduler's own
`CronTrigger.from_crontab` numbers weekdays from Monday = 0, which is why it is not used for the expressions.)
croniter is asked for *wall-clock* times only (naive datetimes); this module maps each wall time into the skill's
zone itself, because croniter's own zone handling fires `30 2 * * *` twice on an autumn DST day:

- a wall time that does not exist (skipped by a spring-forward change) fires once, at the instant the clocks jump
  (02:30 on the spring day in New York fires at 03:00 EDT), and every skipped slot collapses into that one instant;
- a wall time that happens twice (autumn) fires once, on its first occurrence, unless the hour field is `*`:
  then both occurrences fire, as in Vixie cron, so an hourly job keeps running hourly through the repeated hour.

Stored bookkeeping times (`last_run_at`, `created_at`) are UTC; a one-shot `at` without an offset is wall time in
the skill's zone (its `timezone`, else ANNABELLE_TIMEZONE).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterError, croniter

from orchestrator.skills.errors import TriggerError

__all__ = [
    "AUTO_DISABLE_AFTER",
    "BACKOFF_STEPS",
    "DEFAULT_GRACE",
    "CronTrigger",
    "IntervalTrigger",
    "OneShotTrigger",
    "RunDecision",
    "Trigger",
    "backoff_after",
    "backoff_until",
    "check_cron",
    "cron_next",
    "first_due",
    "is_due",
    "missed_runs_decision",
    "next_fire",
    "parse_moment",
    "parse_trigger",
    "should_auto_disable",
    "zone",
]

_ALIASES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_CRON_EXAMPLES = "e.g. '0 9 * * *' (09:00 daily), '*/15 * * * *' (every 15 minutes), '0 18 * * 1-5' (weekdays)"
# Far enough to see the other side of any DST change (the largest real shift is two hours).
_TRANSITION_WINDOW = timedelta(hours=3)
_MAX_CANDIDATES = 2_000


# -- zones and moments -----------------------------------------------------------------------------------------


def zone(name: str) -> ZoneInfo:
    """The IANA zone `name`; TriggerError naming the field when the machine's zone database does not know it."""
    if not isinstance(name, str) or not name.strip():
        raise TriggerError("timezone must be an IANA zone name such as 'Europe/Berlin' or 'America/New_York'.")
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise TriggerError(
            f"timezone {name!r} is not an IANA zone name; use one such as 'Europe/Berlin', 'America/New_York' or 'UTC'."
        ) from None


def parse_moment(value: str | datetime, tz: tzinfo) -> datetime:
    """An ISO date-time as an aware datetime; one without an offset is wall time in `tz`.

    Accepts `2026-02-14T15:00:00`, `2026-02-14 15:00`, `...Z` and `...+01:00`. Raises TriggerError otherwise.
    """
    if isinstance(value, datetime):
        moment = value
    else:
        text = str(value).strip()
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise TriggerError(
                f"at {value!r} is not a date-time; use ISO format such as '2026-02-14T15:00:00' "
                "(local time) or '2026-02-14T15:00:00+01:00'."
            ) from None
    return moment.replace(tzinfo=tz) if moment.tzinfo is None else moment


# -- cron ------------------------------------------------------------------------------------------------------


def check_cron(expression: str) -> str:
    """The expression in five-field form (aliases such as `@daily` expanded), or TriggerError saying why not.

    Valid means croniter parses it *and* it has a next fire time: `0 0 31 2 *` parses but never fires.
    Six-field (seconds) expressions are refused: the scheduler works in minutes.
    """
    if not isinstance(expression, str) or not expression.strip():
        raise TriggerError(f"schedule must be a cron expression, {_CRON_EXAMPLES}.")
    text = " ".join(expression.split())
    text = _ALIASES.get(text.lower(), text)
    fields = text.split(" ")
    if len(fields) != 5:
        raise TriggerError(
            f"schedule {expression!r} has {len(fields)} fields; a cron expression has five "
            f"(minute hour day-of-month month day-of-week), {_CRON_EXAMPLES}. For 'every N minutes' "
            "interval_minutes also works."
        )
    try:
        croniter(text, datetime(2026, 1, 1)).get_next(datetime)
    except CroniterBadDateError:
        raise TriggerError(f"schedule {expression!r} never fires (no such date); check the day and month.") from None
    except (CroniterBadCronError, CroniterError, ValueError, KeyError):
        raise TriggerError(f"schedule {expression!r} is not a valid cron expression, {_CRON_EXAMPLES}.") from None
    return text


def _offset(tz: tzinfo, moment: datetime) -> timedelta | None:
    return moment.astimezone(tz).utcoffset()


def _near_transition(tz: tzinfo, moment: datetime) -> bool:
    return _offset(tz, moment - _TRANSITION_WINDOW) != _offset(tz, moment + _TRANSITION_WINDOW)


def _gap_end(wall: datetime, tz: tzinfo, low: datetime, high: datetime) -> datetime:
    """The instant the clocks jumped over the nonexistent `wall` (first instant whose wall time is past it)."""
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        if middle.astimezone(tz).replace(tzinfo=None) > wall:
            high = middle
        else:
            low = middle
    return high.replace(microsecond=0) if high.microsecond else high


def _instants(wall: datetime, tz: tzinfo, both_folds: bool) -> list[datetime]:
    """The UTC instants a cron wall time stands for in `tz`: one, two (repeated hour, wildcard hour) or the jump."""
    first = wall.replace(tzinfo=tz, fold=0).astimezone(UTC)
    second = wall.replace(tzinfo=tz, fold=1).astimezone(UTC)
    if first == second:
        return [first]
    if first < second:  # the wall time happens twice (clocks went back)
        return [first, second] if both_folds else [first]
    return [_gap_end(wall, tz, second, first)]  # the wall time was skipped (clocks went forward)


def cron_next(expression: str, tz: tzinfo, after: datetime) -> datetime | None:
    """The first fire time strictly after `after` (aware), in UTC; None when the expression never fires again."""
    text = check_cron(expression)
    after_utc = after.astimezone(UTC)
    wall = after_utc.astimezone(tz).replace(tzinfo=None)
    both_folds = text.split(" ")[1] == "*"
    # Near a DST change an earlier wall time can still lie ahead (its second occurrence): start before it.
    start = wall - _TRANSITION_WINDOW if _near_transition(tz, after_utc) else wall
    candidates = croniter(text, start)
    best: datetime | None = None
    for _ in range(_MAX_CANDIDATES):
        try:
            candidate = candidates.get_next(datetime)
        except (CroniterBadDateError, StopIteration):
            break
        instants = _instants(candidate, tz, both_folds)
        if best is not None and min(instants) > best:
            break  # first-occurrence instants never decrease with the wall time
        ahead = [moment for moment in instants if moment > after_utc]
        if ahead and (best is None or min(ahead) < best):
            best = min(ahead)
    return best


# -- triggers --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CronTrigger:
    """`trigger_config.schedule` (checked five-field form) in `tz`."""

    schedule: str
    tz: ZoneInfo


@dataclass(frozen=True)
class IntervalTrigger:
    """`trigger_config.interval_minutes`: every N minutes counted from the last run (or creation)."""

    minutes: int


@dataclass(frozen=True)
class OneShotTrigger:
    """`trigger_config.at`: once, at this aware moment."""

    at: datetime


Trigger = CronTrigger | IntervalTrigger | OneShotTrigger


def _whole_minutes(value: Any) -> int:
    try:
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if number != number or number != int(number) or isinstance(value, bool):
        raise TriggerError(f"interval_minutes must be a whole number of minutes (1 or more), got {value!r}.")
    if number < 1:
        raise TriggerError(f"interval_minutes must be at least 1, got {value!r}; a skill runs at most once a minute.")
    return int(number)


def parse_trigger(config: Mapping[str, Any] | None, *, default_tz: str) -> Trigger | None:
    """The schedule a trigger_config describes; None for one with no schedule (event and manual skills).

    Exactly one of `schedule`, `interval_minutes`, `at` may be set; `timezone` applies to `schedule` and to an
    `at` without an offset. Other keys (`keywords`, `priority`, `source`) are not about time and are ignored.
    """
    if not config:
        return None
    present = [key for key in ("schedule", "interval_minutes", "at") if config.get(key) not in (None, "")]
    if len(present) > 1:
        raise TriggerError(
            f"trigger_config has {' and '.join(present)}; give exactly one: schedule (cron), interval_minutes "
            "(repeating) or at (once)."
        )
    if not present:
        return None
    tz = zone(config.get("timezone") or default_tz)
    if present[0] == "schedule":
        return CronTrigger(check_cron(config["schedule"]), tz)
    if present[0] == "interval_minutes":
        return IntervalTrigger(_whole_minutes(config["interval_minutes"]))
    return OneShotTrigger(parse_moment(config["at"], tz))


def next_fire(trigger: Trigger, after: datetime) -> datetime | None:
    """The trigger's first fire time strictly after `after`, in UTC; None when it will not fire again."""
    if isinstance(trigger, CronTrigger):
        return cron_next(trigger.schedule, trigger.tz, after)
    if isinstance(trigger, IntervalTrigger):
        return after.astimezone(UTC) + timedelta(minutes=trigger.minutes)
    at = trigger.at.astimezone(UTC)
    return at if at > after else None


def first_due(trigger: Trigger, *, created_at: datetime, last_run_at: datetime | None = None) -> datetime | None:
    """The earliest slot the skill owes a run for: the first fire time after its last run (or its creation).

    A one-shot owes its single run until a run is recorded at or after its `at`. None: nothing will ever be due.
    """
    if isinstance(trigger, OneShotTrigger):
        at = trigger.at.astimezone(UTC)
        return None if last_run_at is not None and last_run_at >= at else at
    return next_fire(trigger, last_run_at or created_at)


def is_due(trigger: Trigger, now: datetime, *, created_at: datetime, last_run_at: datetime | None = None) -> bool:
    """Whether a slot has come (ignores backoff and missed-run grace: see `missed_runs_decision`)."""
    due = first_due(trigger, created_at=created_at, last_run_at=last_run_at)
    return due is not None and due <= now


# -- missed runs -----------------------------------------------------------------------------------------------

DEFAULT_GRACE = timedelta(minutes=30)
"""A slot found late by at most this much still runs; later it is recorded as missed."""


@dataclass(frozen=True)
class RunDecision:
    """What the scheduler does with one skill now.

    `run`: run once now, then record `last_run_at = now` (which moves past every older slot: no catch-up burst).
    `missed`: do not run; record `last_run_at = now` with status `missed` (a one-shot is then disabled).
    `wait`: nothing yet; `next_fire` is when to look again (None: never again).
    """

    action: Literal["run", "missed", "wait"]
    due_at: datetime | None
    next_fire: datetime | None
    reason: str


def missed_runs_decision(
    trigger: Trigger,
    *,
    now: datetime,
    created_at: datetime,
    last_run_at: datetime | None = None,
    backoff_until: datetime | None = None,
    grace: timedelta = DEFAULT_GRACE,
) -> RunDecision:
    """Run once if a slot came within the last `grace`, otherwise record the owed slot as missed; never a burst.

    After downtime the skill may owe many slots; whatever their number, the decision is one run or one `missed`
    record. The run happens when the owed slot, or a later one the schedule would have had, lies within `grace`
    of now (a daily 09:00 job back up at 09:10 runs even if yesterday's run was missed too). A backoff delays the
    owed slot and the grace counts from its end, so a retry that waited out its backoff runs instead of being
    dropped.
    """
    due = first_due(trigger, created_at=created_at, last_run_at=last_run_at)
    if due is None:
        return RunDecision("wait", None, None, "nothing left to run (a one-shot that already ran)")
    ready = max(due, backoff_until) if backoff_until is not None else due
    if now < ready:
        why = "backing off after a failure" if ready != due else "not due yet"
        return RunDecision("wait", due, ready, why)
    if now - ready <= grace:
        return RunDecision("run", due, next_fire(trigger, now), "due")
    recent = _recent_slot(trigger, due, now, grace)
    if recent is not None:
        return RunDecision("run", recent, next_fire(trigger, now), "due (older slots were missed)")
    return RunDecision(
        "missed",
        due,
        next_fire(trigger, now),
        f"the run due at {due.isoformat()} was missed by {_duration(now - ready)} "
        f"(more than the {_duration(grace)} grace)",
    )


def _recent_slot(trigger: Trigger, due: datetime, now: datetime, grace: timedelta) -> datetime | None:
    """A slot in [now - grace, now] the schedule would have had after `due`, if any."""
    if isinstance(trigger, CronTrigger):
        slot = next_fire(trigger, now - grace - timedelta(microseconds=1))
        return slot if slot is not None and slot <= now else None
    if isinstance(trigger, IntervalTrigger):
        step = timedelta(minutes=trigger.minutes)
        slot = due + step * ((now - due) // step)
        return slot if now - slot <= grace else None
    return None


def _duration(span: timedelta) -> str:
    minutes = int(span.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    return f"{hours} h" if hours < 48 else f"{hours // 24} days"


# -- failures --------------------------------------------------------------------------------------------------

BACKOFF_STEPS: tuple[timedelta, ...] = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=15),
    timedelta(minutes=60),
)
"""Wait after the 1st, 2nd, 3rd and 4th failure in a row: a transient fault retries quickly, a lasting one rarely."""
AUTO_DISABLE_AFTER = 5
"""Failures in a row after which the skill is disabled (with a notification) instead of retried."""


def backoff_after(failures: int) -> timedelta | None:
    """How long to wait after `failures` consecutive failures; zero for none; None once the skill is to be disabled."""
    if failures < 0:
        raise ValueError(f"failures cannot be negative, got {failures}")
    if failures == 0:
        return timedelta(0)
    if should_auto_disable(failures):
        return None
    return BACKOFF_STEPS[min(failures, len(BACKOFF_STEPS)) - 1]


def should_auto_disable(failures: int) -> bool:
    """Whether `failures` consecutive failures mean the skill is switched off."""
    return failures >= AUTO_DISABLE_AFTER


def backoff_until(failures: int, failed_at: datetime) -> datetime | None:
    """The moment before which a skill with `failures` failures in a row must not run; None: disable it."""
    wait = backoff_after(failures)
    return None if wait is None else failed_at + wait
