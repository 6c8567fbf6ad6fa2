"""The zone a skill without one runs in: ANNABELLE_TIMEZONE, else the machine's, as an IANA name.

The normaliser and the triggers want a zone *name* (they store it and hand it to ZoneInfo), while Python only gives
the machine's zone as an offset-bearing tzinfo; so the name is read where the system keeps it.
"""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["default_timezone", "system_zone_name"]


def _valid(name: str | None) -> str | None:
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
    named = _valid(os.environ.get("TZ"))
    if named:
        return named
    try:
        named = _valid((etc / "timezone").read_text().strip())
    except OSError:
        named = None
    if named:
        return named
    try:
        target = str((etc / "localtime").resolve())
    except OSError:
        target = ""
    if "zoneinfo/" in target:
        named = _valid(target.split("zoneinfo/", 1)[1])
        if named:
            return named
    return "UTC"


def default_timezone(configured: str | None) -> str:
    """ANNABELLE_TIMEZONE when set, else the machine's zone."""
    return configured or system_zone_name()
