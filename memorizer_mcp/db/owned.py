"""Rows reached by id are reached through their agent: an id from one agent never reads or changes another's row.

`table` and the column names in `changes` are the caller's constants (never user input); values are parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorizer_mcp.db.connection import Connection, Row


def owned_row(conn: Connection, table: str, row_id: int, agent_id: str) -> Row | None:
    """Row `row_id` of `table` if it is `agent_id`'s, else None."""
    row: Row | None = conn.execute(
        f"SELECT * FROM {table} WHERE id = ? AND agent_id = ?", (row_id, agent_id)
    ).fetchone()
    return row


def update_owned(
    conn: Connection, table: str, row_id: int, agent_id: str, changes: Mapping[str, Any], now: str
) -> bool:
    """Set `changes` and `updated_at = now` on the agent's row `row_id` of `table`; whether there was such a row."""
    assignments = ", ".join([*(f"{column} = ?" for column in changes), "updated_at = ?"])
    cursor = conn.execute(
        f"UPDATE {table} SET {assignments} WHERE id = ? AND agent_id = ?", (*changes.values(), now, row_id, agent_id)
    )
    return bool(cursor.rowcount > 0)
