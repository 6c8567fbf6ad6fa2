"""The canonical chat messages, and turning untrusted JSON from a session file into them."""

from __future__ import annotations

from typing import Any

import pytest

import thinker.sessions
from thinker.sessions.messages import (
    assistant_message,
    coerce_message,
    text_of,
    tool_call,
    tool_message,
    user_message,
)

CALL = {"id": "c1", "type": "function", "function": {"name": "memory_store_fact", "arguments": '{"fact": "x"}'}}


@pytest.mark.parametrize(
    "message",
    [
        {"role": "system", "content": "be kind"},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "assistant", "content": "let me check", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"success": true}', "name": "memory_store_fact"},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
    ],
)
def test_a_valid_message_comes_back_unchanged(message: dict[str, Any]) -> None:
    assert coerce_message(message) == message


@pytest.mark.parametrize(
    "value",
    [
        None,
        "user: hi",
        ["role", "user"],
        {"role": "wizard", "content": "x"},
        {"content": "no role"},
        {"role": "user"},
        {"role": "user", "content": 42},
        {"role": "assistant", "content": None},
        {"role": "assistant", "content": "", "tool_calls": []},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]},
        {"role": "tool", "content": "no call id"},
        {"role": "tool", "tool_call_id": "", "content": "x"},
    ],
)
def test_a_value_that_cannot_be_a_message_is_refused(value: object) -> None:
    assert coerce_message(value) is None


def test_unknown_keys_are_dropped_and_tool_call_arguments_become_json_text() -> None:
    raw = {
        "role": "assistant",
        "content": None,
        "providerOptions": {"x": 1},
        "tool_calls": [
            {"id": "c1", "function": {"name": "t", "arguments": {"a": 1}}},
            {"id": "", "function": {"name": "dropped"}},
            "garbage",
        ],
    }
    assert coerce_message(raw) == assistant_message(None, [tool_call("c1", "t", '{"a": 1}')])


def test_a_tool_call_without_arguments_gets_an_empty_object() -> None:
    raw = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {"name": "t"}}]}
    assert coerce_message(raw) == assistant_message(None, [tool_call("c1", "t", "{}")])


def test_multi_part_content_is_joined_into_text() -> None:
    raw = {"role": "user", "content": [{"type": "text", "text": "Hello "}, {"type": "image"}, {"text": "there"}]}
    assert coerce_message(raw) == user_message("Hello there")


def test_a_tool_result_with_a_non_text_name_keeps_the_result_without_the_name() -> None:
    assert coerce_message({"role": "tool", "tool_call_id": "c1", "content": "ok", "name": 5}) == tool_message(
        "c1", "ok"
    )


def test_text_of_is_empty_for_a_message_with_only_tool_calls() -> None:
    assert text_of(assistant_message(None, [tool_call("c1", "t", {})])) == ""
    assert text_of(user_message("hi")) == "hi"


def test_the_package_exports_exactly_its_public_names() -> None:
    assert sorted(thinker.sessions.__all__) == [
        "ChatMessage",
        "Compaction",
        "CompactionConfig",
        "InvalidChatId",
        "Session",
        "SessionError",
        "SessionStore",
        "SessionWriteError",
        "TextCompletion",
        "TokenUsage",
        "Turn",
        "UtilityModelError",
        "build_history",
        "compact",
        "make_turn",
        "repair_history",
        "select_relevant_history",
        "should_compact",
        "truncate_tool_results",
    ]
    assert all(hasattr(thinker.sessions, name) for name in thinker.sessions.__all__)


def test_tool_call_arguments_that_cannot_be_json_drop_the_call() -> None:
    raw = {
        "role": "assistant",
        "content": "hi",
        "tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": {1, 2}}}],
    }
    assert coerce_message(raw) == assistant_message("hi")
