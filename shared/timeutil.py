"""Time in one place: the wall-clock seam and the original system's timestamp format.

Logic that depends on the time (sessions, cost windows, extraction, the scheduler, the channel, halts) takes it
as an argument (`now`) or from a `Clock` passed in, so tests drive a fake clock through hours without sleeping.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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
    """An ISO 8601 timestamp (`Z`, an offset, or none for UTC; `T` or a space between date and time, as SQLite
    writes it) as an aware UTC datetime, or None when `value` is not one."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return as_utc(datetime.fromisoformat(value.strip()))
    except ValueError:
        return None


def _zone_name(name: str | None) -> str | None:
    if not name:
        return None
    name = name.strip().lstrip(":")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def system_zone_name(etc: Path = Path("/etc")) -> str:
    """The machine's IANA zone: $TZ, /etc/timezone, the /etc/localtime link; UTC when none says."""
    named = _zone_name(os.environ.get("TZ"))
    if named:
        return named
    try:
        named = _zone_name((etc / "timezone").read_text().strip())
    except OSError:
        named = None
    if named:
        return named
    try:
        target = str((etc / "localtime").resolve())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        named = _zone_name(target.split("zoneinfo/", 1)[1])
        if named:
            return named
    return "UTC"
