from __future__ import annotations

import os
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context

server = MCPServer("external-test")


@server.tool()
def greet(name: str) -> str:
    """Greet someone (the greeting comes from the GREETING variable)."""
    return f"{os.environ.get('GREETING', 'Hello')}, {name}!"


@server.tool()
def remove_item(item: str) -> str:
    """A destructive tool: hidden unless the entry sets allowDestructiveTools."""
    return f"removed {item}"


@server.tool()
def authorization(ctx: Context[Any, Any]) -> str:
    """The Authorization header of the HTTP request that called this tool ('' over stdio)."""
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    return headers.get("authorization", "") if headers is not None else ""


if os.environ.get("EXTRA_TOOLS") == "1":

    @server.tool()
    def shout(text: str) -> str:
        """Upper-case the text.

        Spaces and punctuation stay as they are (a description of several lines, as many servers write)."""
        return text.upper()
