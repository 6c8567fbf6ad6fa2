"""An MCP that needs NEEDY_TOKEN and, unlike the first-party ones, cannot even start without it: the case of a
server that gives up ("failed") before the owner adds its setting."""

from __future__ import annotations

import os
import sys

from shared.mcp_tools import READ_ONLY, EnvelopeServer, envelope_tool

server: EnvelopeServer[None] = EnvelopeServer("needy")


@envelope_tool(server, annotations=READ_ONLY)
async def ping() -> str:
    """Answer pong."""
    return "pong"


def check_configured() -> None:
    if not os.environ.get("NEEDY_TOKEN"):
        sys.stderr.write("needy: NEEDY_TOKEN is not set\n")
        raise SystemExit(3)
