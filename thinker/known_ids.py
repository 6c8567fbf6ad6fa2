"""Whether the record ids a call names came from the conversation, not from the model's imagination. Pure.

A call that may change state and names a record by id (`skill_id`, `fact_id`, `event_id`, `message_id`, ...) must
use an id the conversation has seen: one the user wrote, or one a tool returned. The 1.5B model, asked to move a
reminder, called `memory_update_skill` with `skill_id: 1` without looking, and overwrote another skill's schedule
and instructions. Refused, the call comes back to the model as an error saying to look the id up first; reads are
never held back (a wrong id there costs nothing but a "not found").

Seen means: anywhere in a user message as a whole word, or in a tool result as a whole word; a short id (under
four characters, so "1" or "12") only as the value of an id field in a tool result (`"id": 12`, `"skill_id": 12`)
or in a user message, because a bare "1" is in almost every result; or as the id the system prompt shows beside
a record of the parameter's kind (`shown_id`: "(fact 12)" counts for `fact_id`, never for `skill_id`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from thinker.sessions.messages import ChatMessage, text_of


def shown_id(kind: str, value: object) -> str:
    """How the system prompt names a record it shows, before its text: "(fact 12)", "(skill 29)". The kind is the
    id parameter's name without `_id`, so an id shown for one kind is never taken for another's: with one form for
    all, a fact shown as "(id 1)" let the 1.5B model overwrite skill 1 with the fact's words."""
    return f"({kind} {value})"


CONTEXT_IDS = frozenset({"agent_id", "chat_id"})
"""Ids of where the call runs (filled in by the Thinker), not of records."""
_SHORT = 4


def record_id_parameters(schema: Mapping[str, Any] | None) -> list[str]:
    """The required parameters of `schema` that name a record by id (`id` or `…_id`)."""
    required = (schema or {}).get("required") or []
    return [
        name
        for name in required
        if isinstance(name, str) and (name == "id" or name.endswith("_id")) and name not in CONTEXT_IDS
    ]


def unseen_ids(
    arguments: Mapping[str, Any], schema: Mapping[str, Any] | None, conversation: Sequence[ChatMessage]
) -> list[tuple[str, str]]:
    """(parameter, value) for each record id in `arguments` that no user message or tool result holds."""
    unseen: list[tuple[str, str]] = []
    for name in record_id_parameters(schema):
        value = arguments.get(name)
        if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
            continue
        text = str(value).strip()
        if not any(_holds(message, name, text) for message in conversation):
            unseen.append((name, text))
    return unseen


def _holds(message: ChatMessage, name: str, value: str) -> bool:
    role = message["role"]
    if role == "system":
        return name.endswith("_id") and shown_id(name.removesuffix("_id"), value) in text_of(message)
    if role not in ("user", "tool"):
        return False
    content = text_of(message)
    if value not in content:
        return False
    if role == "user" or len(value) >= _SHORT:
        return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", content) is not None
    return re.search(rf'"\w*id"\s*:\s*"?{re.escape(value)}"?\s*[,}}\]]', content, re.IGNORECASE) is not None
