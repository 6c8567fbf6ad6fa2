"""A skill's timing in plain fields, turned into the cron schedule or one-off time the scheduler reads. Pure.

Writing cron is where small local models fail: a 1.5B model wrote "0 8:15 * * 1-5" for "every weekday at 8.15",
"0 9 * * 1" (Mondays) for "the first of every month" and `{"in_hours": 24}` for "every Sunday at 20:00", and it
cannot add two days to a date it was told. Named fields in plain words ask for no syntax and no arithmetic:

    {"every": "weekday", "time": "08:15"}               schedule "15 8 * * 1-5"
    {"every": ["tuesday", "thursday"], "time": "18:30"} schedule "30 18 * * 2,4"
    {"every": "month", "day": 1, "time": "9:00"}        schedule "0 9 1 * *"
    {"in_days": 2, "time": "07:00"}                     at: the day after tomorrow, 07:00 in the skill's zone
    {"time": "21:00"}                                   at: the next 21:00 (today, or tomorrow once it has passed)

On an update, `time` alone moves the stored skill to that time and keeps its days ("make it 9 instead"), and
`every` alone keeps its time of day ("move it to Sundays").

What is stored is only the usual form (`schedule` or `at`), so the scheduler, SKILL.md files and exports never see
these fields. The words are English, as every other key and value of a tool call is; the model translates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta, tzinfo
from typing import Any

from orchestrator.skills.coerce import whole_number
from orchestrator.skills.errors import SkillInputError

PLAIN_KEYS = ("every", "in_days", "time", "day")
"""The plain fields; any of them in a trigger_config means its timing is given this way."""

TIMING_KEYS = ("schedule", "interval_minutes", "at")
"""The forms the scheduler reads; a stored trigger_config holds exactly one of them."""
RELATIVE_KEYS = ("in_minutes", "in_hours")
"""Times from now, turned into `at` when the skill is stored."""
_OTHER_TIMING = (*TIMING_KEYS, *RELATIVE_KEYS)
_WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")  # cron numbers 0-6
_DAY_SETS = {"day": "*", "daily": "*", "weekday": "1-5", "workday": "1-5", "weekend": "0,6"}
_MONTHLY = ("month", "monthly")
_HOURLY = ("hour", "hourly")
_EVERY_WORDS = "day, weekday, weekend, hour, month or a weekday name such as 'sunday' (a list for several)"
_SPANS = ("minute", "hour", "day", "week")
_FROM_NOW = (
    ' For once, some time from now, give {"in_minutes": N}, {"in_hours": N} or {"in_days": N, "time": "HH:MM"}'
    " instead of every."
)
_CLOCK = re.compile(r"^(\d{1,2})(?:\s*[:.h]\s*(\d{2})|h)?(?::\d{2})?\s*(am|pm|a\.m\.|p\.m\.)?$")


def apply_plain_timing(config: dict[str, Any], now: datetime, tz: tzinfo, warnings: list[str]) -> None:
    """Replace the plain fields of `config` by `schedule` or `at`; SkillInputError saying what to send otherwise."""
    given = [key for key in PLAIN_KEYS if key in config]
    if not given:
        return
    clashing = [key for key in _OTHER_TIMING if key in config]
    if clashing:
        raise SkillInputError(
            f"trigger_config has {', '.join(given)} and {', '.join(clashing)}; give one way of saying when it runs."
        )
    every, in_days = config.pop("every", None), config.pop("in_days", None)
    time_text, day = config.pop("time", None), config.pop("day", None)
    clock = None if time_text is None else parse_clock(time_text)
    if every is not None and in_days is not None:
        raise SkillInputError("trigger_config has every and in_days; give every (repeating) or in_days (once).")
    if every is not None:
        config["schedule"] = every_schedule(every, clock, day)
        warnings.append(f"{_said(given)} converted to schedule {config['schedule']!r}.")
        return
    if day is not None:
        raise SkillInputError('trigger_config.day goes with every "month": {"every": "month", "day": 1, ...}.')
    days = 0 if in_days is None else whole_number("trigger_config.in_days", in_days, low=0)
    config["at"] = one_off(now.astimezone(tz), days, clock).isoformat()
    warnings.append(f"{_said(given)} converted to at {config['at']}.")


def fill_from_stored(current: Mapping[str, Any], update: dict[str, Any]) -> None:
    """An update's plain fields completed from the stored skill: `time` alone moves its schedule or one-off time and
    keeps its days ("make it 9 instead"); `every` alone keeps its time of day ("move it to Sundays")."""
    given = set(update) & {*PLAIN_KEYS, *_OTHER_TIMING}
    if given == {"every"} and "schedule" in current:
        minute, hour = _time_fields(str(current["schedule"]))
        update["time"] = f"{hour}:{minute:0>2}"
        return
    if given != {"time"}:
        return
    hour, minute = parse_clock(update["time"])
    if "schedule" in current:
        _time_fields(str(current["schedule"]))
        update["schedule"] = " ".join([str(minute), str(hour), *str(current["schedule"]).split()[2:]])
    elif "at" in current:
        moment = datetime.fromisoformat(str(current["at"]))
        update["at"] = moment.replace(hour=hour, minute=minute, second=0, microsecond=0).isoformat()
    elif "interval_minutes" in current:
        raise SkillInputError("This skill repeats every few minutes; give every and time to run it at a set time.")
    else:
        return
    del update["time"]


def parse_clock(value: Any) -> tuple[int, int]:
    """(hour, minute) of a time of day as people and models write it: 08:15, 8.15, 8, 20h, 20h30, 8:15 pm."""
    text = str(value).strip().lower()
    match = _CLOCK.match(text)
    if match is not None:
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        half = match.group(3)
        if half is not None and 1 <= hour <= 12:
            hour = hour % 12 + (12 if half.startswith("p") else 0)
        elif half is not None:
            hour = 99  # "14 pm": refused below
        if hour <= 23 and minute <= 59:
            return hour, minute
    raise SkillInputError(f"time {str(value)[:40]!r} is not a time of day; give HH:MM, e.g. '08:15' or '20:00'.")


def every_schedule(every: Any, clock: tuple[int, int] | None, day: Any) -> str:
    """The cron expression for `every` at `clock` (required, except hourly: the hour's start when none)."""
    words = [str(word).strip().lower() for word in (every if isinstance(every, list) else [every])]
    if not words or not all(words):
        raise SkillInputError(f"trigger_config.every must be one of {_EVERY_WORDS}.")
    single = words[0] if len(words) == 1 else None
    if single in _HOURLY:
        if clock is not None and clock[0] != 0:
            raise SkillInputError('every "hour" takes only minutes past the hour, e.g. "time": "00:30".')
        return f"{(clock or (0, 0))[1]} * * * *"
    if single in _MONTHLY and day is None:
        # No silent first of the month: the 1.5B model, asked for the 25th, sent {"every": "month", "time": "09:00"}.
        raise SkillInputError('every "month" needs the day of the month: "day": N, N from 1 to 31.')
    day_fields = (
        f"{whole_number('trigger_config.day', day, low=1, high=31)} * *"
        if single in _MONTHLY
        else f"* * {_days_of_week(words)}"
    )
    if day is not None and single not in _MONTHLY:
        raise SkillInputError('trigger_config.day goes with every "month" only.')
    if clock is None:
        raise SkillInputError(f'every {words[0][:40]!r} needs a time of day, e.g. "time": "09:00".')
    return f"{clock[1]} {clock[0]} {day_fields}"


def one_off(now: datetime, days: int, clock: tuple[int, int] | None) -> datetime:
    """`days` from `now` at `clock` (now's time of day when none); with no days, the next time `clock` comes round."""
    moment = now.replace(microsecond=0) + timedelta(days=days)
    if clock is None:
        return moment
    moment = moment.replace(hour=clock[0], minute=clock[1], second=0)
    if days == 0 and moment <= now:
        moment += timedelta(days=1)
    return moment


def _time_fields(schedule: str) -> tuple[str, str]:
    """The minute and hour fields of a cron schedule that fires at one time of day (SkillInputError otherwise)."""
    fields = schedule.split()
    if len(fields) != 5 or not (fields[0].isdigit() and fields[1].isdigit()):
        raise SkillInputError(f"schedule {schedule[:60]!r} has no one time of day to keep; give every and time.")
    return fields[0], fields[1]


def _days_of_week(words: list[str]) -> str:
    if len(words) == 1 and words[0] in _DAY_SETS:
        return _DAY_SETS[words[0]]
    numbers: list[int] = []
    for word in words:
        number = _weekday(word)
        if number is None:
            # "in 4 hours" sent as {"every": "hours"} or {"every": "4"}: say how a one-off time from now is written.
            span = word.isdigit() or word.removesuffix("s") in _SPANS
            raise SkillInputError(
                f"trigger_config.every {word[:40]!r} is not one of {_EVERY_WORDS}.{_FROM_NOW if span else ''}"
            )
        numbers.append(number)
    return ",".join(str(n) for n in sorted(set(numbers)))


def _weekday(word: str) -> int | None:
    """Cron's number for a weekday written in full, shortened ("tue", "thurs") or plural ("sundays")."""
    for candidate in (word, word.removesuffix("s")):
        if len(candidate) >= 3:
            for number, name in enumerate(_WEEKDAYS):
                if name.startswith(candidate):
                    return number
    return None


def _said(keys: list[str]) -> str:
    return keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} and {keys[-1]}"
