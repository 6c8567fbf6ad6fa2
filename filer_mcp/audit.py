"""The audit log: one JSON line per file operation, refused ones included, never any file content.

    {"ts": "2026-11-21T19:50:01.123+00:00", "operation": "read_file", "path": "notes/a.md", "success": true}
    {"ts": "...", "operation": "move_file", "path": "a.md", "destination": "b.md", "success": false,
     "error": "b.md already exists; ..."}

`path` is what the caller sent (truncated), so refused attempts are recorded as they were made. Each line is
written with one `write` on an `O_APPEND` descriptor, so concurrent writers never interleave within a line.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from shared.private_files import open_private
from shared.text import shorten

log = logging.getLogger(__name__)

MAX_RECORDED_CHARS = 1024
# get_audit_log reads at most this much of the end of the file; older lines are left to log tools.
TAIL_BYTES = 16 * 1024 * 1024


class AuditEntry(BaseModel):
    ts: str
    operation: str
    path: str
    success: bool
    destination: str | None = None
    error: str | None = None


def _clip(text: str) -> str:
    # Lone surrogates (a caller's "\\ud800", a non-UTF-8 file name) are kept visible as escapes, so every line
    # is plain UTF-8 that get_audit_log can send back.
    safe = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return shorten(safe, MAX_RECORDED_CHARS)


def parse_date_from(value: str) -> datetime:
    """`2026-11-21` or a full ISO timestamp; a time without zone is taken as UTC. Raises `ValueError`."""
    parsed = datetime.fromisoformat(value.strip())
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def select_entries(
    entries: Iterable[AuditEntry],
    *,
    path_filter: str | None = None,
    operation_filter: str | None = None,
    date_from: datetime | None = None,
    limit: int = 100,
) -> list[AuditEntry]:
    """Matching entries, newest first, at most `limit`."""
    chosen: list[tuple[datetime, AuditEntry]] = []
    for entry in entries:
        if path_filter and path_filter not in entry.path and path_filter not in (entry.destination or ""):
            continue
        if operation_filter and entry.operation != operation_filter:
            continue
        try:
            when = parse_date_from(entry.ts)
        except ValueError:
            continue
        if date_from is not None and when < date_from:
            continue
        chosen.append((when, entry))
    # Lines are appended in order: among equal timestamps the later line is the newer one.
    chosen.reverse()
    chosen.sort(key=lambda pair: pair[0], reverse=True)
    return [entry for _, entry in chosen[:limit]]


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def record(
        self,
        operation: str,
        path: str,
        *,
        success: bool,
        error: str | None = None,
        destination: str | None = None,
    ) -> None:
        """Append one line; a failing audit write is logged and never fails the operation itself."""
        line: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "operation": operation,
            "path": _clip(path),
        }
        if destination is not None:
            line["destination"] = _clip(destination)
        line["success"] = success
        if error is not None:
            line["error"] = _clip(error)
        data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            try:
                fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
            except OSError:
                log.exception("audit log write failed", extra={"audit_log": str(self.path)})

    def entries(self) -> list[AuditEntry]:
        """The entries in the last `TAIL_BYTES` of the file, oldest first; unreadable lines are skipped."""
        try:
            with self.path.open("rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(max(0, size - TAIL_BYTES))
                data = handle.read()
        except FileNotFoundError:
            return []
        lines = data.split(b"\n")
        if len(data) >= TAIL_BYTES:
            lines = lines[1:]
        found: list[AuditEntry] = []
        for line in lines:
            if not line.strip():
                continue
            try:
                found.append(AuditEntry.model_validate_json(line))
            except ValueError:
                continue
        return found
