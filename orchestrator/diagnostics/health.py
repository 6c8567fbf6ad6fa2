"""`system_health_check`: the diagnostics checks as a hub-native tool, for agents and `POST /tools/call`.

The same registry as `/diagnose`, `GET /diagnose` and `annabelle doctor` (no second set of checks): `internal`
runs every check about the hub and its own MCPs, `external` the checks about external-mcps.json's servers, `all`
both. The answer adds each MCP's state, so a caller sees which server is down and why.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from orchestrator.callers import Caller
from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics import checks as _checks  # noqa: F401  (the checks register themselves)
from orchestrator.diagnostics.periodic import diagnose_json
from orchestrator.diagnostics.registry import CHECKS, run_checks
from orchestrator.native_tools import READS_HUB_STATE, NativeHost, native_tool
from shared.envelope import ErrorCode
from shared.mcp_tools import ToolFailure

Scope = Literal["all", "internal", "external"]


class HealthParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scope: Scope = Field(
        default="all",
        description="internal: the hub, its own MCPs, agents, data; external: the servers of external-mcps.json.",
    )


def _mcps(status: dict[str, Any], scope: Scope) -> dict[str, dict[str, Any]]:
    wanted = {"all": (False, True), "internal": (False,), "external": (True,)}[scope]
    return {
        name: {
            "available": mcp.get("available"),
            "state": mcp.get("state"),
            "toolCount": mcp.get("toolCount"),
            "restarts": mcp.get("restarts"),
            "lastError": mcp.get("lastError"),
            "notStarted": mcp.get("notStarted"),
            "external": bool(mcp.get("external")),
        }
        for name, mcp in sorted(status.get("mcps", {}).items())
        if bool(mcp.get("external")) in wanted
    }


@native_tool("system_health_check", HealthParams, effects=READS_HUB_STATE)
async def system_health_check(hub: NativeHost, params: HealthParams, caller: Caller) -> dict[str, Any]:
    """Check the system's health: each MCP server (up or down, and why) and every diagnostics check, worst first,
    each with how to fix it. scope: all, internal (the hub and its own MCPs) or external (external MCP servers)."""
    if hub.agents is None or hub.halt is None:
        raise ToolFailure("The hub is still starting; retry in a moment.", code=ErrorCode.MCP_UNAVAILABLE)
    context = CommandContext(
        hub,  # type: ignore[arg-type]  # the checks read only what NativeHost offers of the hub
        hub.agents,
        hub.halt,
        hub.settings,
        "tool",
        "",
        command="system_health_check",
    )
    table = [item for item in CHECKS.values() if params.scope == "all" or item.scope == params.scope]
    report = diagnose_json(await run_checks(context, table))
    return {
        "scope": params.scope,
        "healthy": report["counts"]["critical"] == 0 and report["counts"]["warning"] == 0,
        **report,
        "mcps": _mcps(hub.status(), params.scope),
    }
