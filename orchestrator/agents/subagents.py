"""What a subagent is, decided without I/O: its id, its definition and the tools it may use.

A subagent is a temporary Thinker that runs one task for its parent agent (the native `spawn_subagent` tool).
It inherits the parent's model settings, and may use only the tools both the parent and the call allow; it may
never spawn subagents itself. The hub runs and removes it (see `AgentManager.run_subagent`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from orchestrator.policy import tool_allowed
from shared.agents import MAX_TURN_SECONDS, AgentDefinition

MAX_SUBAGENTS_PER_PARENT = 5
SUBAGENT_TOOL = "spawn_subagent"
_ID_PREFIX_CHARS = 50
"""Agent ids have at most 64 characters: the parent's part is cut so that `-sub-<n>` always fits."""

SUBAGENT_PROMPT = (
    "You are a subagent of the agent {parent!r}: a temporary helper started for one task. Work on your own with "
    "the tools you have, then reply with the result the task asks for, complete and concise; nobody can answer "
    "questions you ask."
)


@dataclass(frozen=True)
class SubagentRequest:
    """The arguments of one `spawn_subagent` call."""

    task: str
    allowed_tools: tuple[str, ...] = ()
    denied_tools: tuple[str, ...] = ()
    timeout_minutes: int = 5
    model: str | None = None


def subagent_id(parent_id: str, number: int) -> str:
    return f"{parent_id[:_ID_PREFIX_CHARS]}-sub-{number}"


def _provider(model: str) -> str:
    return model.split("/", 1)[0]


def subagent_tools(parent: AgentDefinition, request: SubagentRequest, listed: Iterable[str]) -> list[str]:
    """The tools (of those the hub lists now) that both the parent and the request allow; never spawn_subagent.

    Two sets of globs cannot be intersected into one set of globs, so the subagent gets the exact names: its
    tools are fixed when it starts, which is what a task of at most 30 minutes needs.
    """
    wanted = AgentDefinition(
        agentId="request", allowedTools=list(request.allowed_tools), deniedTools=list(request.denied_tools)
    )
    return sorted(
        name
        for name in set(listed)
        if name != SUBAGENT_TOOL and tool_allowed(parent, name) and tool_allowed(wanted, name)
    )


def subagent_definition(
    parent: AgentDefinition, agent_id: str, port: int, request: SubagentRequest, tools: Sequence[str]
) -> AgentDefinition:
    """The subagent's agents.json entry: the parent's model settings, the given tools, a task-minded prompt.

    Another model keeps the parent's `apiBase` only when it is from the same provider (an `openai/...` server
    is no place to send a `groq/...` model).
    """
    model = request.model or parent.model
    api_base = parent.apiBase if _provider(model) == _provider(parent.model) else None
    return AgentDefinition(
        agentId=agent_id,
        port=port,
        model=model,
        apiBase=api_base,
        temperature=parent.temperature,
        maxSteps=parent.maxSteps,
        turnTimeoutSeconds=min(request.timeout_minutes * 60, MAX_TURN_SECONDS),
        systemPrompt=SUBAGENT_PROMPT.format(parent=parent.agentId),
        # An empty allow-list means "everything": no tools at all is said with a deny-all glob instead.
        allowedTools=list(tools),
        deniedTools=[SUBAGENT_TOOL] if tools else ["*"],
        idleTimeoutMinutes=max(request.timeout_minutes, 1),
        costControls=parent.costControls,
        # The parent's limits, on the parent's ledger: spawning subagents is no way around a budget.
        budgets=parent.budgets.model_copy(update={"account": parent.budgets.account or parent.agentId}),
    )


def required_tools(request: SubagentRequest, tools: Sequence[str]) -> list[str] | None:
    """Exact tool names the caller listed (no globs): the subagent is offered exactly those. Else None, and the
    Thinker selects among its allowed tools by relevance as it does for a chat message."""
    if not request.allowed_tools or any(set("*?[") & set(pattern) for pattern in request.allowed_tools):
        return None
    chosen = [name for name in request.allowed_tools if name in set(tools)]
    return chosen or None


__all__ = [
    "MAX_SUBAGENTS_PER_PARENT",
    "SUBAGENT_TOOL",
    "SubagentRequest",
    "required_tools",
    "subagent_definition",
    "subagent_id",
    "subagent_tools",
]
