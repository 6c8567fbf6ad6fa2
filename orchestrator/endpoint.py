"""The seam between routing and an MCP: `call(tool, arguments) -> envelope`.

`DirectEndpoint` talks to a supervised MCP and maps every failure to an envelope code; the Guardian
decorator (`orchestrator.guardian.GuardedEndpoint`) wraps one of these with the same interface.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from orchestrator.errors import McpCallError, McpTimeout, McpUnavailable
from orchestrator.mcp_client import ManagedMcp
from orchestrator.normalize import to_envelope
from shared.envelope import ErrorCode, fail

log = logging.getLogger(__name__)


class ToolEndpoint(Protocol):
    async def call(self, tool: str, arguments: dict[str, Any], *, exposed: str) -> dict[str, Any]: ...


def failed_call(exc: McpCallError) -> dict[str, Any]:
    """The envelope for a call that did not complete: the one mapping of the hub's call errors to codes."""
    if isinstance(exc, McpUnavailable):
        return fail(ErrorCode.MCP_UNAVAILABLE, str(exc))
    if isinstance(exc, McpTimeout):
        return fail(ErrorCode.TIMEOUT, str(exc))
    return fail(ErrorCode.TOOL_ERROR, str(exc))  # the MCP answered, refusing the call (a protocol error)


class DirectEndpoint:
    def __init__(self, mcp: ManagedMcp) -> None:
        self.mcp = mcp

    async def call(self, tool: str, arguments: dict[str, Any], *, exposed: str) -> dict[str, Any]:
        try:
            result = await self.mcp.call_tool(tool, arguments)
        except McpCallError as exc:
            return failed_call(exc)
        return to_envelope(exposed, result)
