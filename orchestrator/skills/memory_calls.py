"""How the skill scheduler and the skill installer reach the skills in Memorizer: the tools, and who calls them.

Both go through `Hub.call`, like every caller. Two callers, so a trace tells them apart: `SCHEDULER` for reads,
pre-flight checks and the user's own SKILL.md files (scanned as usual), `BOOKKEEPING` for the hub's own records
and this release's shipped seeds (not scanned, for the reason it declares).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from orchestrator.callers import Caller, system
from shared.agents import AgentDefinition

if TYPE_CHECKING:
    from orchestrator.agents import AgentManager

LIST_TOOL = "memory_list_skills"
UPDATE_TOOL = "memory_update_skill"

SCHEDULER = system("skill scheduler")
"""Listing skills, pre-flight checks, and writing the user's own SKILL.md files (scanned as usual)."""
BOOKKEEPING = system(
    "skill bookkeeping",
    unscanned="the hub's own records (run outcomes, waiting markers) and this release's shipped seeds: a false "
    "positive would lose a run record (the skill would run again every second), and the shipped instructions read "
    "like the imperative text Guardian is trained to flag",
)


class SkillsHost(Protocol):
    """What the scheduler and the installer use of the hub (`orchestrator.hub.Hub` is one)."""

    agents: AgentManager | None

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]: ...

    def tool_listing(self, agent: AgentDefinition | None = None) -> list[dict[str, Any]]: ...


def routable_tools(hub: SkillsHost) -> set[str]:
    """The tools a skill may name: what the hub lists to any caller now."""
    return {tool["name"] for tool in hub.tool_listing()}
