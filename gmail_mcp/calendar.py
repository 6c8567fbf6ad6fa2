"""Pure calendar logic: event bodies from tool arguments, and free slots from busy periods."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any


class EventError(ValueError):
    """The event arguments do not describe an event; the message says which are wrong."""


@dataclass(frozen=True)
class Reminder:
    method: str
    minutes: int


def parse_time(value: str) -> datetime:
    """An RFC 3339 time ('2026-05-01T09:00:00Z', '…+02:00'); naive times are refused."""
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise EventError(f"{value!r} is not a date-time like 2026-05-01T09:00:00+02:00.") from None
    if parsed.tzinfo is None:
        raise EventError(f"{value!r} has no UTC offset; add one (e.g. 'Z' or '+02:00').")
    return parsed


def _date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise EventError(f"{name} {value!r} is not a date like 2026-05-01.") from None


def _date_time(value: str, name: str) -> datetime:
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise EventError(f"{name} {value!r} is not a date-time like 2026-05-01T09:00:00.") from None


def _same_days(date_time: str | None, date: str | None) -> bool:
    """Whether an all-day `date` says nothing beyond the day of `date_time` (True when either is absent)."""
    if date_time is None or date is None:
        return True
    return date.strip() == date_time.strip()[:10]


def time_fields(
    *,
    start_date_time: str | None,
    end_date_time: str | None,
    start_date: str | None,
    end_date: str | None,
    time_zone: str | None,
    required: bool,
) -> dict[str, Any]:
    """The `start`/`end` of an event: timed (date-times, optional time zone) or all-day (dates).

    An all-day event without an end lasts one day (Google's end date is exclusive); a timed one, one hour. A timed
    end equal to its start is read as no end: a model that knows no duration copies the start (the 1.5B model did,
    and the refusal sent it off creating a skill instead of the event).
    """
    timed = start_date_time is not None or end_date_time is not None
    all_day = start_date is not None or end_date is not None
    if timed and all_day and _same_days(start_date_time, start_date) and _same_days(end_date_time, end_date):
        # The dates only repeat the date-times' days (a small model fills every field it is shown): timed it is.
        start_date = end_date = None
        all_day = False
    if timed and all_day:
        raise EventError(
            "Give either start_date_time/end_date_time (timed) or start_date/end_date (all-day), not both."
        )
    if not timed and not all_day:
        if required:
            raise EventError("Give start_date_time (a timed event) or start_date (an all-day event).")
        return {}
    if all_day:
        if start_date is None:
            raise EventError("An all-day change needs start_date too.")
        first = _date(start_date, "start_date")
        last = _date(end_date, "end_date") if end_date else first + timedelta(days=1)
        if last <= first:
            raise EventError("end_date must be after start_date (it is exclusive: a one-day event ends the next day).")
        return {"start": {"date": first.isoformat()}, "end": {"date": last.isoformat()}}
    if start_date_time is None:
        raise EventError("A timed change needs start_date_time too.")
    start = _date_time(start_date_time, "start_date_time")
    end = _date_time(end_date_time, "end_date_time") if end_date_time else start
    if end == start:
        end = start + timedelta(hours=1)
    if start.tzinfo is None and not time_zone:
        raise EventError("start_date_time has no UTC offset: add one or give time_zone (e.g. 'Europe/Paris').")
    if (start.tzinfo is None) != (end.tzinfo is None):
        raise EventError("Give both date-times with a UTC offset, or both without.")
    if end <= start:
        raise EventError("end_date_time must be after start_date_time.")
    start_field: dict[str, Any] = {"dateTime": start.isoformat()}
    end_field: dict[str, Any] = {"dateTime": end.isoformat()}
    if time_zone:
        start_field["timeZone"] = time_zone
        end_field["timeZone"] = time_zone
    return {"start": start_field, "end": end_field}


def event_body(
    *,
    summary: str | None = None,
    description: str | None = None,
    location: str | None = None,
    start_date_time: str | None = None,
    start_date: str | None = None,
    end_date_time: str | None = None,
    end_date: str | None = None,
    time_zone: str | None = None,
    attendees: Sequence[str] | None = None,
    recurrence: Sequence[str] | None = None,
    reminders: Sequence[Reminder] | None = None,
    partial: bool = False,
) -> dict[str, Any]:
    """A Calendar API event resource (or, with `partial`, only the fields given, for a PATCH)."""
    body: dict[str, Any] = {}
    if summary is not None:
        body["summary"] = summary
    elif not partial:
        raise EventError("An event needs a summary.")
    if description is not None:
        body["description"] = description
    if location is not None:
        body["location"] = location
    body.update(
        time_fields(
            start_date_time=start_date_time,
            end_date_time=end_date_time,
            start_date=start_date,
            end_date=end_date,
            time_zone=time_zone,
            required=not partial,
        )
    )
    if attendees is not None:
        body["attendees"] = [{"email": email.strip()} for email in attendees if email.strip()]
    if recurrence:
        body["recurrence"] = list(recurrence)
    if reminders is not None:
        body["reminders"] = {
            "useDefault": False,
            "overrides": [{"method": r.method, "minutes": r.minutes} for r in reminders],
        }
    return body


def free_slots(
    busy: Iterable[tuple[datetime, datetime]],
    time_min: datetime,
    time_max: datetime,
    min_minutes: float = 0,
) -> list[tuple[datetime, datetime]]:
    """The gaps in [time_min, time_max) not covered by any busy period (merged across calendars)."""
    if time_max <= time_min:
        return []
    clipped = sorted(
        (max(start, time_min), min(end, time_max)) for start, end in busy if end > time_min and start < time_max
    )
    slots: list[tuple[datetime, datetime]] = []
    cursor = time_min
    for start, end in clipped:
        if start > cursor:
            slots.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < time_max:
        slots.append((cursor, time_max))
    minimum = timedelta(minutes=min_minutes)
    return [(start, end) for start, end in slots if end - start >= minimum and end > start]


def compact_event(event: dict[str, Any], *, full: bool = False) -> dict[str, Any]:
    start = event.get("start") or {}
    end = event.get("end") or {}
    out: dict[str, Any] = {
        "id": event.get("id"),
        "summary": event.get("summary", ""),
        "start": start.get("dateTime") or start.get("date"),
        "end": end.get("dateTime") or end.get("date"),
        "all_day": "date" in start,
        "location": event.get("location"),
        "status": event.get("status"),
        "html_link": event.get("htmlLink"),
    }
    attendees = event.get("attendees") or []
    if full:
        out["description"] = event.get("description")
        out["time_zone"] = start.get("timeZone")
        out["organizer"] = (event.get("organizer") or {}).get("email")
        out["recurrence"] = event.get("recurrence")
        out["reminders"] = event.get("reminders")
        out["attendees"] = [
            {"email": a.get("email"), "response_status": a.get("responseStatus"), "self": bool(a.get("self"))}
            for a in attendees
        ]
    else:
        out["attendee_count"] = len(attendees)
    return out
