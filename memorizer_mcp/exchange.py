"""export_memory and import_memory: files in the export folder (or the Filer's workspace) and nowhere else.

Exports go to `<MEMORY_EXPORT_PATH>/<agent_id>/` unless `output_dir` names another folder below one of the two
roots; every file is written atomically. Imports read one file below the two roots; imported facts take the same
store path as store_fact (secret filter, comparison with the facts already there, embedding), which the original
skipped: current facts oldest first, so a later fact supersedes an earlier one and not the reverse; then the
file's history, linked to the facts that replaced it. Imported facts are at most as trusted as the caller says
(`provenance`, default untrusted), whatever the file claims.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from memorizer_mcp import claims
from memorizer_mcp.facts import NewFact
from memorizer_mcp.learning import TIME_BUDGET, Budget
from memorizer_mcp.paths import confine
from memorizer_mcp.provenance import DEFAULT_PROVENANCE, weakest
from memorizer_mcp.secret_filter import find_secret, find_secret_in, refusal
from memorizer_mcp.service import Memory
from memorizer_mcp.timestamps import db_moment
from memorizer_mcp.transfer import (
    MAX_IMPORT_BYTES,
    ImportData,
    ImportedFact,
    ImportFormatError,
    parse_import,
    render_json,
    render_markdown,
)
from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure
from shared.private_files import private_dir, write_private

_SAFE_NAME = re.compile(r"^[a-z0-9_-]{1,40}$")
MAX_SKIPPED_SHOWN = 20


class Exchange:
    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    @property
    def roots(self) -> list[Path]:
        settings = self.memory.settings
        return [settings.export_path, settings.workspace]

    # -- export ------------------------------------------------------------------------------------------------

    def _render(self, agent_id: str, fmt: str, include_conversations: bool) -> dict[str, str]:
        memory = self.memory
        profile, updated = memory.profiles.get(agent_id)
        facts = memory.facts.all_for_export(agent_id)
        conversations = memory.conversations.recent(agent_id, 500) if include_conversations else None
        if fmt == "json":
            return render_json(profile, facts, conversations)
        files = render_markdown(profile, updated, facts, conversations, memory.now())
        # Categories come from the database, where an old file may hold anything: never let one shape a path.
        safe: dict[str, str] = {}
        for path, text in files.items():
            if path.startswith("facts/") and not _SAFE_NAME.match(path[len("facts/") : -len(".md")]):
                path = f"facts/other-{len(safe)}.md"
            safe[path] = text
        return safe

    def _write(self, agent_id: str, fmt: str, include_conversations: bool, output_dir: str | None) -> dict[str, Any]:
        target = confine(output_dir or agent_id, self.roots, what="export folder")
        private_dir(target)
        # mkdir may have walked through a symlink created meanwhile: check the real folder again.
        target = confine(str(target), self.roots, what="export folder")
        written = []
        for relative, text in self._render(agent_id, fmt, include_conversations).items():
            path = confine(str(target / relative), self.roots, what="export file")
            if path.is_symlink():
                raise NotAllowed(f"The export file {path} is a symbolic link; remove it and export again.")
            write_private(path, text)
            written.append(relative)
        return {
            "export_path": str(target),
            "format": fmt,
            "files_created": len(written),
            "files": written,
            "exported_at": self.memory.now(),
        }

    async def export(
        self, agent_id: str, fmt: str, include_conversations: bool, output_dir: str | None
    ) -> dict[str, Any]:
        try:
            return await self.memory.offload(self._write, agent_id, fmt, include_conversations, output_dir)
        except OSError as exc:
            raise ToolFailure(f"The export could not be written: {exc.strerror or exc}.") from None

    # -- import ------------------------------------------------------------------------------------------------

    def _read(self, file_path: str) -> tuple[str, str]:
        path = confine(file_path, self.roots, what="import file")
        if not path.is_file():
            raise ToolFailure(f"There is no file at {path}.")
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            raise InvalidArguments(f"{path.name} is {size:,} bytes; import_memory reads files up to 50 MB.")
        try:
            return path.name, path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise InvalidArguments(f"{path.name} is not UTF-8 text.") from None
        except OSError as exc:
            raise ToolFailure(f"{path.name} could not be read: {exc.strerror or exc}.") from None

    async def import_file(self, agent_id: str, file_path: str, provenance: str = DEFAULT_PROVENANCE) -> dict[str, Any]:
        memory = self.memory
        name, text = await memory.offload(self._read, file_path)
        try:
            data: ImportData = parse_import(name, text)
        except ImportFormatError as exc:
            raise InvalidArguments(str(exc)) from None
        result: dict[str, Any] = {"changes_applied": 0, "fields_updated": []}
        if data.profile is not None:
            kind = find_secret_in(data.profile)
            if kind is not None:
                raise InvalidArguments(refusal(f"The profile in {name}", kind))
            await memory.offload(memory.profiles.replace, agent_id, data.profile, f"Imported from {name}", memory.now())
            result.update(changes_applied=1, fields_updated=["profile"])
            return result
        budget = Budget(TIME_BUDGET)
        stored: list[tuple[int, str]] = []
        duplicates = 0
        rejected: Counter[str] = Counter()
        new_ids: dict[int, int] = {}
        current = sorted((f for f in data.facts if f.current), key=lambda f: _stamp(f.created_at) or "")
        for fact in current:
            outcome = await memory.store(
                agent_id,
                fact.fact,
                fact.category,
                source=fact.source,
                source_type=fact.source_type or "import",
                provenance=weakest(fact.provenance or provenance, provenance),
                confidence=fact.confidence,
                created_at=_stamp(fact.created_at),
                embed=False,
            )
            if outcome.status == "rejected":
                rejected[outcome.secret_kind or "secret"] += 1
                continue
            if fact.id is not None and outcome.fact_id is not None:
                new_ids[fact.id] = outcome.fact_id
            if outcome.status == "stored":
                stored.append((outcome.fact_id or 0, fact.fact))
            else:
                duplicates += 1
        history, skipped = await self._import_history(agent_id, data.facts, new_ids, provenance, rejected)
        stored.extend(history)
        embedded = 0
        for start in range(0, len(stored), 256):
            if budget.left() < 5:
                break
            embedded += await memory.embed_facts(agent_id, stored[start : start + 256])
        result.update(
            changes_applied=len(stored),
            fields_updated=["facts"],
            facts_stored=len(stored) - len(history),
            history_stored=len(history),
            duplicates=duplicates,
            rejected_secrets=dict(rejected),
            skipped=[*data.skipped, *skipped][:MAX_SKIPPED_SHOWN],
        )
        if memory.embedder is not None and embedded < len(stored):
            result["vectors_missing"] = len(stored) - embedded
            result["note"] = "Some facts have no vector yet: run backfill_embeddings."
        return result

    async def _import_history(
        self,
        agent_id: str,
        facts: list[ImportedFact],
        new_ids: dict[int, int],
        provenance: str,
        rejected: Counter[str],
    ) -> tuple[list[tuple[int, str]], list[str]]:
        """Insert the file's facts that were no longer current, each linked to the imported fact that replaced it.

        A chain (A replaced by B, B by C) is resolved from its current end; an entry whose replacement is not in
        the file is skipped with a note.
        """
        memory = self.memory
        pending = [f for f in facts if not f.current]
        stored: list[tuple[int, str]] = []
        while pending:
            progress = False
            for fact in list(pending):
                target = new_ids.get(fact.superseded_by) if fact.superseded_by is not None else None
                if target is None:
                    continue
                pending.remove(fact)
                progress = True
                kind = find_secret(fact.fact)
                if kind is not None:
                    rejected[kind] += 1
                    continue
                new = NewFact(
                    agent_id,
                    fact.fact,
                    fact.category,
                    fact.source,
                    fact.source_type or "import",
                    weakest(fact.provenance or provenance, provenance),
                    fact.confidence,
                    _stamp(fact.created_at) or memory.now(),
                    tuple(claims.keys(claims.parse(fact.fact))),
                )
                until = _stamp(fact.valid_until) or memory.now()
                fact_id = await memory.offload(memory.facts.insert_history, new, until, target, memory.now())
                if fact.id is not None:
                    new_ids[fact.id] = fact_id
                stored.append((fact_id, fact.fact))
            if not progress:
                break
        skipped = [
            f"no longer current: {fact.fact[:60]!r} (the fact that replaced it, {fact.superseded_by}, is not in the file)"
            for fact in pending
        ]
        return stored, skipped


def _stamp(value: str | None) -> str | None:
    """An imported created_at kept only if it is a date the database format can hold."""
    if not value:
        return None
    try:
        return db_moment(value)
    except ValueError:
        return None
