"""Reading a tool result as the conversation holds it: its envelope, whether it failed, the record ids it holds.
Pure.

A result is the hub's envelope as JSON, wrapped as untrusted data when it came from outside; `known_ids` reads it
to tell an id the conversation has seen from a made-up one, and the history keeps a shortened result's ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

CONTEXT_IDS = frozenset({"agent_id", "chat_id"})
"""Ids of where the call runs (filled in by the Thinker), not of records."""


def is_id(value: Any) -> bool:
    """Whether a result's field value can be a record id (a number or a string; not a boolean)."""
    return isinstance(value, int | str) and not isinstance(value, bool)


def failed(envelope: Any) -> bool:
    """Whether a tool result's envelope (as `envelope_of` reads it) is a failure (`"success": false`)."""
    return isinstance(envelope, dict) and envelope.get("success") is False


def envelope_of(content: str) -> Any:
    """The JSON envelope of a tool result, also when it is wrapped as untrusted data; None when there is none."""
    start, end = content.find("{"), content.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        return json.loads(content[start : end + 1])
    except ValueError:
        return None


def kept_ids(content: str, *, limit: int = 10) -> list[dict[str, str]]:
    """The record ids a tool result that did not fail holds, each as `{"<kind>_id": value}` (an `id` field under
    `skills` becomes `skill_id`), at most `limit`, for a shortened result to keep: the history truncates older
    results, and an id the user then names ("reply to that mail") must still count as seen."""
    envelope = envelope_of(content)
    if envelope is None or failed(envelope):
        return []
    found = dict.fromkeys(_id_fields(envelope))
    return [{name: value} for name, value in list(found)[:limit]]


def _id_fields(value: Any, holder: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, list):
        for item in value:
            yield from _id_fields(item, holder)
    elif isinstance(value, dict):
        for key, item in value.items():
            if is_id(item) and str(item).strip():
                if key.endswith("_id") and key not in CONTEXT_IDS:
                    yield key, str(item)[:60]
                elif key == "id" and holder:
                    yield f"{holder.removesuffix('s')}_id", str(item)[:60]
            elif isinstance(item, list | dict):
                yield from _id_fields(item, str(key))
