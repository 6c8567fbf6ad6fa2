from __future__ import annotations

import os

from mcp.server import MCPServer

server = MCPServer("external-test")


@server.tool()
def greet(name: str) -> str:
    """Greet someone (the greeting comes from the GREETING variable)."""
    return f"{os.environ.get('GREETING', 'Hello')}, {name}!"


@server.tool()
def remove_item(item: str) -> str:
    """A destructive tool: hidden unless the entry sets allowDestructiveTools."""
    return f"removed {item}"


if os.environ.get("EXTRA_TOOLS") == "1":

    @server.tool()
    def shout(text: str) -> str:
        """Upper-case the text."""
        return text.upper()
