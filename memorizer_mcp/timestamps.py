"""Timestamps as the database keeps them: UTC `YYYY-MM-DD HH:MM:SS`, the format of SQLite's `datetime('now')`.

One format for rows the original wrote and rows written now, so string comparison orders them correctly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, time

Clock = Callable[[], datetime]

DB_FORMAT = "%Y-%m-%d %H:%M:%S"
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def utc_now() -> datetime:
    return datetime.now(UTC)


def to_db(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime(DB_FORMAT)


def parse_moment(text: str, *, end_of_day: bool = False) -> datetime:
    """`2026-11-21`, `2026-11-21 09:30:00`, `2026-11-21T09:30:00+01:00` or `...Z` → an aware UTC datetime.

    A bare date is the start of that day, or its last second with `end_of_day`; a time without a zone is UTC.
    Raises ValueError with a sentence for anything else.
    """
    value = text.strip()
    try:
        if _DATE_ONLY.match(value):
            day = date.fromisoformat(value)
            moment = datetime.combine(day, time(23, 59, 59) if end_of_day else time(0, 0, 0))
        else:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date; use YYYY-MM-DD or an ISO date-time such as 2026-11-21T09:30:00Z"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def db_moment(text: str, *, end_of_day: bool = False) -> str:
    return to_db(parse_moment(text, end_of_day=end_of_day))
