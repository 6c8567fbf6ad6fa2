"""A `CommandContext` for slash-command unit tests: a scripted hub, agents and Guardian, a real HaltState.

    ctx = fake_context(tmp_path, tools={"memory_list_skills": {"skills": [...]}})
    reply = await run_command("/cron", ctx)
    assert ctx.hub.calls == [("memory_list_skills", {"agent_id": "*", "detail": "full"})]

A tool's script is the `data` of a successful envelope, a full envelope (a dict with `success`), or a function
of the arguments returning either. Unscripted tools answer UNKNOWN_TOOL, like the hub.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from mcp.types import CallToolResult, TextContent

from orchestrator.callers import Caller
from orchestrator.commands.registry import CommandContext
from orchestrator.halt import HaltState
from orchestrator.settings import OrchestratorSettings
from shared.agents import AgentDefinition, AgentsConfig
from shared.contracts.thinker_api import Acknowledgement, CostStatus
from shared.envelope import ErrorCode, fail, ok
from shared.settings import load_settings

Script = Any | Callable[[dict[str, Any]], Any]


def envelope_of(script: Script, arguments: dict[str, Any]) -> dict[str, Any]:
    value = script(arguments) if callable(script) else script
    if isinstance(value, dict) and isinstance(value.get("success"), bool):
        return value
    return ok(value)


def hub_status(**overrides: Any) -> dict[str, Any]:
    status: dict[str, Any] = {
        "status": "ready",
        "version": "1.2.3",
        "uptimeSeconds": 3725.0,
        "mcps": {
            "guardian": {"state": "ready", "available": True, "toolCount": 2, "restarts": 0, "role": "guardian"},
            "memory": {"state": "ready", "available": True, "toolCount": 31, "restarts": 0, "role": None},
            "filer": {"state": "ready", "available": True, "toolCount": 13, "restarts": 1, "role": None},
        },
        "disabledMcps": [],
        "problems": [],
        "toolCount": 48,
        "hiddenTools": [],
        "guardian": {"available": True, "failMode": "closed", "scans": 12, "blocked": 2, "unavailable": 0},
    }
    status.update(overrides)
    return status


class FakeGuardian:
    def __init__(self, tools: dict[str, Script]) -> None:
        self.tools = tools
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        self.calls.append((tool, arguments))
        script = self.tools.get(tool)
        envelope = envelope_of(script, arguments) if script is not None else fail(ErrorCode.TOOL_ERROR, "unscripted")
        return CallToolResult(content=[TextContent(type="text", text=json.dumps(envelope))])


@dataclass
class FakeGate:
    guardian: FakeGuardian | None


@dataclass
class FakeHub:
    tools: dict[str, Script] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=hub_status)
    gate: FakeGate = field(default_factory=lambda: FakeGate(FakeGuardian({})))
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    callers: list[Caller] = field(default_factory=list)
    jobs: Any = None
    """A `JobRunner` (or a stand-in with `started` and `store`) for the job checks; None: no jobs here."""

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
        self.callers.append(caller)
        guardian = self.gate.guardian
        if name.startswith("guardian_") and caller.privileged:
            # Guardian's tools are the hub's privileged routes: only its own features reach them.
            if guardian is None:
                return fail(ErrorCode.MCP_UNAVAILABLE, "Guardian is not running.")
            result = await guardian.call_tool(name.removeprefix("guardian_"), arguments)
            return json.loads(result.content[0].text)  # type: ignore[union-attr]
        self.calls.append((name, arguments))
        script = self.tools.get(name)
        if script is None:
            return fail(ErrorCode.UNKNOWN_TOOL, f"Unknown tool: {name}.")
        return envelope_of(script, arguments)

    def status(self) -> dict[str, Any]:
        return self.state

    def mcps_metadata(self) -> dict[str, dict[str, Any]]:
        return {
            name: {"label": name.capitalize(), "toolCount": mcp["toolCount"], "available": mcp["available"]}
            for name, mcp in self.state["mcps"].items()
            if mcp.get("role") != "guardian"
        }

    def tool_listing(self, agent: Any = None) -> list[dict[str, Any]]:
        return []


@dataclass
class FakeAgents:
    config: AgentsConfig = field(default_factory=AgentsConfig.default)
    states: list[dict[str, Any]] = field(
        default_factory=lambda: [
            {"agentId": "annabelle", "enabled": True, "state": "running", "model": "ollama_chat/qwen2.5:7b"}
        ]
    )
    agents: dict[str, Any] = field(default_factory=dict)
    """Runtimes by agent id (`SimpleNamespace(state=...)` will do), for what asks each running Thinker."""
    cost_statuses: dict[str, CostStatus] = field(default_factory=dict)
    cleared: list[tuple[str, str]] = field(default_factory=list)
    clear_answer: Acknowledgement = field(
        default_factory=lambda: Acknowledgement(success=True, message="Session x cleared.")
    )

    def describe(self) -> list[dict[str, Any]]:
        return self.states

    async def cost_status(self, runtime: Any) -> CostStatus | None:
        return self.cost_statuses.get(runtime.agent_id)

    async def resume_paused(self, reset_window: bool = False) -> list[str]:
        paused = [str(state["agentId"]) for state in self.states if state.get("paused")]
        for state in self.states:
            state["paused"] = False
        return paused

    def resolve(self, channel: str, chat_id: str) -> str:
        return self.config.agents[0].agentId

    async def clear_session(self, agent_id: str, chat_id: str) -> Acknowledgement:
        self.cleared.append((agent_id, chat_id))
        return self.clear_answer


def fake_context(
    home: Path,
    *,
    tools: dict[str, Script] | None = None,
    guardian: dict[str, Script] | None = None,
    status: dict[str, Any] | None = None,
    agents: list[AgentDefinition] | None = None,
    channel: str = "telegram",
    chat_id: str = "42",
) -> CommandContext:
    hub = FakeHub(
        tools=dict(tools or {}),
        state=status or hub_status(),
        gate=FakeGate(FakeGuardian(guardian) if guardian is not None else FakeGuardian({})),
    )
    fake_agents = FakeAgents(config=AgentsConfig(agents=agents) if agents else AgentsConfig.default())
    settings = load_settings(OrchestratorSettings, annabelle_home=home)
    halt = HaltState(home / "data" / "halt.json")
    return CommandContext(cast(Any, hub), cast(Any, fake_agents), halt, settings, channel, chat_id)
