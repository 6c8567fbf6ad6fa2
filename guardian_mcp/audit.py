"""The scan audit log: one JSON object per line, newest last on disk, read newest first.

An entry records what was decided about which content, never the content: a 16-hex-digit SHA-256 prefix and
the length identify it, threats carry their path and type but no snippet (a snippet *is* content, and the
audit log outlives the conversation it came from).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from shared.private_files import open_private

log = logging.getLogger(__name__)

_BLOCK = 64 * 1024


class AuditThreat(BaseModel):
    path: str
    type: str


class AuditEntry(BaseModel):
    scan_id: str
    timestamp: str
    source: str
    content_hash: str
    content_length: int
    safe: bool
    confidence: float
    risk: float | None = None
    threats: list[AuditThreat]
    scanner: str
    latency_ms: float
    action: str = "pass"
    """`block`, `mark` or `pass` (entries written before marks existed read as `pass` or, unsafe, `block`)."""


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:16]


def utc_timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _lines_newest_first(path: Path) -> Iterator[bytes]:
    """The file's lines from the last to the first, reading blocks from the end (the log only grows)."""
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        position = handle.tell()
        tail = b""
        while position > 0:
            size = min(_BLOCK, position)
            position -= size
            handle.seek(position)
            block = handle.read(size) + tail
            lines = block.split(b"\n")
            tail = lines[0]
            for line in reversed(lines[1:]):
                if line.strip():
                    yield line
        if tail.strip():
            yield tail


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def append(self, entry: AuditEntry) -> None:
        line = (entry.model_dump_json() + "\n").encode("utf-8")
        with self._lock, os.fdopen(open_private(self.path, os.O_RDWR | os.O_APPEND), "a+b") as handle:
            # After a crash mid-write the file may end in half a line: start on a fresh one, or this entry
            # would be glued to the torn one and lost with it.
            if handle.seek(0, os.SEEK_END) > 0:
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    line = b"\n" + line
            handle.write(line)

    def read(self, *, scan_id: str | None = None, limit: int = 50, threats_only: bool = False) -> list[AuditEntry]:
        """Up to `limit` entries, newest first; `scan_id` picks one scan, `threats_only` the blocked
        and the marked (suspicious, passed on as untrusted data) ones."""
        if not self.path.exists():
            return []
        found: list[AuditEntry] = []
        for raw in _lines_newest_first(self.path):
            try:
                entry = AuditEntry.model_validate(json.loads(raw))
            except (json.JSONDecodeError, UnicodeDecodeError, ValidationError):
                # A torn last line after a crash must not hide every older entry.
                log.warning("skipping unreadable audit line", extra={"audit_log": str(self.path)})
                continue
            if scan_id is not None and entry.scan_id != scan_id:
                continue
            if threats_only and entry.safe and entry.action != "mark":
                continue
            found.append(entry)
            if len(found) >= limit or scan_id is not None:
                break
        return found
