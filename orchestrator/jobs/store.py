"""The job records: one SQLite row per job (its spec, status, steps and progress as JSON), in the same file as
APScheduler's job store (`$ANNABELLE_HOME/data/jobs.db`, 0600).

APScheduler keeps *when* to run a job (and forgets it once started); this table keeps *what happened*, so
`get_job_status` answers after a restart and a job that was running when the hub stopped says so. Each change is
one transaction; finished jobs are kept `RETENTION_DAYS` and pruned at start.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from shared.private_files import private_file

__all__ = ["RETENTION_DAYS", "JobStore"]

RETENTION_DAYS = 30

SCHEMA = """
CREATE TABLE IF NOT EXISTS job_records (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    agent_id TEXT,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS job_records_by_status ON job_records (status);
"""


def _now() -> datetime:
    return datetime.now(UTC)


class JobStore:
    """Job records by id; `record` is the whole job as a JSON object (see `orchestrator.jobs.model`)."""

    def __init__(self, path: Path, clock: Callable[[], datetime] = _now) -> None:
        private_file(path)
        self.path = path
        self.clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def save(self, record: dict[str, Any]) -> None:
        """Insert or replace a job's record (one transaction)."""
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO job_records (id, created_at, status, agent_id, record) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET status = excluded.status, record = excluded.record",
                (
                    record["taskId"],
                    record["createdAt"],
                    record["status"],
                    record.get("agentId"),
                    json.dumps(record, ensure_ascii=False, default=str),
                ),
            )

    def get(self, job_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM job_records WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def with_status(self, *statuses: str) -> list[dict[str, Any]]:
        """Jobs in these states, oldest first."""
        marks = ",".join("?" * len(statuses))
        with self._lock:
            rows = self._db.execute(
                f"SELECT record FROM job_records WHERE status IN ({marks}) ORDER BY created_at, id", statuses
            ).fetchall()
        return [dict(json.loads(row[0])) for row in rows]

    def count_active(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM job_records WHERE status IN ('queued', 'running')").fetchone()
        return int(row[0])

    def counts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute("SELECT status, COUNT(*) FROM job_records GROUP BY status").fetchall()
        return {str(status): int(count) for status, count in rows}

    def prune(self) -> int:
        """Delete finished jobs older than `RETENTION_DAYS`; returns how many."""
        cutoff = (self.clock() - timedelta(days=RETENTION_DAYS)).isoformat(timespec="seconds")
        with self._lock, self._db:
            cursor = self._db.execute(
                "DELETE FROM job_records WHERE created_at < ? AND status NOT IN ('queued', 'running')", (cutoff,)
            )
        return cursor.rowcount
