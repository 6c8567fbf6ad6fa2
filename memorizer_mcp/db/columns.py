"""Columns that hold JSON in TEXT (tags, participants, required tools): decoded leniently.

A row written by the original system or edited by hand may hold anything; a bad value reads as missing rather
than failing the whole answer.
"""

from __future__ import annotations

import json
from typing import Any


def json_list(raw: str | None) -> list[Any] | None:
    """The list stored in `raw`, or None when it is empty, not JSON, or not a list."""
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) else None
