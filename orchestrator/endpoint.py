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


class DirectEndpoint:
    def __init__(self, mcp: ManagedMcp) -> None:
        self.mcp = mcp

    async def call(self, tool: str, arguments: dict[str, Any], *, exposed: str) -> dict[str, Any]:
        try:
            result = await self.mcp.call_tool(tool, arguments)
        except McpUnavailable as exc:
            return fail(ErrorCode.MCP_UNAVAILABLE, str(exc))
        except McpTimeout as exc:
            return fail(ErrorCode.TIMEOUT, str(exc))
        except McpCallError as exc:
            return fail(ErrorCode.TOOL_ERROR, str(exc))
        return to_envelope(exposed, result)
