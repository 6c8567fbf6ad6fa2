"""The side-effect policy: in a tainted turn, which calls run and which wait for the owner; in any turn, when
repeating a change waits for the owner. Pure.

A turn is tainted when content nobody vouches for entered it (orchestrator/turns.py). From then on the model may be
following that content's instructions, so every call that could change something or reach the outside world needs
the owner's approval: a tool that is not read-only, or one that reaches the open world (a fetched URL or a
browser page can carry the owner's data away in its address). Read-only local tools always run.

The policy file (`APPROVAL_POLICY`, default `policy.json` in the repository) lists what may run anyway, for every
agent (`default`) and per agent (`agents.<id>`, replacing the default for that agent):

    {"default": {"allow": [
        {"tools": ["filer_create_file", "filer_update_file"]},            writes inside the workspace
        {"tools": ["telegram_send_message"], "to": "owner"},              only to the owner's own chat
        {"tools": ["searcher_web_search"]}                                a query goes to the search provider
    ]}}

A rule covers a destructive tool only with `"destructive": true`, and `"to": "owner"` only when the call's
`chat_id` is the owner's chat. The file is validated when the hub starts; a mistake stops it with the field named.

The bulk limit holds in every turn, tainted or not (`bulk_verdict`): after `APPROVAL_BULK_LIMIT` calls of one tool
that deleted, overwrote or acted beyond this machine, the next call of that tool waits for the owner. A model that
repeats a change is more often confused than asked: asked to pause one reminder it was shown with the others, the
1.5B model paused all seven, one call each. The limit bounds how far such a run goes; the first calls still run.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shared.manifest import ToolEffects
from shared.validation import load_json_model


class PolicyError(Exception):
    """The policy file is missing fields or has wrong values; the message names the file and the fields."""


class AllowRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tools: list[str] = Field(min_length=1, description="Exposed tool names or globs, e.g. `filer_create_file`.")
    to: Literal["owner"] | None = Field(
        default=None, description="Only when the call's `chat_id` is the owner's own chat."
    )
    destructive: bool = Field(
        default=False, description="Also for tools that can delete or overwrite (their destructiveHint)."
    )

    def covers(self, tool: str, effects: ToolEffects, arguments: Mapping[str, Any], owner_chat: str | None) -> bool:
        if not any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.tools):
            return False
        if effects.side_effects and effects.destructiveHint and not self.destructive:
            return False
        if self.to == "owner":
            return owner_chat is not None and str(arguments.get("chat_id", "")).strip() == owner_chat
        return True


class AgentPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    allow: list[AllowRule] = Field(default_factory=list)


class PolicyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default: AgentPolicy = Field(default_factory=AgentPolicy)
    agents: dict[str, AgentPolicy] = Field(default_factory=dict)

    def for_agent(self, agent_id: str) -> AgentPolicy:
        return self.agents.get(agent_id, self.default)


def load_policy(path: Path) -> PolicyFile:
    """The policy file; a missing one means nothing runs unapproved in a tainted turn."""
    if not path.exists():
        return PolicyFile()
    return load_json_model(path, PolicyFile, what="approval policy", error=PolicyError)


@dataclass(frozen=True)
class Verdict:
    hold: bool
    reason: str = ""
    per_turn: bool = False
    """Held by a per-turn check (the bulk limit, a record the request did not name): an approval then lets the rest
    of the turn's calls of that tool run."""


def needs_approval(effects: ToolEffects) -> bool:
    """Could the call change something, or carry data out? (Read-only local tools cannot.)"""
    return effects.side_effects or effects.openWorldHint


def as_called(effects: ToolEffects, arguments: Mapping[str, Any]) -> ToolEffects:
    """A call that asks to replace what exists (`overwrite` set, e.g. `filer_create_file`) is destructive, whatever
    the tool declares for its ordinary use: a rule for new files must not cover overwriting the owner's."""
    if arguments.get("overwrite") in (None, False, 0, "false", "False", "") or effects.destructiveHint:
        return effects
    return effects.model_copy(update={"destructiveHint": True})


def counts_as_change(effects: ToolEffects) -> bool:
    """A call the bulk limit counts: it deletes or overwrites (as called), or acts beyond this machine."""
    return effects.side_effects and (effects.destructiveHint or effects.openWorldHint)


def bulk_verdict(tool: str, effects: ToolEffects, arguments: Mapping[str, Any], *, done: int, limit: int) -> Verdict:
    """Whether a call waits for the owner because the turn already made `done` such calls of `tool`."""
    if limit <= 0 or done < limit or not counts_as_change(as_called(effects, arguments)):
        return Verdict(False)
    return Verdict(
        True,
        f"{tool} already ran {done} times in this request and each call deletes, overwrites or acts beyond this "
        "machine; more wait for your approval",
        per_turn=True,
    )


def judge(
    policy: AgentPolicy,
    tool: str,
    effects: ToolEffects,
    arguments: Mapping[str, Any],
    *,
    tainted_by: list[str],
    owner_chat: str | None,
) -> Verdict:
    """Whether a call in a tainted turn waits for the owner, and the reason they will read."""
    effects = as_called(effects, arguments)
    if not needs_approval(effects):
        return Verdict(False)
    if any(rule.covers(tool, effects, arguments, owner_chat) for rule in policy.allow):
        return Verdict(False)
    what = "reaches the outside world" if effects.openWorldHint and not effects.side_effects else "has side effects"
    source = ", ".join(tainted_by[:3]) if tainted_by else "the request has no turn the hub knows"
    return Verdict(True, f"{tool} {what}, and this turn read untrusted content ({source})")
