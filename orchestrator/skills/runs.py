"""What the scheduler does with the stored skills, one decision at a time. Pure, no I/O.

The scheduler (`orchestrator.skills.scheduler`) lists the skills, asks this module which are due, runs them, and
turns each outcome into the `memory_update_skill` fields and the notification computed here. Keeping the decisions
here lets the tests walk a day of downtime, five failures in a row or a restart through plain function calls.

Bookkeeping lives on the skill record (the original kept failure counters in memory and lost them on restart):
`last_run_at`, `last_run_status` (`success`, `error`, `missed`, `skipped`), `last_run_summary`,
`consecutive_failures`, `backoff_until`, `last_error`. Run summaries stay on the record, never as memory facts
(they would pollute recall).

A skill stored disabled because its tools were missing carries `last_error` starting with `WAITING_FOR_TOOLS`;
that marker, not the disabled flag, is what lets the scheduler enable it when the tools appear. A skill the user
disabled has no marker (the hub's skill hook clears it on any hand-made enabled change), so it stays off.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from orchestrator.skills.errors import TriggerError
from orchestrator.skills.normalizer import COMPAT_TOOL_NAMES
from orchestrator.skills.seeds import QUIET_REPLIES
from orchestrator.skills.triggers import (
    DEFAULT_GRACE,
    RunDecision,
    Trigger,
    backoff_until,
    missed_runs_decision,
    parse_trigger,
    should_auto_disable,
)
from shared.text import clip
from shared.timeutil import parse_timestamp

__all__ = [
    "SUMMARY_CHARS",
    "WAITING_FOR_TOOLS",
    "Due",
    "Outcome",
    "Preflight",
    "auto_enable_candidates",
    "direct_calls",
    "due_skills",
    "is_one_shot",
    "iso",
    "missed_outcome",
    "next_runs",
    "preflight_for",
    "preflight_says_skip",
    "run_outcome",
    "skill_tools",
    "waiting_marker",
]

WAITING_FOR_TOOLS = "Waiting for tools"
"""`last_error` prefix of a skill stored disabled until its tools are routable (then the scheduler enables it)."""
SUMMARY_CHARS = 1_000
"""A run summary is kept on the record this long at most; the notification carries the same text."""
_TELEGRAM_SEND = "telegram_send_message"
_CHAT_ID_MAX = 20  # a real Telegram chat id is at most ~14 digits; longer means the model invented one
_MEETING_NAME = re.compile(r"meeting|prep", re.IGNORECASE)


def iso(moment: datetime) -> str:
    """A stored moment: ISO 8601 in UTC, whole seconds (the Memorizer keeps seconds)."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def waiting_marker(missing: Iterable[str]) -> str:
    """The `last_error` of a skill stored disabled until `missing` tools are routable."""
    return f"{WAITING_FOR_TOOLS}: {', '.join(sorted(missing))}."


def skill_tools(skill: Mapping[str, Any]) -> list[str]:
    """Every tool a skill needs: its required tools and its plan's tools."""
    names = [str(name) for name in skill.get("required_tools") or []]
    for step in skill.get("execution_plan") or []:
        if isinstance(step, Mapping) and isinstance(step.get("toolName"), str):
            names.append(COMPAT_TOOL_NAMES.get(step["toolName"], step["toolName"]))
    return list(dict.fromkeys(names))


def skill_words(skill: Mapping[str, Any]) -> list[str]:
    """What a skill's run says it is for, in its writer's words: its name, description and instructions, and its
    plan's steps (a step's `"fact_id": 4` names the fact it changes). A run may change the records these name."""
    plan = skill.get("execution_plan")
    words = [str(skill.get(key) or "") for key in ("name", "description", "instructions")]
    return [*words, json.dumps(plan, ensure_ascii=False)] if plan else words


def _trigger(skill: Mapping[str, Any], default_tz: str) -> Trigger | None:
    config = skill.get("trigger_config")
    return parse_trigger(config if isinstance(config, Mapping) else None, default_tz=default_tz)


def is_one_shot(skill: Mapping[str, Any]) -> bool:
    config = skill.get("trigger_config")
    return isinstance(config, Mapping) and config.get("at") not in (None, "")


# -- which skills are due -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Due:
    """A skill the scheduler acts on now: `decision.action` is `run` or `missed`."""

    skill: Mapping[str, Any]
    decision: RunDecision


def due_skills(
    skills: Iterable[Mapping[str, Any]],
    now: datetime,
    *,
    default_tz: str,
    busy: Collection[int] = (),
    grace: timedelta = DEFAULT_GRACE,
    problems: dict[int, str] | None = None,
    memo: dict[int, tuple[tuple[str, ...], datetime | None]] | None = None,
) -> list[Due]:
    """The enabled cron skills with a run or a missed record owed at `now`, oldest slot first.

    `busy` are ids with a run in flight (skipped: the record still shows the previous run). A skill whose trigger
    cannot be parsed is left out and its reason put in `problems` (by id) for the log; it cannot fire anyway.
    `memo` (kept by the caller between ticks) remembers, per skill, when to look again and the fields that moment
    depends on: parsing a cron expression and finding its next slot costs ~150 µs, too much for 1,000 skills every
    second, while a skill's next slot only moves when its record changes.
    """
    found: list[Due] = []
    for skill in skills:
        if not skill.get("enabled") or skill.get("trigger_type") != "cron" or skill.get("id") in busy:
            continue
        key = (
            str(skill.get("trigger_config")),
            str(skill.get("created_at")),
            str(skill.get("last_run_at")),
            str(skill.get("backoff_until")),
            default_tz,
        )
        if memo is not None:
            remembered = memo.get(int(skill.get("id") or 0))
            if remembered is not None and remembered[0] == key and (remembered[1] is None or now < remembered[1]):
                continue
        try:
            trigger = _trigger(skill, default_tz)
        except TriggerError as exc:
            if problems is not None:
                problems[int(skill.get("id") or 0)] = str(exc)
            continue
        if trigger is None:
            continue
        created = parse_timestamp(skill.get("created_at")) or now
        decision = missed_runs_decision(
            trigger,
            now=now,
            created_at=created,
            last_run_at=parse_timestamp(skill.get("last_run_at")),
            backoff_until=parse_timestamp(skill.get("backoff_until")),
            grace=grace,
        )
        if decision.action != "wait":
            found.append(Due(skill, decision))
        elif memo is not None:
            memo[int(skill.get("id") or 0)] = (key, decision.next_fire)
    found.sort(key=lambda due: due.decision.due_at or now)
    return found


def next_runs(skill: Mapping[str, Any], now: datetime, *, default_tz: str) -> tuple[datetime | None, str]:
    """When an enabled cron skill will next run, and why then (backoff, not due yet); (None, reason) otherwise."""
    if not skill.get("enabled"):
        return None, "disabled"
    if skill.get("trigger_type") != "cron":
        return None, f"{skill.get('trigger_type') or 'manual'} (runs on request)"
    try:
        trigger = _trigger(skill, default_tz)
    except TriggerError as exc:
        return None, f"cannot be scheduled: {exc}"
    if trigger is None:
        return None, "no schedule"
    decision = missed_runs_decision(
        trigger,
        now=now,
        created_at=parse_timestamp(skill.get("created_at")) or now,
        last_run_at=parse_timestamp(skill.get("last_run_at")),
        backoff_until=parse_timestamp(skill.get("backoff_until")),
    )
    if decision.action == "wait":
        return decision.next_fire, decision.reason
    return now, "due now"


# -- outcomes -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What to write on the skill after a run (`memory_update_skill` fields) and what to tell the user, if anything."""

    updates: dict[str, Any]
    notify: str | None = None
    kind: Literal["skill_result", "skill_failure"] = "skill_result"
    status: str = "success"
    summary: str = ""


def run_outcome(
    skill: Mapping[str, Any],
    *,
    now: datetime,
    success: bool,
    summary: str = "",
    error: str = "",
    skipped: bool = False,
) -> Outcome:
    """The record update and notification for one finished run (or a pre-flight skip).

    Success resets the failure count; a failure counts one more and backs off 1 → 5 → 15 → 60 minutes, and the
    fifth in a row disables the skill with a notification saying how to turn it back on. A one-shot is disabled
    once it ran; one that failed keeps its slot (no `last_run_at`) so the backoff retries it.
    """
    name = str(skill.get("name") or f"#{skill.get('id')}")
    previous = int(skill.get("consecutive_failures") or 0)
    one_shot = is_one_shot(skill)
    updates: dict[str, Any] = {"last_run_at": iso(now)}
    if success or skipped:
        status = "skipped" if skipped else "success"
        text = clip(summary, SUMMARY_CHARS) or ("Nothing to do." if skipped else "Done.")
        updates.update(last_run_status=status, last_run_summary=text)
        if previous or skill.get("backoff_until"):
            updates.update(consecutive_failures=0, backoff_until=iso(now))
        if skill.get("last_error"):
            updates["last_error"] = ""
        if one_shot:
            updates["enabled"] = False
        quiet = skipped or not skill.get("notify_on_completion") or text.strip() in QUIET_REPLIES
        notify = None if quiet or not summary.strip() else f"{name}: {clip(summary, 3_500)}"
        return Outcome(updates, notify, "skill_result", status, text)

    failures = previous + 1
    message = clip(error or summary or "The run failed without saying why.", 500)
    updates.update(
        last_run_status="error",
        last_run_summary=clip(f"Failed: {message}", SUMMARY_CHARS),
        last_error=message,
        consecutive_failures=failures,
    )
    if one_shot and not should_auto_disable(failures):
        del updates["last_run_at"]  # keep the slot owed: the backoff retries it
    until = backoff_until(failures, now)
    if until is None:
        updates["enabled"] = False
        hint = f"Fix it, then enable it again (annabelle skills enable {skill.get('id')})."
        text = f"Skill '{name}' was disabled after {failures} failures in a row. Last error: {message} {hint}"
        return Outcome(updates, text, "skill_failure", "error", updates["last_run_summary"])
    updates["backoff_until"] = iso(until)
    return Outcome(updates, None, "skill_failure", "error", updates["last_run_summary"])


def missed_outcome(skill: Mapping[str, Any], decision: RunDecision, *, now: datetime) -> Outcome:
    """Record a slot found too late (after downtime): one `missed` entry however many slots passed; no run."""
    updates: dict[str, Any] = {
        "last_run_at": iso(now),
        "last_run_status": "missed",
        "last_run_summary": clip(f"Missed: {decision.reason}.", SUMMARY_CHARS),
    }
    if is_one_shot(skill):
        updates["enabled"] = False
    return Outcome(updates, None, "skill_result", "missed", updates["last_run_summary"])


# -- auto-enable ----------------------------------------------------------------------------------------------


def auto_enable_candidates(skills: Iterable[Mapping[str, Any]], routable: Collection[str]) -> list[Mapping[str, Any]]:
    """Disabled skills waiting for tools whose tools are now all routable; never one-shots (their time may be gone)."""
    ready = []
    for skill in skills:
        if skill.get("enabled") or is_one_shot(skill):
            continue
        if not str(skill.get("last_error") or "").startswith(WAITING_FOR_TOOLS):
            continue
        if all(tool in routable for tool in skill_tools(skill)):
            ready.append(skill)
    return ready


# -- direct tier ----------------------------------------------------------------------------------------------


def direct_calls(plan: Sequence[Mapping[str, Any]], default_chat_id: str | None) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of a direct-tier plan, in order, with old names mapped and the chat id filled in.

    `prefix:tool` namespaces (an old plan format) are stripped, `send_telegram` and other unprefixed names become
    the routed tools, and `telegram_send_message` gets the owner's chat when its `chat_id` is missing or invented.
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    for step in plan:
        name = str(step.get("toolName") or "").strip()
        name = name.rsplit(":", 1)[-1]
        name = COMPAT_TOOL_NAMES.get(name, name)
        raw = step.get("parameters")
        args: dict[str, Any] = dict(raw) if isinstance(raw, Mapping) else {}
        if name == _TELEGRAM_SEND and default_chat_id is not None:
            chat = args.get("chat_id")
            if not isinstance(chat, str | int) or isinstance(chat, bool) or len(str(chat)) > _CHAT_ID_MAX:
                args["chat_id"] = default_chat_id
            if "message" not in args and isinstance(args.get("text"), str):
                args["message"] = args.pop("text")
        calls.append((name, args))
    return calls


# -- pre-flight -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preflight:
    """A cheap tool call that tells whether a skill has anything to do before its (costly) agent run."""

    kind: Literal["email", "meeting"]
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


MEETING_WINDOW = timedelta(minutes=60)


_NEW_MAIL = "gmail_get_new_emails"
_CONTEXT_PREFIX = "memory_"
"""Tools that only add context (contacts, projects, preferences): they are no news of their own."""


def preflight_for(skill: Mapping[str, Any], now: datetime) -> Preflight | None:
    """Meeting skills (gmail_list_events and a name with meeting/prep) check the next hour's events; e-mail skills
    check for new mail without emptying the queue. Others: no pre-flight.

    An e-mail skill is one whose only source of news is the new-mail queue (its other tools are memory lookups):
    nothing new there means nothing to do. A skill that also reads the calendar, a mailbox search or the web (a
    briefing) has something to say without new mail, so it always runs."""
    if skill.get("execution_plan"):
        return None  # the direct tier is already free
    tools = set(skill_tools(skill))
    if "gmail_list_events" in tools and _MEETING_NAME.search(str(skill.get("name") or "")):
        window = {"time_min": iso(now), "time_max": iso(now + MEETING_WINDOW), "max_results": 5}
        return Preflight("meeting", "gmail_list_events", window)
    if _NEW_MAIL in tools and all(tool == _NEW_MAIL or tool.startswith(_CONTEXT_PREFIX) for tool in tools):
        return Preflight("email", _NEW_MAIL, {"clear": False})
    return None


def preflight_says_skip(check: Preflight, envelope: Mapping[str, Any]) -> str | None:
    """Why the run is skipped (a sentence), or None to run it. A failing check skips too: the run would fail alike."""
    if not envelope.get("success"):
        return f"Skipped: the pre-flight check {check.tool} failed: {envelope.get('error') or 'no reason given'}"
    data = envelope.get("data")
    items: Any = None
    if isinstance(data, Mapping):
        items = data.get("events") if check.kind == "meeting" else data.get("emails")
    elif isinstance(data, list):
        items = data
    if not items:
        return "Skipped: no meeting in the next hour." if check.kind == "meeting" else "Skipped: no new email."
    return None
