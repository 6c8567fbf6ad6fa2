"""The hub's own tools (unprefixed): a name → tool registry, each with a pydantic parameter model.

A native tool is declared with `@native_tool(name, Params, annotations=...)` on an async function
`(hub, params, caller) -> data`,
where `hub` is what the tools may use of the hub (`NativeHost`) and `caller` the calling agent's definition (None
for the master token and the hub's own features); its input schema comes from the model, its description from the
docstring, its MCP annotations (read-only or not) from the decorator. Tools of other parts of the hub register
the same way from their own modules (`orchestrator.jobs.tools`, `orchestrator.diagnostics.health`), imported by
the app.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from orchestrator.agents import AgentError
from orchestrator.agents.subagents import SubagentRequest
from orchestrator.router import ToolRouter
from shared.agents import AgentDefinition
from shared.envelope import ErrorCode
from shared.mcp_tools import READ_ONLY, InvalidArguments, ToolFailure, describe_validation, effects

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

    def status(self) -> dict[str, Any]: ...

    def tool_listing(self, agent: AgentDefinition | None = None) -> list[dict[str, Any]]: ...


Handler = Callable[[NativeHost, Any, AgentDefinition | None], Awaitable[Any]]


@dataclass(frozen=True, eq=False)
class NativeTool:
    name: str
    description: str
    params: type[BaseModel]
    handler: Handler
    annotations: ToolAnnotations

    @functools.cached_property
    def listing(self) -> dict[str, Any]:
        # Building a JSON schema takes a fraction of a millisecond: once per process is enough.
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.params.model_json_schema(),
            "annotations": self.annotations.model_dump(by_alias=True, exclude_none=True),
        }


NATIVE_TOOLS: dict[str, NativeTool] = {}


def native_tool(name: str, params: type[BaseModel], *, annotations: ToolAnnotations) -> Callable[[Handler], Handler]:
    """Register `handler` as the hub's tool `name`; `annotations` say what calling it can change (as an MCP
    tool's do: `READ_ONLY`, or `effects(...)` from `shared.mcp_tools`)."""

    def register(handler: Handler) -> Handler:
        description = "[Annabelle | System] " + inspect.cleandoc(handler.__doc__ or name)
        NATIVE_TOOLS[name] = NativeTool(name, description, params, handler, annotations)
        return handler

    return register


SPAWNS_AGENT = effects(read_only=False, open_world=True)
"""Starts a helper agent that may use any tool its parent may: its effects are those tools'."""


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CatalogParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mcp_name: str | None = Field(default=None, description="Only this MCP's tools, with one-line descriptions.")


def first_sentence(text: str) -> str:
    text = text.split("] ", 1)[-1].strip() if text.startswith("[") else text.strip()
    end = min((i for i in (text.find(". "), text.find("\n")) if i >= 0), default=-1)
    return text[: end + 1].strip() if end >= 0 else text


@native_tool("get_status", NoParams, annotations=READ_ONLY)
async def get_status(hub: NativeHost, _: NoParams, caller: AgentDefinition | None) -> dict[str, Any]:
    """Status of the hub: uptime, each MCP server (up, restarting or down) and tool counts."""
    return hub.status()


@native_tool("get_tool_catalog", CatalogParams, annotations=READ_ONLY)
async def get_tool_catalog(hub: NativeHost, params: CatalogParams, caller: AgentDefinition | None) -> dict[str, Any]:
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


@native_tool("spawn_subagent", SubagentParams, annotations=SPAWNS_AGENT)
async def spawn_subagent(hub: NativeHost, params: SubagentParams, caller: AgentDefinition | None) -> dict[str, Any]:
    """Run a task in a temporary helper agent with its own limited tools and return its answer.

    Use it for a self-contained piece of work (research, a batch of lookups) that would clutter this conversation.
    The helper may use only tools you may use, cannot start helpers itself, and is stopped when it has answered
    or its time is up; at most 5 run at once.
    """
    agents = hub.agents
    if agents is None:
        raise ToolFailure(
            "Subagents need the hub's agent manager, which is not running.", code=ErrorCode.MCP_UNAVAILABLE
        )
    if caller is not None and caller.agentId in agents.subagents:
        raise ToolFailure("A subagent cannot start subagents of its own.", code=ErrorCode.NOT_ALLOWED)
    try:
        parent_id = caller.agentId if caller is not None else agents.default_agent_id()
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
        subagent, answer = await agents.run_subagent(parent_id, request, tools)
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
