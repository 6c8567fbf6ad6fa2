"""One SQLite connection (through sqlean-py, so sqlite-vec and FTS5 load), shared by every tool.

Tools run in worker threads, so the connection is opened with `check_same_thread=False` and every use holds
`Database.lock`. A `transaction()` is `BEGIN IMMEDIATE ... COMMIT` (rolled back on any error); opened inside
another it joins the outer one, so a service can group several repository calls into one atomic write.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlean as sqlite3
import sqlite_vec

from shared.private_files import private_file

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000

Connection = sqlite3.Connection
Row = sqlite3.Row
DatabaseError = sqlite3.DatabaseError
IntegrityError = sqlite3.IntegrityError


def connect(path: Path | str) -> sqlite3.Connection:
    """Open `path` with the pragmas the Memorizer relies on and sqlite-vec loaded (":memory:" works too)."""
    if str(path) != ":memory:":
        private_file(Path(path))
    # isolation_level=None: no implicit transactions; `Database.transaction` says where they begin and end.
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


class Database:
    def __init__(self, conn: sqlite3.Connection, path: Path | None = None) -> None:
        self.conn = conn
        self.path = path
        self.lock = threading.RLock()

    @classmethod
    def open(cls, path: Path) -> Database:
        return cls(connect(path), path)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            yield self.conn

    def page(
        self, columns: str, source: str, order_by: str, params: Sequence[Any], limit: int
    ) -> tuple[list[Row], int]:
        """Up to `limit` rows of `SELECT <columns> <source> ORDER BY <order_by>`, and how many rows `source` holds
        in all, read under one lock so the two agree. `source` is the `FROM ... WHERE ...` part, built from
        constants only: values go in `params`."""
        with self.reading() as conn:
            rows = conn.execute(f"SELECT {columns} {source} ORDER BY {order_by} LIMIT ?", (*params, limit)).fetchall()
            total = conn.execute(f"SELECT COUNT(*) {source}", params).fetchone()[0]
        return rows, total

    def size_bytes(self) -> int:
        if self.path is None:
            return 0
        return sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())

    def close(self) -> None:
        with self.lock:
            self.conn.close()
