"""The hub's agents: one Thinker process per agent of agents.json, and the subagents they start.

- `manager`: the one door (`AgentManager`): who answers which chat, each request to a Thinker, cost pauses.
- `supervisor`: the processes: start, health rounds, crash backoff, idle stop.
- `client`: HTTP to Thinkers with the contract's models (`shared.contracts.thinker_api`).
- `notices`: the owner's cost-pause notice.
- `subagents`: what a subagent is (id, definition, tools), decided without I/O.
- `runtime`: one agent's state (`AgentRuntime`) and `AgentError`.
"""

from orchestrator.agents.manager import AgentManager
from orchestrator.agents.runtime import AgentError, AgentRuntime, child_environment, free_port

__all__ = ["AgentError", "AgentManager", "AgentRuntime", "child_environment", "free_port"]
