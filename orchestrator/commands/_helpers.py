"""Small pieces several commands share: argument parsing, Guardian calls, envelope unwrapping, formatting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orchestrator.commands.registry import CommandError, usage_error
from orchestrator.errors import McpCallError
from orchestrator.normalize import to_envelope
from shared.envelope import ErrorCode, fail

if TYPE_CHECKING:
    from orchestrator.hub import Hub


def parse_count(args: str, *, command: str, default: int, maximum: int) -> int:
    """`/logs 20` → 20; no argument → `default`; above `maximum` → `maximum`; anything else is a usage error."""
    text = args.strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise usage_error(command, f"'{text}' is not a positive number.")
    return min(int(text), maximum)


async def guardian_call(hub: Hub, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a Guardian tool. Guardian is not routed (no agent may read or steer it), so this goes to its MCP
    directly, the way the scan gate does; the answer is the usual envelope."""
    guardian = hub.gate.guardian
    if guardian is None:
        return fail(ErrorCode.MCP_UNAVAILABLE, "Guardian is not running (disabled or not discovered).")
    try:
        result = await guardian.call_tool(tool, arguments)
    except McpCallError as exc:
        return fail(ErrorCode.MCP_UNAVAILABLE, str(exc))
    return to_envelope(f"guardian_{tool}", result)


def data_of(envelope: dict[str, Any], what: str) -> Any:
    """The envelope's `data`, or a CommandError saying which source failed and why."""
    if not envelope.get("success"):
        raise CommandError(f"Could not read {what}: {envelope.get('error') or 'no reason given'}")
    return envelope.get("data")
