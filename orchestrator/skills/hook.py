"""The creation path: `memory_store_skill` / `memory_update_skill` called through the hub are normalised first.

`Hub.call` sends these two tools here unless the hub's own features call them (scheduler, seeding, file sync
normalise their own arguments, with missing tools making a skill disabled instead of refused). Here:

- the arguments go through `normalize_skill_input` with the hub's routable and native tools as `known_tools`
  (unknown tools are refused naming the closest ones), the scheduler's clock as `now` and ANNABELLE_TIMEZONE;
- an update first reads the stored skill, so a partial `trigger_config` is merged over the stored one and a
  hand-made `enabled` change can be told apart from the scheduler's (see `hand_toggle`);
- a `SkillInputError` becomes the envelope `INVALID_ARGUMENTS` with its sentence; nothing is stored;
- the normaliser's warnings travel back in `data.warnings`, so the model learns what was fixed, and the timing
  written, in words with its next runs, in `data.runs` (`timing_words`), so it can tell the owner what was stored;
- the scheduler is told to re-read the skills, so a new skill fires on time.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from orchestrator.callers import Caller, system
from orchestrator.settings import OrchestratorSettings
from orchestrator.skills.errors import SkillInputError
from orchestrator.skills.normalizer import DEFAULT_AGENT_ID, SKILL_TOOLS, normalize_skill_input
from orchestrator.skills.runs import WAITING_FOR_TOOLS, iso
from orchestrator.skills.timing_words import timing_words
from shared.agents import AgentDefinition
from shared.envelope import ErrorCode, fail


class SkillCache(Protocol):
    """The scheduler as skill writes see it: its clock, and the list it must re-read after a write."""

    def clock(self) -> datetime: ...

    def invalidate(self) -> None: ...


class SkillWriteHost(Protocol):
    """What the creation path uses of the hub (`orchestrator.hub.Hub` is one)."""

    settings: OrchestratorSettings
    skills: SkillCache | None

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]: ...

    def tool_listing(self, agent: AgentDefinition | None = None) -> list[dict[str, Any]]: ...


WRITE = system("skill write (normalised)")
"""The normalised write itself, and the read of the stored skill before an update."""

__all__ = ["SKILL_TOOLS", "call_skill_tool", "hand_toggle"]

UPDATE_TOOL = "memory_update_skill"
GET_TOOL = "memory_get_skill"


def hand_toggle(stored: Mapping[str, Any], args: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """Fields to add when someone (not the scheduler) turns a skill on or off. Pure.

    Any hand-made `enabled` change clears the waiting-for-tools marker, so a skill the user disabled is never
    enabled behind their back; turning a skill on also forgets its failures, so an auto-disabled skill gets a
    fresh start instead of being disabled again by its next failure.
    """
    if "enabled" not in args:
        return {}
    extra: dict[str, Any] = {}
    if "last_error" not in args and str(stored.get("last_error") or "").startswith(WAITING_FOR_TOOLS):
        extra["last_error"] = ""
    if args["enabled"]:
        if "consecutive_failures" not in args and int(stored.get("consecutive_failures") or 0):
            extra["consecutive_failures"] = 0
            extra.setdefault("last_error", "")
        if "backoff_until" not in args and stored.get("backoff_until"):
            extra["backoff_until"] = iso(now)
    return extra


def _skill_id(arguments: Mapping[str, Any]) -> int | None:
    try:
        return int(str(arguments.get("skill_id")).strip())
    except (TypeError, ValueError):
        return None


async def call_skill_tool(hub: SkillWriteHost, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Normalise, check and route one skill write; every outcome is an envelope."""
    scheduler = hub.skills
    now = scheduler.clock() if scheduler is not None else datetime.now(UTC)
    zone = hub.settings.timezone_name
    known = {tool["name"] for tool in hub.tool_listing()}
    stored: Mapping[str, Any] | None = None
    if name == UPDATE_TOOL and (skill_id := _skill_id(arguments)) is not None:
        agent_id = str(arguments.get("agent_id") or DEFAULT_AGENT_ID)
        got = await hub.call(GET_TOOL, {"skill_id": skill_id, "agent_id": agent_id}, caller=WRITE)
        data = got.get("data") if got.get("success") else None
        stored = data.get("skill") if isinstance(data, Mapping) else None
    config = stored.get("trigger_config") if stored is not None else None
    try:
        normal = normalize_skill_input(
            name,
            arguments,
            now=now,
            default_tz=zone,
            known_tools=known,
            current_trigger_config=config if isinstance(config, Mapping) else None,
        )
    except SkillInputError as exc:
        return fail(ErrorCode.INVALID_ARGUMENTS, f"{name}: {exc}")
    args = dict(normal.args)
    if stored is not None:
        args.update(hand_toggle(stored, args, now))
    envelope = await hub.call(name, args, caller=WRITE)
    if envelope.get("success"):
        said = {"warnings": list(normal.warnings)} if normal.warnings else {}
        written = args.get("trigger_config")
        runs = timing_words(written, default_tz=zone, now=now) if isinstance(written, Mapping) else None
        if runs is not None:
            said["runs"] = runs
        if said:
            data = envelope.get("data")
            envelope["data"] = {**(data if isinstance(data, dict) else {"result": data}), **said}
        if scheduler is not None:
            scheduler.invalidate()
    return envelope
