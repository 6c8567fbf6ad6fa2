"""Who makes a tool call: the value every call through `Hub.call` carries. Pure.

- `OWNER`: the master token over HTTP (`POST /tools/call`, the CLI, `annabelle mcp`). Every public tool;
  Guardian scans as the manifests say.
- `agent_caller(agent, turn)`: an agent's token (a Thinker, a subagent), working on a turn (orchestrator/turns.py).
  Only the tools its `allowedTools` / `deniedTools` let it use; in a tainted turn, or with no turn it can name,
  side effects follow the approval policy (orchestrator/approvals/).
- `system(purpose)`: the hub's own features (the scheduler, slash commands, the channel's intake, notifications,
  skill seeding). They may reach privileged tools hidden from everyone else (a channel's intake cursor,
  Guardian's own tools). A system call that must not be scanned says why (`unscanned=`); the reason is in the
  call's trace event and log line, so skipping Guardian is a visible decision, never a side road.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from orchestrator.turns import Turn
from shared.agents import AgentDefinition

CallerKind = Literal["owner", "agent", "system"]


@dataclass(frozen=True)
class Caller:
    kind: CallerKind
    agent: AgentDefinition | None = None
    """The calling agent, for `agent` callers."""
    purpose: str = ""
    """What a `system` caller is doing (shown in traces), e.g. `skill run record`, `/security`."""
    unscanned: str | None = None
    """Why this system call skips Guardian; None: scanned as the MCP's manifest says."""
    turn: Turn | None = None
    """The turn an agent's call belongs to, when it named a live one of its own."""

    def __post_init__(self) -> None:
        if (self.kind == "agent") != (self.agent is not None):
            raise ValueError("An agent caller names its agent, and only an agent caller does.")
        if self.unscanned is not None and self.kind != "system":
            raise ValueError("Only the hub's own features may skip Guardian, and they say why.")
        if self.turn is not None and self.kind != "agent":
            raise ValueError("Only an agent's calls belong to a turn.")

    @property
    def privileged(self) -> bool:
        """May reach the tools hidden from agents and the master token (the hub's own features only)."""
        return self.kind == "system"

    @property
    def tainted(self) -> bool:
        """Untrusted content may be steering this call: an agent in a tainted turn, or one naming no turn it has
        (never the owner, never the hub's own features)."""
        return self.kind == "agent" and (self.turn is None or self.turn.tainted)

    def vouch(self, requested: str | None) -> str | None:
        """The provenance a memory write by this caller is stored with (a first-party tool's `provenance`
        argument): `untrusted` in a tainted turn, whatever the model asked, so text from a stranger's mail is never
        later taken for the owner's word; the owner and an agent in a clean turn speak for the owner unless they say
        less; the hub's own features say for themselves."""
        if self.tainted:
            return "untrusted"
        if self.kind == "system":
            return requested
        return requested if requested in ("system", "untrusted") else "owner"

    @property
    def label(self) -> str:
        """`owner`, `agent:<id>` or `system:<purpose>`: how traces and logs name the caller."""
        if self.agent is not None:
            return f"agent:{self.agent.agentId}"
        return f"system:{self.purpose}" if self.kind == "system" else self.kind


OWNER = Caller("owner")


def agent_caller(agent: AgentDefinition | None, turn: Turn | None = None) -> Caller:
    """The caller for a request's token: an agent's (working on `turn`), or the master token's (`None`)."""
    return OWNER if agent is None else Caller("agent", agent=agent, turn=turn)


def system(purpose: str, *, unscanned: str | None = None) -> Caller:
    return Caller("system", purpose=purpose, unscanned=unscanned)
