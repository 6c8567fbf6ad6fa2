"""What every SQLite store here does the same way: a write transaction that takes the lock up front, and schema
migrations recorded in `_migrations`, each run once, in its own transaction with its record.

The stores open their connections in autocommit mode (`isolation_level=None`), so a transaction is exactly what
these helpers begin and end. Typed by what they call, so the Memorizer's `sqlean` connection fits as well.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

log = logging.getLogger(__name__)


class Executes(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...


ConnectionT = TypeVar("ConnectionT", bound=Executes)


@contextmanager
def immediate(connection: Executes) -> Iterator[None]:
    """`BEGIN IMMEDIATE` … `COMMIT` (or `ROLLBACK`): a writer waits for the lock up front, never halfway through."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def migrate(connection: ConnectionT, migrations: Sequence[tuple[str, Callable[[ConnectionT], None]]]) -> list[str]:
    """Run the migrations not yet recorded, in order; the names run now."""
    connection.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in connection.execute("SELECT name FROM _migrations")}
    ran = []
    for name, step in migrations:
        if name in done:
            continue
        with immediate(connection):
            # Another process may have run it between our look and our lock.
            if connection.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone() is not None:
                continue
            step(connection)
            connection.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))", (name,))
        log.info("migration applied", extra={"migration": name})
        ran.append(name)
    return ran
