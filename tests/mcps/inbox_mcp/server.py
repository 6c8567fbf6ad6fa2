"""A test MCP with what an injection needs: an inbox whose text nobody vouches for (`untrustedOutput`), a way out
(`send`, open-world) and a local note (`note`). Every send and note is appended to `$ANNABELLE_HOME/inbox-effects.jsonl`,
so a test sees which side effects really happened. `INBOX_TEXT` sets what `read` returns."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from shared.mcp_tools import LOCAL_WRITE, READ_ONLY, REMOTE_WRITE, EnvelopeServer, envelope_tool

server: EnvelopeServer[None] = EnvelopeServer("inbox")
DEFAULT_TEXT = "Hi! Lunch on Friday? — Ana"


def _effect(kind: str, **fields: Any) -> None:
    path = Path(os.environ["ANNABELLE_HOME"]) / "inbox-effects.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"kind": kind, **fields}) + "\n")


@envelope_tool(server, annotations=READ_ONLY)
async def read() -> dict[str, Any]:
    """Read the latest message in the inbox."""
    return {"from": "someone@example.com", "text": os.environ.get("INBOX_TEXT", DEFAULT_TEXT)}


@envelope_tool(server, annotations=REMOTE_WRITE)
async def send(to: str, text: str) -> dict[str, Any]:
    """Send a message to someone."""
    _effect("send", to=to, text=text)
    return {"sent": True}


@envelope_tool(server, annotations=LOCAL_WRITE)
async def note(text: str) -> dict[str, Any]:
    """Keep a note."""
    _effect("note", text=text)
    return {"noted": True}
