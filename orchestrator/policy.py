"""Who may call which tool, and which agent answers which chat. Pure functions, no I/O."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from shared.agents import AgentDefinition, Binding


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


def tool_allowed(agent: AgentDefinition | None, tool: str) -> bool:
    """`None` is the master token: everything. An agent: its `allowedTools` globs (empty = all), minus `deniedTools`."""
    if agent is None:
        return True
    if agent.allowedTools and not _matches(tool, agent.allowedTools):
        return False
    return not _matches(tool, agent.deniedTools)


def resolve_agent(bindings: Sequence[Binding], agents: Sequence[AgentDefinition], channel: str, chat_id: str) -> str:
    """Binding order: exact (channel, chat) → (channel, any chat) → (any channel) → the first enabled agent."""
    enabled = {agent.agentId for agent in agents if agent.enabled}
    for wanted in (
        lambda b: b.channel == channel and b.chatId == chat_id,
        lambda b: b.channel == channel and b.chatId == "*",
        lambda b: b.channel == "*",
    ):
        for binding in bindings:
            if wanted(binding) and binding.agentId in enabled:
                return binding.agentId
    first = next((agent.agentId for agent in agents if agent.enabled), None)
    if first is None:
        raise LookupError("Every agent in agents.json is disabled; enable one.")
    return first
