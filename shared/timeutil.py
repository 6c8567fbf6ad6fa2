"""Time in one place: the wall-clock seam and the original system's timestamp format.

Logic that depends on the time (sessions, cost windows, extraction, the scheduler, the channel, halts) takes it
as an argument (`now`) or from a `Clock` passed in, so tests drive a fake clock through hours without sleeping.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""Returns the current time, timezone-aware."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """`moment` in UTC; a naive datetime is taken to be UTC already (never the machine's local zone)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def format_timestamp(moment: datetime) -> str:
    """`2026-02-11T01:14:59.755Z`: the original system's format (JavaScript's toISOString)."""
    return as_utc(moment).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_timestamp(value: object) -> datetime | None:
    """An ISO 8601 timestamp as an aware UTC datetime, or None when `value` is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return as_utc(datetime.fromisoformat(value))
    except ValueError:
        return None
