"""What to store or update so Memorizer holds the shipped skills. Pure, no I/O.

The hub lists the agent's skills, calls `plan_seed`, and runs the upserts at start-up. Rules:

- a seed missing from the store (by name) → `memory_store_skill`; with `available_tools` given, a seed whose tools
  are not all routable is stored disabled with a warning naming them (and where they will come from);
- a stored skill carrying `trigger_config.source = "seed"` whose `seed_version` differs from the shipped seed's →
  `memory_update_skill` of the shipped content (instructions, keywords, tools...). A user's edit to a seeded skill
  leaves `seed_version` alone, so it survives until a release changes that seed;
- `enabled` is never part of an update: a skill the user disabled stays disabled, and enabling a seeded one when
  its tools appear is the scheduler's call;
- a stored skill of the same name without the seed marker is the user's own: left alone
  (`user_skill_conflicts` words it for the log).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from orchestrator.skills.errors import SkillInputError
from orchestrator.skills.normalizer import DEFAULT_AGENT_ID, normalize_skill_input
from orchestrator.skills.seeds.model import SEED_FIELDS, SEED_SOURCE, SEED_VERSION_KEY, TOOLS_FROM_ELSEWHERE, SeedSkill

__all__ = ["SeedUpsert", "plan_seed", "user_skill_conflicts"]


@dataclass(frozen=True)
class SeedUpsert:
    """One Memorizer call for one seed."""

    kind: Literal["create", "update"]
    name: str
    tool: Literal["memory_store_skill", "memory_update_skill"]
    args: dict[str, Any]
    warnings: tuple[str, ...] = ()


def _config(skill: Mapping[str, Any]) -> Mapping[str, Any]:
    config = skill.get("trigger_config")
    return config if isinstance(config, Mapping) else {}


def _missing_warning(name: str, missing: Sequence[str]) -> str:
    groups: dict[str, list[str]] = {}
    for tool in missing:
        groups.setdefault(TOOLS_FROM_ELSEWHERE.get(tool, ""), []).append(tool)
    parts = [f"{', '.join(tools)} (from {origin})" if origin else ", ".join(tools) for origin, tools in groups.items()]
    return f"Seed '{name}' stored disabled: it needs tools that are not available: {'; '.join(parts)}."


def plan_seed(
    seeds: Sequence[SeedSkill],
    stored: Sequence[Mapping[str, Any]],
    *,
    now: datetime,
    default_tz: str,
    available_tools: Collection[str] | None = None,
    agent_id: str = DEFAULT_AGENT_ID,
) -> list[SeedUpsert]:
    """The upserts that bring `stored` (the agent's skills, as memory_list_skills gives them) up to `seeds`."""
    by_name = {str(s.get("name")): s for s in stored if s.get("agent_id", agent_id) == agent_id}
    upserts: list[SeedUpsert] = []
    for seed in seeds:
        existing = by_name.get(seed.name)
        if existing is None:
            try:
                normal = normalize_skill_input(
                    "memory_store_skill",
                    seed.store_args(agent_id),
                    now=now,
                    default_tz=default_tz,
                    known_tools=available_tools,
                    on_missing_tools="disable",
                )
            except SkillInputError as exc:  # a broken seed is a bug in this release; the tests keep it from shipping
                raise ValueError(f"seed '{seed.name}' is invalid: {exc}") from exc
            warnings = (_missing_warning(seed.name, normal.missing_tools),) if normal.missing_tools else ()
            upserts.append(SeedUpsert("create", seed.name, "memory_store_skill", normal.args, warnings))
            continue
        config = _config(existing)
        if config.get("source") != SEED_SOURCE:
            continue  # the user's own skill of that name
        if config.get(SEED_VERSION_KEY) == seed.version:
            continue
        shipped = seed.store_args(agent_id)
        args: dict[str, Any] = {"skill_id": existing.get("id"), "agent_id": agent_id}
        args.update({key: shipped[key] for key in SEED_FIELDS if shipped[key] != existing.get(key)})
        upserts.append(SeedUpsert("update", seed.name, "memory_update_skill", args))
    return upserts


def user_skill_conflicts(seeds: Sequence[SeedSkill], stored: Sequence[Mapping[str, Any]]) -> list[str]:
    """Seeds shadowed by a user's own skill of the same name, as sentences for the log."""
    names = {seed.name for seed in seeds}
    return [
        f"Seed '{s.get('name')}' was not installed: a skill of that name (id {s.get('id')}) already exists."
        for s in stored
        if s.get("name") in names and _config(s).get("source") != SEED_SOURCE
    ]
