"""Approval records in SQLite (`$ANNABELLE_HOME/data/approvals.db`), and the audit log of every decision.

A record is created `pending` when a call is held, and decided once: `approved` or `denied` by the owner (over
HTTP, Telegram or the CLI), or `expired` when nobody decided in time. A hub that stops with records pending
marks them `expired` when it starts again: a held call never runs after a restart, approved or not.

Every decision is appended to `$ANNABELLE_HOME/logs/approvals-audit.jsonl`: who, when, which tool for which agent,
the outcome and the argument names (never their values: they may hold a secret the owner saw in the request).
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from shared.json_lines import bounded_json_line
from shared.private_files import open_private, private_file
from shared.text import shorten

Status = Literal["pending", "approved", "denied", "expired"]
Decision = Literal["approve", "deny"]

MAX_ARGUMENT_CHARS = 300
"""Each argument's value, as the owner reads it in the request, is cut here."""
MAX_ARGUMENTS = 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    status TEXT NOT NULL,
    decided_by TEXT,
    decided_at TEXT
);
CREATE INDEX IF NOT EXISTS approvals_status ON approvals (status, created_at);
"""


class Approval(BaseModel):
    """One held call, as `GET /approvals` shows it."""

    id: str
    agentId: str
    tool: str
    arguments: dict[str, Any]
    reason: str
    createdAt: str
    expiresAt: str
    status: Status
    decidedBy: str | None = None
    decidedAt: str | None = None


class ApprovalNotFound(LookupError):
    pass


class AlreadyDecided(Exception):
    def __init__(self, record: Approval) -> None:
        super().__init__(f"Approval {record.id} is already {record.status}.")
        self.record = record


def readable_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments as the owner should read them: at most 20, each value cut to a few hundred characters."""
    shown: dict[str, Any] = {}
    for index, (key, value) in enumerate(arguments.items()):
        if index == MAX_ARGUMENTS:
            shown["…"] = f"{len(arguments) - MAX_ARGUMENTS} more"
            break
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        shown[shorten(str(key), 60)] = shorten(text, MAX_ARGUMENT_CHARS)
    return shown


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


class ApprovalStore:
    def __init__(self, path: Path, audit_path: Path) -> None:
        private_file(path)
        self.path = path
        self.audit_path = audit_path
        # Built with the hub, used from its event loop, which may run in another thread (a test client's portal);
        # every use is a short synchronous call on that one loop, so the connection is never shared concurrently.
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def expire_leftovers(self, now: datetime) -> list[Approval]:
        """Records still pending from an earlier run: expired, never approved."""
        left = [record for record in self.list() if record.status == "pending"]
        for record in left:
            self._decide(record.id, "expired", "the hub restarted", now)
        return [self.get(record.id) for record in left]

    def create(
        self, agent_id: str, tool: str, arguments: Mapping[str, Any], reason: str, now: datetime, timeout: float
    ) -> Approval:
        record = Approval(
            id=secrets.token_hex(4),
            agentId=agent_id,
            tool=tool,
            arguments=readable_arguments(arguments),
            reason=reason,
            createdAt=_iso(now),
            expiresAt=_iso(now + timedelta(seconds=timeout)),
            status="pending",
        )
        self._db.execute(
            "INSERT INTO approvals (id, agent_id, tool, arguments, reason, created_at, expires_at, status) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.id,
                agent_id,
                tool,
                json.dumps(record.arguments, ensure_ascii=False),
                reason,
                record.createdAt,
                record.expiresAt,
                "pending",
            ),
        )
        self._audit(record, "requested", "the hub")
        return record

    def get(self, approval_id: str) -> Approval:
        row = self._db.execute("SELECT * FROM approvals WHERE id = ?", (approval_id,)).fetchone()
        if row is None:
            raise ApprovalNotFound(approval_id)
        return _record(row)

    def list(self, limit: int = 100) -> list[Approval]:
        """Pending first (oldest first), then the latest decided ones."""
        rows = self._db.execute(
            "SELECT * FROM approvals ORDER BY status != 'pending', "
            "CASE WHEN status = 'pending' THEN created_at END ASC, created_at DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [_record(row) for row in rows]

    def decide(self, approval_id: str, status: Status, by: str, now: datetime) -> Approval:
        """Settle a pending record; `AlreadyDecided` when it is not pending any more."""
        record = self.get(approval_id)
        if record.status != "pending":
            raise AlreadyDecided(record)
        self._decide(approval_id, status, by, now)
        return self.get(approval_id)

    def _decide(self, approval_id: str, status: Status, by: str, now: datetime) -> None:
        self._db.execute(
            "UPDATE approvals SET status = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = 'pending'",
            (status, by, _iso(now), approval_id),
        )
        self._audit(self.get(approval_id), status, by)

    def _audit(self, record: Approval, outcome: str, by: str) -> None:
        entry = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "approval": record.id,
            "agent": record.agentId,
            "tool": record.tool,
            "argumentNames": sorted(record.arguments),
            "reason": record.reason,
            "outcome": outcome,
            "by": by,
        }
        fd = open_private(self.audit_path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, (bounded_json_line(entry, compact=True) + "\n").encode("utf-8"))
        finally:
            os.close(fd)


def _record(row: sqlite3.Row) -> Approval:
    return Approval(
        id=row["id"],
        agentId=row["agent_id"],
        tool=row["tool"],
        arguments=json.loads(row["arguments"]),
        reason=row["reason"],
        createdAt=row["created_at"],
        expiresAt=row["expires_at"],
        status=row["status"],
        decidedBy=row["decided_by"],
        decidedAt=row["decided_at"],
    )
