"""The skill installer: Memorizer kept in step with the shipped skills and the user's SKILL.md files (I/O; the
decisions are `seeds.plan_seed` and `file_sync.plan_file_sync`).

At the scheduler's start it stores the shipped playbooks and scheduled skills that are missing and updates changed
ones (never the user's own), then mirrors `$ANNABELLE_HOME/skills/*/SKILL.md`: a new file is stored, a changed
one updated, a deleted one disabled. The scheduler polls `files_changed` and syncs again when it says so. A skill
stored disabled because its tools are missing gets the waiting marker, so the scheduler enables it once they
appear. After each pass `on_change` tells the scheduler to read the skills again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from orchestrator.skills.file_sync import plan_file_sync
from orchestrator.skills.memory_calls import (
    BOOKKEEPING,
    LIST_TOOL,
    SCHEDULER,
    UPDATE_TOOL,
    SkillsHost,
    routable_tools,
)
from orchestrator.skills.normalizer import DEFAULT_AGENT_ID
from orchestrator.skills.runs import skill_tools, waiting_marker
from orchestrator.skills.seeds import SEEDS, plan_seed, user_skill_conflicts
from shared.skill_files import FrontmatterError, SkillFile, read_skill_file
from shared.timeutil import Clock

log = logging.getLogger(__name__)

FileState = dict[str, tuple[int, int]]
"""Each SKILL.md path → (modification time in ns, size): what `files_changed` compares."""


class SkillInstaller:
    def __init__(
        self,
        hub: SkillsHost,
        skills_dir: Path,
        *,
        clock: Clock,
        default_tz: str,
        on_change: Callable[[], None],
    ) -> None:
        self.hub = hub
        self.skills_dir = skills_dir
        self.clock = clock
        self.default_tz = default_tz
        self.on_change = on_change
        self._file_state: FileState | None = None

    async def seed(self) -> None:
        """Install the shipped skills missing from Memorizer and update changed ones (never the user's own)."""
        agent_id = self._agent_for_seeds()
        stored = await self._stored(agent_id)
        if stored is None:
            return
        known = routable_tools(self.hub)
        for conflict in user_skill_conflicts(SEEDS, stored):
            log.info(conflict)
        upserts = plan_seed(
            SEEDS, stored, now=self.clock(), default_tz=self.default_tz, available_tools=known, agent_id=agent_id
        )
        for upsert in upserts:
            for warning in upsert.warnings:
                log.info(warning)
            await self._write(upsert.tool, upsert.args, known, shipped=True)
        if upserts:
            log.info(
                "skills seeded",
                extra={
                    "stored": sum(u.kind == "create" for u in upserts),
                    "updated": sum(u.kind == "update" for u in upserts),
                },
            )
        self.on_change()

    def files_changed(self) -> bool:
        """A SKILL.md appeared, changed or went away since the last sync."""
        return self._scan_files() != self._file_state

    async def sync_files(self) -> None:
        """Make Memorizer mirror the scheduled SKILL.md files: create, update, or disable (file deleted)."""
        self._file_state = self._scan_files()
        files: list[SkillFile] = []
        broken: list[str] = []
        for name in self._file_state:
            path = Path(name)
            try:
                files.append(read_skill_file(path))
            except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
                broken.append(path.parent.name)
                log.warning("skill file not synced", extra={"path": str(path), "reason": str(exc)})
        agent_id = self._agent_for_seeds()
        stored = await self._stored(agent_id)
        if stored is None:
            return
        known = routable_tools(self.hub)
        plan = plan_file_sync(
            files,
            stored,
            now=self.clock(),
            default_tz=self.default_tz,
            known_tools=known,
            agent_id=agent_id,
            broken_dirs=broken,
        )
        for error in plan.errors:
            log.warning("skill file not synced", extra={"reason": error})
        for action in plan.actions:
            for warning in action.warnings:
                log.info(warning)
            await self._write(action.tool, action.args, known)
            log.info(
                "skill file synced", extra={"dir": action.dir_name, "action": action.kind, "reason": action.reason}
            )
        self.on_change()

    def _scan_files(self) -> FileState:
        state: FileState = {}
        root = self.skills_dir
        for path in sorted(root.glob("*/SKILL.md")) if root.is_dir() else []:
            try:
                stat = path.stat()
            except OSError:
                continue
            state[str(path)] = (stat.st_mtime_ns, stat.st_size)
        return state

    def _agent_for_seeds(self) -> str:
        agents = self.hub.agents
        ids = list(agents.agents) if agents is not None else []
        return DEFAULT_AGENT_ID if DEFAULT_AGENT_ID in ids or not ids else ids[0]

    async def _stored(self, agent_id: str) -> list[dict[str, Any]] | None:
        envelope = await self.hub.call(LIST_TOOL, {"agent_id": agent_id, "detail": "full"}, caller=SCHEDULER)
        data = envelope.get("data") if envelope.get("success") else None
        return list(data.get("skills") or []) if isinstance(data, Mapping) else None

    async def _write(self, tool: str, args: dict[str, Any], known: set[str], *, shipped: bool = False) -> None:
        """Store or update a seed or file skill; one stored disabled for missing tools gets the waiting marker.

        Shipped seeds skip Guardian (they are this release's own text); the user's SKILL.md files are scanned."""
        envelope = await self.hub.call(tool, args, caller=BOOKKEEPING if shipped else SCHEDULER)
        if not envelope.get("success"):
            log.error(
                "skill not written", extra={"tool": tool, "skill": args.get("name"), "error": envelope.get("error")}
            )
            return
        if args.get("enabled") is not False or "last_error" in args:
            return
        data = envelope.get("data") or {}
        skill_id = args.get("skill_id") or (data.get("skill_id") if isinstance(data, Mapping) else None)
        if skill_id is None or (isinstance(data, Mapping) and data.get("already_existed")):
            return
        missing = [tool for tool in skill_tools(args) if tool not in known] or skill_tools(args)
        marker = {"skill_id": skill_id, "agent_id": args.get("agent_id"), "last_error": waiting_marker(missing)}
        await self.hub.call(UPDATE_TOOL, marker, caller=BOOKKEEPING)
