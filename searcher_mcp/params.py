"""Pure argument rules of the search tools: how many results, how fresh, how safe.

Clamping is deliberate: a model asking for 50 results gets 20, not an error. Freshness words are mapped to
Brave's codes (`pd`, `pw`, `pm`, `py`); Brave's own codes and `YYYY-MM-DDtoYYYY-MM-DD` ranges pass through.
"""

from __future__ import annotations

import re

from shared.text import shorten

MIN_COUNT = 1
MAX_COUNT = 20

_FRESHNESS = {
    "24h": "pd",
    "day": "pd",
    "today": "pd",
    "1d": "pd",
    "pd": "pd",
    "week": "pw",
    "7d": "pw",
    "pw": "pw",
    "month": "pm",
    "30d": "pm",
    "pm": "pm",
    "year": "py",
    "1y": "py",
    "365d": "py",
    "py": "py",
}
_DATE_RANGE = re.compile(r"^\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}$")


class BadParameter(ValueError):
    """An argument no rule can make sense of; the message says what is accepted."""


def clamp_count(value: int | None, default: int) -> int:
    """`value` forced into 1..20; None means `default`."""
    if value is None:
        return default
    return max(MIN_COUNT, min(MAX_COUNT, int(value)))


def map_freshness(value: str | None, *, allow_year: bool = True) -> str | None:
    """Brave's freshness code for `value` (None or blank = no filter); `BadParameter` for anything else."""
    if value is None or not value.strip():
        return None
    word = value.strip().lower()
    if _DATE_RANGE.match(word):
        return word
    code = _FRESHNESS.get(word)
    if code is None or (code == "py" and not allow_year):
        accepted = "24h/day/today/1d, week/7d, month/30d" + (", year/1y/365d" if allow_year else "")
        raise BadParameter(f"freshness {shorten(value, 40)!r} is not understood; use one of {accepted}.")
    return code


MAX_TIMEOUT_SECONDS = 30


def fetch_timeout_ms(value: int) -> int:
    """A page-fetch timeout in milliseconds: 1000..30000 as given, 1..30 read as seconds.

    A model shown `timeout: integer` thinks in seconds: the 1.5B model sent 30 and was refused. A number of
    milliseconds that small would be no timeout worth asking for, so it can only mean seconds.
    """
    if 1 <= value <= MAX_TIMEOUT_SECONDS:
        return value * 1000
    if 1000 <= value <= MAX_TIMEOUT_SECONDS * 1000:
        return value
    raise BadParameter(f"timeout {value} is out of range; give 1000..30000 milliseconds (or 1..30 seconds).")
