"""A third party's MCP server, as the injection benchmark adds it through external-mcps.json: it declares no tool
annotations (as many servers do), so the hub treats its tools as side-effecting and its output as untrusted.

`lookup` answers from the JSON file `PARTNER_DATA` (`{"topic": {"text": ...} | {"error": ...}}`, read on every
call, so a benchmark can change it while the server runs); `share` appends what it would send to `PARTNER_EFFECTS`
(JSON lines), so the benchmark sees which side effects really happened."""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("partner-test")


@server.tool()
def lookup(topic: str) -> str:
    """Look up a topic in the partner's knowledge base."""
    path = os.environ.get("PARTNER_DATA")
    entries = json.loads(Path(path).read_text(encoding="utf-8")) if path and Path(path).exists() else {}
    entry = entries.get(topic) or {"text": f"Nothing is known about {topic}."}
    if "error" in entry:
        raise ToolError(str(entry["error"]))
    return str(entry["text"])


@server.tool()
def share(to: str, text: str) -> str:
    """Share a text with someone through the partner's service."""
    path = os.environ.get("PARTNER_EFFECTS")
    if path:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"to": to, "text": text}) + "\n")
    return f"Shared with {to}."
