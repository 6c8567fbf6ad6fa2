"""The hub's own tools (unprefixed): a name → tool registry, each with a pydantic parameter model.

A native tool is declared with `@native_tool(name, Params, effects=...)` on an async function
`(hub, params, caller) -> data`, where `hub` is what the tools may use of the hub (`NativeHost`) and `caller` who
calls (orchestrator/callers.py: the owner, an agent in a turn, a hub feature); its input schema comes from the
model, its description from the docstring, its MCP annotations from `effects`. Tools of other parts of the hub
register the same way from their own modules (`orchestrator.jobs.tools`, `orchestrator.diagnostics.health`),
imported by the app.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from orchestrator.agents import AgentError
from orchestrator.agents.subagents import SubagentRequest
from orchestrator.callers import Caller
from orchestrator.router import ToolRouter
from orchestrator.turns import TurnLedger
from shared.agents import AgentDefinition
from shared.envelope import ErrorCode
from shared.manifest import ToolEffects
from shared.mcp_tools import InvalidArguments, ToolFailure, describe_validation

if TYPE_CHECKING:
    from orchestrator.agents import AgentManager
    from orchestrator.halt import HaltState
    from orchestrator.jobs.runner import JobRunner
    from orchestrator.settings import OrchestratorSettings


class NativeHost(Protocol):
    """What the hub's own tools use of it (`orchestrator.hub.Hub` is one)."""

    router: ToolRouter
    agents: AgentManager | None
    settings: OrchestratorSettings
    jobs: JobRunner | None
    halt: HaltState | None
    turns: TurnLedger

    def status(self) -> dict[str, Any]: ...

    def tool_listing(self, agent: AgentDefinition | None = None) -> list[dict[str, Any]]: ...


Handler = Callable[[NativeHost, Any, Caller], Awaitable[Any]]


@dataclass(frozen=True, eq=False)
class NativeTool:
    name: str
    description: str
    params: type[BaseModel]
    handler: Handler
    effects: ToolEffects

    @functools.cached_property
    def listing(self) -> dict[str, Any]:
        # Building a JSON schema takes a fraction of a millisecond: once per process is enough.
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.params.model_json_schema(),
            "annotations": self.effects.model_dump(),
        }


NATIVE_TOOLS: dict[str, NativeTool] = {}


@dataclass(frozen=True)
class Untrusted:
    """A native tool's answer that carries content nobody vouches for (a job step's mail or web page): the hub
    marks the envelope `untrusted` and taints the caller's turn, as for an MCP whose output is untrusted."""

    data: Any


READS_HUB_STATE = ToolEffects(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


def native_tool(name: str, params: type[BaseModel], *, effects: ToolEffects) -> Callable[[Handler], Handler]:
    """Register a hub tool; `effects` are its MCP annotations, as every tool of an MCP declares them."""

    def register(handler: Handler) -> Handler:
        description = "[Annabelle | System] " + inspect.cleandoc(handler.__doc__ or name)
        NATIVE_TOOLS[name] = NativeTool(name, description, params, handler, effects)
        return handler

    return register


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CatalogParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mcp_name: str | None = Field(default=None, description="Only this MCP's tools, with one-line descriptions.")


def first_sentence(text: str) -> str:
    text = text.split("] ", 1)[-1].strip() if text.startswith("[") else text.strip()
    end = min((i for i in (text.find(". "), text.find("\n")) if i >= 0), default=-1)
    return text[: end + 1].strip() if end >= 0 else text


@native_tool("get_status", NoParams, effects=READS_HUB_STATE)
async def get_status(hub: NativeHost, _: NoParams, caller: Caller) -> dict[str, Any]:
    """Status of the hub: uptime, each MCP server (up, restarting or down) and tool counts."""
    return hub.status()


@native_tool("get_tool_catalog", CatalogParams, effects=READS_HUB_STATE)
async def get_tool_catalog(hub: NativeHost, params: CatalogParams, caller: Caller) -> dict[str, Any]:
    """List the available tools by MCP server: counts, or one MCP's tool names with short descriptions.

    Use it to find exact tool names before creating a skill.
    """
    listing = hub.tool_listing()
    by_mcp: dict[str, list[dict[str, str]]] = {}
    for tool in listing:
        route = hub.router.resolve(tool["name"])
        mcp = route.mcp if route is not None else "annabelle"
        by_mcp.setdefault(mcp, []).append({"name": tool["name"], "description": first_sentence(tool["description"])})
    if params.mcp_name is None:
        counts = {mcp: len(tools) for mcp, tools in sorted(by_mcp.items())}
        return {"summary": f"{len(listing)} tools across {len(counts)} MCP servers", "servers": counts}
    if params.mcp_name not in by_mcp:
        known = ", ".join(sorted(by_mcp))
        raise InvalidArguments(f"No MCP server named {params.mcp_name!r}; known servers: {known}.")
    tools = by_mcp[params.mcp_name]
    return {"summary": f"{len(tools)} tools in {params.mcp_name}", "catalog": {params.mcp_name: tools}}


class SubagentParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, max_length=20_000, description="What the subagent must do, with all it needs.")
    allowedTools: list[str] = Field(
        default_factory=list,
        max_length=100,
        description="Tool names or globs (e.g. searcher_*) it may use; default: every tool you may use.",
    )
    deniedTools: list[str] = Field(
        default_factory=list, max_length=100, description="Tool names or globs it may not use."
    )
    timeoutMinutes: int = Field(default=5, ge=1, le=30, description="Stop it after this many minutes.")
    model: str | None = Field(default=None, description="litellm model string (provider/model); default yours.")


# A subagent may use any tool its parent may: it can do whatever they can.
@native_tool("spawn_subagent", SubagentParams, effects=ToolEffects())
async def spawn_subagent(hub: NativeHost, params: SubagentParams, caller: Caller) -> dict[str, Any]:
    """Run a task in a temporary helper agent with its own limited tools and return its answer.

    Use it for a self-contained piece of work (research, a batch of lookups) that would clutter this conversation.
    The helper may use only tools you may use, cannot start helpers itself, and is stopped when it has answered
    or its time is up; at most 5 run at once.
    """
    agents = hub.agents
    agent = caller.agent
    if agents is None:
        raise ToolFailure(
            "Subagents need the hub's agent manager, which is not running.", code=ErrorCode.MCP_UNAVAILABLE
        )
    if agent is not None and agent.agentId in agents.subagents:
        raise ToolFailure("A subagent cannot start subagents of its own.", code=ErrorCode.NOT_ALLOWED)
    try:
        parent_id = agent.agentId if agent is not None else agents.default_agent_id()
        parent = agents.runtime(parent_id).definition
    except (AgentError, LookupError) as exc:
        raise ToolFailure(str(exc)) from None
    request = SubagentRequest(
        task=params.task,
        allowed_tools=tuple(params.allowedTools),
        denied_tools=tuple(params.deniedTools),
        timeout_minutes=params.timeoutMinutes,
        model=params.model,
    )
    tools = [tool["name"] for tool in hub.tool_listing(parent)]
    try:
        # An agent's subagent works in its parent's turn; the owner's (or a hub feature's) starts a clean one.
        turn = caller.turn if caller.kind == "agent" else hub.turns.mint(parent_id, said=[params.task])
        subagent, answer = await agents.run_subagent(parent_id, request, tools, turn)
    except AgentError as exc:
        raise ToolFailure(str(exc), code=exc.code) from None
    except ValidationError as exc:  # the subagent's definition: a model string without a provider, say
        raise InvalidArguments(f"spawn_subagent: {describe_validation(exc)}") from None
    if not answer.success:
        partial = f" Its partial answer: {answer.response}" if answer.response else ""
        raise ToolFailure(f"The subagent {subagent} could not finish: {answer.error or 'no reason given'}.{partial}")
    return {
        "agentId": subagent,
        "response": answer.response,
        "toolsUsed": answer.toolsUsed,
        "totalSteps": answer.totalSteps,
    }
