"""Argument normalisation (thinker/normalize.py): pure functions, no I/O."""

from __future__ import annotations

from typing import Any

import pytest

from thinker.compact import compact_schema
from thinker.normalize import normalize_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "limit": {"type": "integer"},
        "score": {"type": "number"},
        "exact": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "integer"}},
        "filter": {
            "type": "object",
            "properties": {"enabled": {"type": "boolean"}, "name": {"type": "string"}},
            "required": ["enabled"],
        },
        "mode": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "integer"}]},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def test_a_tool_taking_an_agent_id_gets_this_agents_whatever_the_model_sent() -> None:
    schema = {"type": "object", "properties": {"fact": {"type": "string"}, "agent_id": {"type": "string"}}}
    given = normalize_arguments("memory_store_fact", {"fact": "x"}, schema, agent_id="work")
    assert given.arguments == {"fact": "x", "agent_id": "work"} and not given.notes
    other = normalize_arguments("memory_store_fact", {"fact": "x", "agent_id": "annabelle"}, schema, agent_id="work")
    assert other.arguments["agent_id"] == "work" and other.notes == ("agent_id set to this agent's",)
    # A tool without the parameter gets none.
    assert "agent_id" not in normalize_arguments("t", {"query": "x"}, SCHEMA, agent_id="work").arguments


def test_a_memory_writes_provenance_is_left_to_the_hub_whatever_the_model_sent() -> None:
    schema = {"type": "object", "properties": {"fact": {"type": "string"}, "provenance": {"type": "string"}}}
    given = normalize_arguments("memory_update_fact", {"fact": "x", "provenance": "system"}, schema)
    assert given.arguments == {"fact": "x"} and given.notes == ("provenance left to the hub",)
    assert "provenance" not in compact_schema(schema)["properties"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"query": "x", "limit": "5"}, {"query": "x", "limit": 5}),
        ({"query": "x", "limit": "5.0"}, {"query": "x", "limit": 5}),
        ({"query": "x", "score": "0.5"}, {"query": "x", "score": 0.5}),
        ({"query": "x", "exact": "true"}, {"query": "x", "exact": True}),
        ({"query": "x", "exact": "FALSE"}, {"query": "x", "exact": False}),
        ({"query": "x", "tags": ["1", "2"]}, {"query": "x", "tags": [1, 2]}),
        ({"query": "x", "filter": {"enabled": "true"}}, {"query": "x", "filter": {"enabled": True}}),
        ({"query": "true"}, {"query": "true"}),  # a string parameter keeps its text
        ({"query": "x", "limit": "many"}, {"query": "x", "limit": "many"}),  # not a number: the tool says so
        ({"query": "x", "mode": "a"}, {"query": "x", "mode": "a"}),  # a union with string keeps strings
    ],
)
def test_strings_become_the_declared_number_or_boolean(given: dict[str, Any], expected: dict[str, Any]) -> None:
    assert normalize_arguments("t", given, SCHEMA).arguments == expected


def test_coerced_paths_are_reported() -> None:
    result = normalize_arguments("t", {"query": "x", "limit": "3", "filter": {"enabled": "false"}}, SCHEMA)
    assert set(result.coerced) == {"limit", "filter.enabled"}


def test_nulls_are_dropped_so_the_tool_applies_its_defaults() -> None:
    result = normalize_arguments("t", {"query": "x", "limit": None, "filter": {"enabled": True, "name": None}}, SCHEMA)
    assert result.arguments == {"query": "x", "filter": {"enabled": True}}


def test_unknown_properties_are_dropped_when_the_schema_lists_its_properties() -> None:
    result = normalize_arguments("t", {"query": "x", "teamId": "abc", "slug": 1}, SCHEMA)
    assert result.arguments == {"query": "x"}
    assert result.dropped == ("teamId", "slug")


def test_unknown_properties_stay_when_the_schema_invites_extras() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True}
    assert normalize_arguments("t", {"a": "1", "b": 2}, schema).arguments == {"a": "1", "b": 2}


def test_a_schema_without_properties_keeps_every_argument() -> None:
    assert normalize_arguments("t", {"a": "1"}, {"type": "object"}).arguments == {"a": "1"}
    assert normalize_arguments("t", {"a": "1"}, None).arguments == {"a": "1"}


TELEGRAM = {
    "type": "object",
    "properties": {"chat_id": {"type": "string"}, "message": {"type": "string"}},
    "required": ["message"],
}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"message": "hi"}, "42"),  # missing
        ({"message": "hi", "chat_id": None}, "42"),  # null
        ({"message": "hi", "chat_id": "my chat with the user please"}, "42"),  # garbled
        ({"message": "hi", "chat_id": "x" * 25}, "42"),  # suspiciously long
        ({"message": "hi", "chat_id": 777}, "777"),  # a number is a chat id written as a number
        ({"message": "hi", "chat_id": "-100123456"}, "-100123456"),  # a group, named on purpose
        ({"message": "hi", "chat_id": "@some_channel"}, "@some_channel"),
    ],
)
def test_telegram_sends_get_the_current_chat_unless_a_plausible_one_was_named(
    given: dict[str, Any], expected: str
) -> None:
    for tool in ("telegram_send_message", "send_telegram"):
        assert normalize_arguments(tool, given, TELEGRAM, chat_id="42").arguments["chat_id"] == expected


def test_other_tools_and_turns_without_a_chat_get_no_chat_id() -> None:
    assert "chat_id" not in normalize_arguments("filer_read_file", {"message": "x"}, TELEGRAM, chat_id="42").arguments
    assert "chat_id" not in normalize_arguments("send_telegram", {"message": "x"}, TELEGRAM, chat_id=None).arguments


def test_a_number_too_long_to_be_one_stays_text_for_the_tool_to_refuse() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": "number"}}}
    given = normalize_arguments("t", {"n": "9" * 100_000, "x": "9" * 100_000}, schema)
    assert given.arguments == {"n": "9" * 100_000, "x": "9" * 100_000}
    assert normalize_arguments("t", {"n": "12", "x": "1.5"}, schema).arguments == {"n": 12, "x": 1.5}
