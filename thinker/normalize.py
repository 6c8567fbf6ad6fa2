"""The model's arguments made exact for the tool. Pure.

Models (small local ones especially) send `"5"` for 5, `"true"` for true, `null` for "not given", and invent
parameters. `normalize_arguments` turns the call into what the tool's real schema wants: strings coerced to the
declared number/boolean, nulls dropped (absent = default), unknown properties dropped when the schema lists its
properties, the current chat id put into Telegram sends when the model left it out or garbled it, and this
agent's id into tools that take one. (The model is shown compact schemas, see compact.py; widening them to
accept these near-misses cost about 6 % of a turn's tool tokens for calls this function fixes anyway.)
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from thinker.compact import HIDDEN_PARAMETERS

JsonSchema = dict[str, Any]


CHAT_ID_TOOLS = frozenset({"telegram_send_message", "send_telegram"})
"""Tools whose `chat_id` is the conversation's own chat unless the model named a plausible other one."""

_CHAT_ID_MAX = 20
# Telegram chat ids are integers (negative for groups, -100… for channels) or @usernames.
_PLAUSIBLE_CHAT_ID = re.compile(r"^(-?\d{1,20}|@[A-Za-z0-9_]{4,32})$")


# -- arguments -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NormalizedArguments:
    arguments: dict[str, Any]
    dropped: tuple[str, ...] = ()
    """Properties removed because the tool does not declare them."""
    coerced: tuple[str, ...] = ()
    """Properties whose string value was turned into the declared number or boolean."""
    notes: tuple[str, ...] = field(default=())
    """Other changes worth a log line (the chat id that was put in, for instance)."""


def normalize_arguments(
    tool: str,
    arguments: Mapping[str, Any],
    schema: Mapping[str, Any] | None,
    *,
    chat_id: str | None = None,
    agent_id: str | None = None,
) -> NormalizedArguments:
    """The model's `arguments` for `tool`, made to fit the tool's real `schema`.

    A tool that takes an `agent_id` gets this agent's (the model is not shown the parameter, and whatever it
    sends there is replaced: one agent never reads or writes another's memory by the model's choice). The other
    parameters the model is not shown (`compact.HIDDEN_PARAMETERS`) are dropped if it sends them.
    """
    schema = schema or {}
    coerced: list[str] = []
    cleaned = _clean_object(dict(arguments), schema, "", coerced)
    dropped = _drop_unknown(cleaned, schema)
    notes: list[str] = []
    for name in sorted(HIDDEN_PARAMETERS - {"agent_id"}):
        if cleaned.pop(name, None) is not None:
            notes.append(f"{name} left to the hub")
    properties = schema.get("properties")
    if agent_id and isinstance(properties, Mapping) and "agent_id" in properties:
        if cleaned.get("agent_id") not in (None, agent_id):
            notes.append("agent_id set to this agent's")
        cleaned["agent_id"] = agent_id
    if tool in CHAT_ID_TOOLS and chat_id:
        note = _inject_chat_id(cleaned, chat_id)
        if note:
            notes.append(note)
    return NormalizedArguments(cleaned, tuple(dropped), tuple(coerced), tuple(notes))


def _clean_object(value: dict[str, Any], schema: Mapping[str, Any], path: str, coerced: list[str]) -> dict[str, Any]:
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:
            # A model's null means "not given": leaving the key out lets the tool apply its default.
            continue
        child_schema = properties.get(key) if isinstance(properties, dict) else None
        out[key] = _clean_value(item, child_schema if isinstance(child_schema, dict) else {}, f"{path}{key}", coerced)
    return out


def _clean_value(value: Any, schema: Mapping[str, Any], path: str, coerced: list[str]) -> Any:
    if isinstance(value, str):
        converted = _coerce_string(value, _accepted_types(schema))
        if converted is not value:
            coerced.append(path)
        return converted
    if isinstance(value, dict):
        return _clean_object(value, schema, f"{path}.", coerced)
    if isinstance(value, list):
        raw_items = schema.get("items")
        items: Mapping[str, Any] = raw_items if isinstance(raw_items, dict) else {}
        return [_clean_value(v, items, f"{path}[{i}]", coerced) for i, v in enumerate(value) if v is not None]
    return value


def _types(node: Mapping[str, Any]) -> list[str]:
    declared = node.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


def _accepted_types(schema: Mapping[str, Any]) -> set[str]:
    types = set(_types(schema))
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            if isinstance(option, dict):
                types.update(_types(option))
    return types


def _coerce_string(value: str, accepted: set[str]) -> Any:
    # Only when the tool cannot take the string as it is: "true" stays text for a `message: string`.
    if not accepted or "string" in accepted:
        return value
    text = value.strip()
    if "boolean" in accepted and text.lower() in ("true", "false"):
        return text.lower() == "true"
    # At most 30 digits: a longer string stays a string for the tool to refuse (Python will not even convert a
    # number of more than 4,300 digits, and a model's made-up id once was one).
    if "integer" in accepted and re.fullmatch(r"[+-]?\d{1,30}", text):
        return int(text)
    if "integer" in accepted and re.fullmatch(r"[+-]?\d{1,30}\.0*", text):
        return int(float(text))
    if "number" in accepted:
        try:
            number = float(text)
        except ValueError:
            return value
        if math.isfinite(number):
            return int(number) if re.fullmatch(r"[+-]?\d+", text) else number
    return value


def _drop_unknown(arguments: dict[str, Any], schema: Mapping[str, Any]) -> list[str]:
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    # A schema that lists its properties and does not invite extras gets only those: a hallucinated parameter
    # would otherwise fail the whole call at the tool ("unexpected keyword argument").
    if not isinstance(properties, dict) or extra is True or isinstance(extra, dict):
        return []
    if not properties and "additionalProperties" not in schema:
        return []
    dropped = [key for key in arguments if key not in properties]
    for key in dropped:
        del arguments[key]
    return dropped


def _inject_chat_id(arguments: dict[str, Any], chat_id: str) -> str | None:
    given = arguments.get("chat_id")
    if isinstance(given, bool):
        given = None
    if isinstance(given, int):
        given = str(given)
        arguments["chat_id"] = given
    if isinstance(given, str) and len(given) <= _CHAT_ID_MAX and _PLAUSIBLE_CHAT_ID.match(given.strip()):
        arguments["chat_id"] = given.strip()
        return None
    arguments["chat_id"] = chat_id
    return f"chat_id set to the current chat ({'was missing' if given is None else 'was not a chat id'})"
