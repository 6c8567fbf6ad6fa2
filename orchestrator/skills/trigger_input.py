"""A skill's `trigger_config` and `trigger_type` as a model writes them → what the scheduler reads. Pure.

Fixes 1–6 of the normaliser (orchestrator/skills/normalizer.py): aliases renamed, a schedule given at the top level
moved into `trigger_config`, "in 5 minutes" and the plain fields of `plain_timing` ({"every": "weekday", "time": "08:15"}) turned into
`at` or a cron `schedule`, and the timing checked now (a bad cron
expression or a time in the past fails when the skill is written, not at 3 a.m.). What cannot be fixed is refused
with a `SkillInputError` that tells the model what to send instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from orchestrator.skills.coerce import json_value, keywords, positive_number, whole_number
from orchestrator.skills.errors import SkillInputError, TriggerError
from orchestrator.skills.plain_timing import (
    PLAIN_KEYS,
    RELATIVE_KEYS,
    TIMING_KEYS,
    apply_plain_timing,
    fill_from_stored,
)
from orchestrator.skills.triggers import check_cron, cron_next, parse_moment, zone
from shared.contracts.memory import TIMING_DAYS

# Keys a model may put at the top level of the call instead of in trigger_config ("time" and "day" would be
# ambiguous there).
_TRIGGER_KEYS = ("schedule", "interval_minutes", "timezone", "at", "in_minutes", "in_hours", "every", "in_days")
_KNOWN_TRIGGER_KEYS = frozenset(
    {"schedule", "interval_minutes", "timezone", "at", "keywords", "priority", "source", "seed_version"}
)
_ALIASES = {
    "cronExpression": "schedule",
    "cron_expression": "schedule",
    "cron": "schedule",
    "intervalMinutes": "interval_minutes",
    "inMinutes": "in_minutes",
    "inHours": "in_hours",
    "timeZone": "timezone",
    "time_zone": "timezone",
    "tz": "timezone",
}
_TRIGGER_TYPES = ("cron", "manual", "event")
_TRIGGER_TYPE_ALIASES = {
    "schedule": "cron",
    "scheduled": "cron",
    "interval": "cron",
    "once": "cron",
    "one-shot": "cron",
    "oneshot": "cron",
    "time": "cron",
    "keyword": "event",
    "playbook": "event",
    "on_demand": "manual",
    "on-demand": "manual",
}


def repair_trigger_config(
    args: dict[str, Any],
    *,
    creating: bool,
    now: datetime,
    default_tz: str,
    current: Mapping[str, Any] | None,
    warnings: list[str],
) -> dict[str, Any] | None:
    """Take `trigger_config` (and the trigger keys at the top level) out of `args`, fixed and checked; None when
    neither was given. `current` is the stored skill's config on an update, merged under the given one."""
    config = _gather(args, warnings)
    if config is None:
        return None
    if current:
        config = _merged(current, config)
    tz = _zone(config, default_tz)
    apply_plain_timing(config, now, tz, warnings)
    _relative_to_at(config, now, tz, warnings)
    _check_timing(config, now, tz, creating=creating, warnings=warnings)
    _check_extras(config, warnings)
    return config


def settle_trigger_type(
    args: dict[str, Any], config: Mapping[str, Any] | None, creating: bool, warnings: list[str]
) -> None:
    """Set `args["trigger_type"]`: the given one (aliases read), `cron` whenever there is a schedule."""
    scheduled = config is not None and any(key in config for key in TIMING_KEYS)
    given = args.get("trigger_type")
    if given is not None:
        text = str(given).strip().lower()
        text = _TRIGGER_TYPE_ALIASES.get(text, text)
        if text not in _TRIGGER_TYPES:
            raise SkillInputError(
                f"trigger_type {given!r} is not one of cron (scheduled), manual (on request) or event (playbook)."
            )
        if scheduled and text != "cron":
            warnings.append(f"trigger_type was {given!r} but trigger_config has a schedule; set to 'cron'.")
            text = "cron"
        args["trigger_type"] = text
    elif scheduled:
        args["trigger_type"] = "cron"
    elif creating:
        args["trigger_type"] = "event" if config and config.get("keywords") else "manual"
    if creating and args["trigger_type"] == "cron" and not scheduled:
        raise SkillInputError(
            'A cron skill needs a time in trigger_config: once {"in_minutes": N}, {"in_days": N, "time": "HH:MM"} '
            f'or {{"at": "YYYY-MM-DDTHH:MM"}}; repeating {{"every": DAYS, "time": "HH:MM"}} ({TIMING_DAYS}), '
            '{"interval_minutes": N} or {"schedule": CRON}.'
        )


def _rename(mapping: dict[str, Any], where: str, warnings: list[str]) -> None:
    for alias, key in _ALIASES.items():
        if alias not in mapping:
            continue
        value = mapping.pop(alias)
        if key in mapping and mapping[key] != value:
            warnings.append(f"Both {where}{alias} and {where}{key} were given; kept {key}.")
        else:
            mapping.setdefault(key, value)


def _gather(args: dict[str, Any], warnings: list[str]) -> dict[str, Any] | None:
    """`trigger_config` parsed, with the trigger keys given at the top level moved into it (None: neither given)."""
    raw = args.pop("trigger_config", None)
    if isinstance(raw, str):
        raw = json_value("trigger_config", raw.strip(), dict) if raw.strip() else None
    if raw is not None and not isinstance(raw, dict):
        raise SkillInputError('trigger_config must be an object such as {"schedule": "0 9 * * *"}.')
    config: dict[str, Any] = {k: v for k, v in (raw or {}).items() if v is not None}
    _rename(config, "trigger_config.", warnings)
    _rename(args, "", warnings)
    moved = [key for key in _TRIGGER_KEYS if key in args]
    for key in moved:
        value = args.pop(key)
        if key in config and config[key] != value:
            warnings.append(f"{key} was given both at the top level and in trigger_config; kept trigger_config's.")
        else:
            config[key] = value
    if moved:
        warnings.append(f"Moved {', '.join(moved)} into trigger_config.")
    return None if raw is None and not moved else config


def _merged(current: Mapping[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    # The Memorizer replaces trigger_config whole: keep what this update does not mention.
    fill_from_stored(current, config)
    merged = dict(current)
    if any(key in config for key in (*TIMING_KEYS, *RELATIVE_KEYS, *PLAIN_KEYS)):
        for key in TIMING_KEYS:
            merged.pop(key, None)
    merged.update(config)
    return merged


def _zone(config: dict[str, Any], default_tz: str) -> ZoneInfo:
    """The skill's zone (its `timezone`, checked and written back by its IANA key, or `default_tz`)."""
    zone_name = config.get("timezone")
    if zone_name is not None:
        try:
            config["timezone"] = zone(str(zone_name)).key
        except TriggerError as exc:
            raise SkillInputError(str(exc)) from None
    return zone(config.get("timezone") or default_tz)


def _relative_to_at(config: dict[str, Any], now: datetime, tz: tzinfo, warnings: list[str]) -> None:
    relative = [key for key in RELATIVE_KEYS if key in config]
    if not relative:
        return
    minutes = sum(positive_number(key, config.pop(key)) * (60 if key == "in_hours" else 1) for key in relative)
    if "at" in config:
        raise SkillInputError(f"trigger_config has both at and {relative[0]}; give one of them.")
    moment = (now.astimezone(tz) + timedelta(minutes=minutes)).replace(microsecond=0)
    config["at"] = moment.isoformat()
    warnings.append(f"{' and '.join(relative)} converted to at {config['at']}.")


def _check_timing(config: dict[str, Any], now: datetime, tz: tzinfo, *, creating: bool, warnings: list[str]) -> None:
    """Exactly one of schedule, interval_minutes and at, and that one valid (an `at` in the past only on create)."""
    timing = [key for key in TIMING_KEYS if key in config]
    if len(timing) > 1:
        raise SkillInputError(
            f"trigger_config has {' and '.join(timing)}; give exactly one: schedule (cron, repeating at set times), "
            "interval_minutes (every N minutes) or at (once)."
        )
    try:
        if "schedule" in config:
            config["schedule"] = check_cron(config["schedule"])
            if cron_next(config["schedule"], tz, now) is None:
                raise SkillInputError(f"schedule {config['schedule']!r} never fires again after now.")
        if "interval_minutes" in config:
            config["interval_minutes"] = whole_number("interval_minutes", config["interval_minutes"], low=1)
        if "at" in config:
            at = parse_moment(config["at"], tz)
            if at <= now:
                message = (
                    f"at {at.isoformat()} is in the past (now is {now.astimezone(tz).replace(microsecond=0).isoformat()}); "
                    "give a future time, or in_minutes/in_hours for a time relative to now."
                )
                if creating:
                    raise SkillInputError(message)
                warnings.append(message + " The skill will not fire.")
            config["at"] = at.isoformat()
    except TriggerError as exc:
        raise SkillInputError(str(exc)) from None


def _check_extras(config: dict[str, Any], warnings: list[str]) -> None:
    if "priority" in config:
        config["priority"] = whole_number("trigger_config.priority", config["priority"])
    if "keywords" in config:
        config["keywords"] = keywords(config["keywords"])
    unknown = sorted(set(config) - _KNOWN_TRIGGER_KEYS)
    if unknown:
        warnings.append(f"trigger_config keys {', '.join(unknown)} mean nothing to the scheduler and were kept as is.")
