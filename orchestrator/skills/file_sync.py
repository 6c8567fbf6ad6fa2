"""What to create, update or disable in Memorizer so it mirrors the scheduled SKILL.md files. Pure, no I/O.

The hub reads `$ANNABELLE_HOME/skills/*/SKILL.md` (with `shared.skill_files`) and lists the agent's stored skills
(`memory_list_skills`), then runs the calls of the plan. Only files with a schedule in `trigger_config` are synced:
keyword-only files stay playbooks, read by the Thinker straight from disk.

Identity. The skills table has no column for where a skill came from, and a name alone is not enough (the user may
have a hand-made skill of the same name, and a file's `name` may be edited). So a file skill carries
`trigger_config.source = "file:<folder name>"`: the folder is the identity (agentskills.io makes the folder the
skill's name), it survives a change of `name:` in the file, and the scheduler ignores the key. A stored skill with
the file's name but without that marker is the user's own and is never overwritten: the plan reports a conflict.

Rules:
- no stored skill with the marker → `memory_store_skill` (disabled, with a warning, when required tools are missing);
- stored, and any synced field differs → `memory_update_skill` with the changed fields only (the file is the
  source of truth, so a content comparison replaces the original's "file newer than row" timestamp check);
- stored, file gone (or no longer scheduled) → disabled once, with `last_error` starting with
  `FILE_REMOVED_MARKER`; when the file comes back, that marker is how the skill is known to be re-enabled
  (a skill the user disabled by hand is never re-enabled by a sync);
- a file that fails to parse is passed in `broken_dirs`: its skill is left as it is, not disabled.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from orchestrator.skills.errors import SkillInputError
from orchestrator.skills.normalizer import DEFAULT_AGENT_ID, normalize_skill_input
from shared.contracts.memory import SKILL_AUTHORED_FIELDS
from shared.skill_files import SkillFile

__all__ = [
    "FILE_REMOVED_MARKER",
    "SOURCE_KEY",
    "SyncAction",
    "SyncPlan",
    "file_source",
    "plan_file_sync",
    "source_of",
]

SOURCE_KEY = "source"
FILE_SOURCE_PREFIX = "file:"
FILE_REMOVED_MARKER = "SKILL.md removed"
_MEMORIZER_DEFAULTS: Mapping[str, Any] = {"max_steps": 10, "notify_on_completion": True}


@dataclass(frozen=True)
class SyncAction:
    """One Memorizer call: `tool` with `args` (already normalised), and why."""

    kind: Literal["create", "update", "disable"]
    dir_name: str
    tool: Literal["memory_store_skill", "memory_update_skill"]
    args: dict[str, Any]
    reason: str
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class SyncPlan:
    """The calls to make, in order, and the files that could not be synced (each error names the file)."""

    actions: tuple[SyncAction, ...] = ()
    errors: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = field(default=())
    """Folders whose stored skill already matches the file."""


def file_source(dir_name: str) -> str:
    """The `trigger_config.source` marker of the skill synced from `skills/<dir_name>/SKILL.md`."""
    return f"{FILE_SOURCE_PREFIX}{dir_name}"


def source_of(skill: Mapping[str, Any]) -> str | None:
    """The folder a stored skill was synced from, or None for a skill made any other way."""
    config = skill.get("trigger_config")
    marker = config.get(SOURCE_KEY) if isinstance(config, Mapping) else None
    if isinstance(marker, str) and marker.startswith(FILE_SOURCE_PREFIX):
        return marker[len(FILE_SOURCE_PREFIX) :]
    return None


def _raw_args(skill: SkillFile, agent_id: str) -> dict[str, Any]:
    config = dict(skill.trigger_config or {})
    config[SOURCE_KEY] = file_source(skill.dir_name)
    args: dict[str, Any] = {
        "agent_id": agent_id,
        "name": skill.name,
        "description": skill.description,
        "trigger_type": "cron",
        "trigger_config": config,
        "instructions": skill.instructions,
        "required_tools": list(skill.required_tools),
        "max_steps": skill.max_steps if skill.max_steps is not None else _MEMORIZER_DEFAULTS["max_steps"],
        "notify_on_completion": (
            skill.notify_on_completion
            if skill.notify_on_completion is not None
            else _MEMORIZER_DEFAULTS["notify_on_completion"]
        ),
    }
    if skill.execution_plan:
        args["execution_plan"] = [dict(step) for step in skill.execution_plan]
    return args


def _where(skill: SkillFile) -> str:
    return f"skills/{skill.dir_name}/SKILL.md"


def _comparable(value: Any) -> Any:
    # Memorizer gives [] for "no required tools" and None for "no plan"; both mean nothing.
    return None if value in ([], (), "", None) else value


def plan_file_sync(
    files: Sequence[SkillFile],
    stored: Sequence[Mapping[str, Any]],
    *,
    now: datetime,
    default_tz: str,
    known_tools: Collection[str] | None = None,
    agent_id: str = DEFAULT_AGENT_ID,
    broken_dirs: Collection[str] = (),
) -> SyncPlan:
    """The Memorizer calls that make `stored` (the agent's skills, as memory_list_skills gives them) match `files`.

    Files are checked like a model's memory_store_skill call (cron fires, zone exists, one-shot time ahead), with
    missing tools making the skill disabled rather than refused (`known_tools`: the hub's routable tools).
    """
    mine = [s for s in stored if s.get("agent_id", agent_id) == agent_id]
    by_source: dict[str, Mapping[str, Any]] = {}
    for skill in mine:
        source = source_of(skill)
        if source is not None:
            by_source.setdefault(source, skill)
    names = {str(s.get("name")): s for s in mine}

    actions: list[SyncAction] = []
    errors: list[str] = []
    unchanged: list[str] = []
    synced_dirs: set[str] = set()
    for skill in sorted((f for f in files if f.scheduled), key=lambda f: f.dir_name):
        synced_dirs.add(skill.dir_name)
        existing = by_source.get(skill.dir_name)
        holder = names.get(skill.name)
        if holder is not None and holder is not existing:
            errors.append(
                f"{_where(skill)}: a skill named '{skill.name}' already exists (id {holder.get('id')}) and was not "
                "made from this file; rename one of them."
            )
            continue
        raw = _raw_args(skill, agent_id)
        tool: Literal["memory_store_skill", "memory_update_skill"] = (
            "memory_store_skill" if existing is None else "memory_update_skill"
        )
        if existing is not None:
            raw["skill_id"] = existing.get("id")
        try:
            normal = normalize_skill_input(
                tool, raw, now=now, default_tz=default_tz, known_tools=known_tools, on_missing_tools="disable"
            )
        except SkillInputError as exc:
            errors.append(f"{_where(skill)}: {exc}")
            continue
        warnings = tuple(w for w in normal.warnings if not w.startswith("Stored disabled")) + (
            (f"{_where(skill)}: stored disabled until these tools exist: {', '.join(normal.missing_tools)}.",)
            if normal.missing_tools
            else ()
        )
        if existing is None:
            actions.append(SyncAction("create", skill.dir_name, tool, normal.args, "new file", warnings))
            continue
        changes = _changes(normal.args, existing)
        if normal.missing_tools and existing.get("enabled", True):
            changes["enabled"] = False
        elif not normal.missing_tools and _removed_by_sync(existing):
            changes.update(enabled=True, last_error="")
        if not changes:
            unchanged.append(skill.dir_name)
            continue
        args = {"skill_id": existing.get("id"), "agent_id": agent_id, **changes}
        reason = "file changed: " + ", ".join(sorted(changes))
        actions.append(SyncAction("update", skill.dir_name, "memory_update_skill", args, reason, warnings))

    for dir_name, skill in sorted(by_source.items()):
        if dir_name in synced_dirs or dir_name in broken_dirs or not skill.get("enabled", True):
            continue
        gone = "no longer scheduled" if any(f.dir_name == dir_name for f in files) else "deleted"
        args = {
            "skill_id": skill.get("id"),
            "agent_id": agent_id,
            "enabled": False,
            "last_error": f"{FILE_REMOVED_MARKER}: skills/{dir_name}/SKILL.md was {gone}.",
        }
        actions.append(SyncAction("disable", dir_name, "memory_update_skill", args, f"file {gone}"))
    return SyncPlan(tuple(actions), tuple(errors), tuple(unchanged))


def _changes(desired: Mapping[str, Any], stored: Mapping[str, Any]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for key in SKILL_AUTHORED_FIELDS:
        want = desired.get(key)
        if _comparable(want) == _comparable(stored.get(key)):
            continue
        if key == "execution_plan" and want is None:
            changes[key] = []  # the Memorizer keeps a field given as None; an empty plan clears it
        elif want is not None:
            changes[key] = want
    return changes


def _removed_by_sync(skill: Mapping[str, Any]) -> bool:
    return not skill.get("enabled", True) and str(skill.get("last_error") or "").startswith(FILE_REMOVED_MARKER)
