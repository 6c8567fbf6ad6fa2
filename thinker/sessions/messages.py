"""The canonical chat message: OpenAI's chat-completions format as plain dicts, which litellm takes as is.

    {"role": "user", "content": "What is on my calendar?"}
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "call_1", "type": "function",
                     "function": {"name": "gmail_list_events", "arguments": "{\\"days\\": 1}"}}]}
    {"role": "tool", "tool_call_id": "call_1", "name": "gmail_list_events", "content": "{\\"success\\": true, ...}"}
    {"role": "assistant", "content": "You have two meetings today."}

One TypedDict per role, joined in `ChatMessage`, so `message["role"] == "tool"` narrows the type. Session files
hold these dicts too (a turn's `messages`), and files can be damaged or edited by hand: `coerce_message` turns
an untrusted JSON value into a valid message or None, never an exception.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict


class FunctionCall(TypedDict):
    name: str
    arguments: str
    """The arguments as a JSON text (what the model produced; it may be invalid JSON)."""


class ToolCall(TypedDict):
    id: str
    type: Literal["function"]
    function: FunctionCall


class SystemMessage(TypedDict):
    role: Literal["system"]
    content: str


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: str | None
    tool_calls: NotRequired[list[ToolCall]]


class ToolMessage(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str
    name: NotRequired[str]


ChatMessage: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolMessage


def system_message(content: str) -> SystemMessage:
    return {"role": "system", "content": content}


def user_message(content: str) -> UserMessage:
    return {"role": "user", "content": content}


def assistant_message(content: str | None, tool_calls: list[ToolCall] | None = None) -> AssistantMessage:
    message: AssistantMessage = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def tool_call(call_id: str, name: str, arguments: Mapping[str, Any] | str) -> ToolCall:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def tool_message(call_id: str, content: str, name: str | None = None) -> ToolMessage:
    message: ToolMessage = {"role": "tool", "tool_call_id": call_id, "content": content}
    if name:
        message["name"] = name
    return message


def text_of(message: ChatMessage) -> str:
    """The message's text content ("" when it has none, e.g. an assistant message that only calls tools)."""
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _coerce_tool_call(value: object) -> ToolCall | None:
    if not isinstance(value, Mapping):
        return None
    call_id, function = value.get("id"), value.get("function")
    if not isinstance(call_id, str) or not call_id or not isinstance(function, Mapping):
        return None
    name, arguments = function.get("name"), function.get("arguments", "{}")
    if not isinstance(name, str) or not name:
        return None
    if not isinstance(arguments, str):
        # Some writers keep arguments as an object; the API wants the JSON text.
        try:
            arguments = json.dumps(arguments, ensure_ascii=False)
        except (TypeError, ValueError):
            return None
    return tool_call(call_id, name, arguments)


def _content_text(value: object) -> str | None:
    """Text content; a list of parts (the multi-part form) is joined, anything else is refused."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [part.get("text") for part in value if isinstance(part, Mapping)]
        return "".join(part for part in parts if isinstance(part, str))
    return None


def coerce_message(value: object) -> ChatMessage | None:
    """A valid message built from an untrusted JSON value, or None when it cannot be one.

    Unknown keys are dropped; a tool call without an id or name is dropped from its message; an assistant
    message left with neither text nor tool calls is refused.
    """
    if not isinstance(value, Mapping):
        return None
    role = value.get("role")
    content = _content_text(value.get("content"))
    if role in ("system", "user"):
        if not isinstance(content, str):
            return None
        return system_message(content) if role == "system" else user_message(content)
    if role == "assistant":
        raw_calls = value.get("tool_calls")
        coerced = [_coerce_tool_call(call) for call in raw_calls] if isinstance(raw_calls, list) else []
        calls = [call for call in coerced if call is not None]
        if not content and not calls:
            return None
        return assistant_message(content, calls or None)
    if role == "tool":
        call_id, name = value.get("tool_call_id"), value.get("name")
        if not isinstance(call_id, str) or not call_id:
            return None
        return tool_message(call_id, content or "", name if isinstance(name, str) else None)
    return None
