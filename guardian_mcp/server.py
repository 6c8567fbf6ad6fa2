"""The Guardian MCP server: `scan_content` and `get_scan_log`, thin over `GuardianService`.

The service is built in the lifespan, from the environment of the moment, so every in-process test (and every
restart) sees its own settings. Importing this module loads neither litellm nor any model.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import Field

from guardian_mcp.judge import preload_litellm
from guardian_mcp.scanner import uses_judge
from guardian_mcp.service import GuardianService, ScanLog, ScanReport, build_service
from shared.mcp_tools import READ_ONLY, EnvelopeServer, envelope_tool


@asynccontextmanager
async def lifespan(_server: MCPServer[GuardianService]) -> AsyncIterator[GuardianService]:
    service = build_service()
    if uses_judge(service.scanner):
        preload_litellm()
    yield service


server: EnvelopeServer[GuardianService] = EnvelopeServer(
    "guardian",
    instructions="Security scanner: checks text and JSON content for prompt injection, jailbreaks and other threats.",
    lifespan=lifespan,
)

GuardianContext = Context[GuardianService, Any]


def _service(ctx: GuardianContext) -> GuardianService:
    return ctx.request_context.lifespan_context


@envelope_tool(server, annotations=READ_ONLY)
async def scan_content(
    ctx: GuardianContext,
    content: Annotated[
        str | dict[str, Any] | list[Any],
        Field(description="Text, or a JSON object/array: every non-empty string inside is scanned."),
    ],
    source: Annotated[str, Field(description="Where the content comes from, e.g. an MCP name.")] = "",
    context: Annotated[str, Field(description="Extra context for the scanner, e.g. 'tool input'.")] = "",
    layers: Annotated[
        Literal["all", "rules"],
        Field(description="`all`: the configured scanner (default); `rules`: the rule layer alone (fast, precise)."),
    ] = "all",
) -> ScanReport:
    """Scan content for prompt injection, jailbreaks, exfiltration, dangerous commands and other threats.

    Returns {safe, confidence, threats: [{path, type, snippet}], explanation, scan_id}. A text that cannot be
    scanned counts as unsafe (threat type scan_error).
    """
    return await _service(ctx).scan_content(content, source, context, layers)


@envelope_tool(server, annotations=READ_ONLY)
async def get_scan_log(
    ctx: GuardianContext,
    scan_id: Annotated[str | None, Field(description="Return only this scan.")] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="Most entries to return.")] = 50,
    threats_only: Annotated[bool, Field(description="Only scans that found threats (blocked or marked).")] = False,
) -> ScanLog:
    """Read Guardian's audit log, newest first. Entries hold hashes and verdicts, never the scanned content."""
    return _service(ctx).scan_log(scan_id, limit, threats_only)
