"""The contacts table: people the user deals with. An e-mail address is unique per agent (case-insensitively)."""

from __future__ import annotations

from typing import Any

from memorizer_mcp.db.connection import Database, Row
from memorizer_mcp.db.owned import owned_row, update_owned
from memorizer_mcp.fts import escape_like

UPDATABLE = ("name", "email", "company", "role", "type", "notes")


def contact_dict(row: Row) -> dict[str, Any]:
    return {
        key: row[key] for key in ("id", "name", "email", "company", "role", "type", "notes", "created_at", "updated_at")
    }


class ContactStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def _with_email(self, agent_id: str, email: str, other_than: int = 0) -> Row | None:
        row: Row | None = self.db.conn.execute(
            "SELECT id, name FROM contacts WHERE agent_id = ? AND lower(email) = lower(?) AND id != ? LIMIT 1",
            (agent_id, email, other_than),
        ).fetchone()
        return row

    def create(self, agent_id: str, fields: dict[str, Any], now: str) -> tuple[int, Row | None]:
        """Insert; `(new id, None)`, or `(0, the contact that already has this e-mail)`."""
        with self.db.transaction() as conn:
            clash = self._with_email(agent_id, fields["email"])
            if clash is not None:
                return 0, clash
            cursor = conn.execute(
                "INSERT INTO contacts (agent_id, name, email, company, role, type, notes, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (agent_id, *(fields.get(key) for key in UPDATABLE), now, now),
            )
            return int(cursor.lastrowid or 0), None

    def listing(self, agent_id: str, filters: dict[str, Any], limit: int) -> tuple[list[Row], int]:
        where, params = ["agent_id = ?"], [agent_id]
        if filters.get("email"):
            where.append("lower(email) = lower(?)")
            params.append(filters["email"])
        if filters.get("company"):
            where.append("company = ?")
            params.append(filters["company"])
        if filters.get("type"):
            where.append("type = ?")
            params.append(filters["type"])
        if filters.get("name"):
            where.append("name LIKE ? ESCAPE '\\'")
            params.append(f"%{escape_like(filters['name'])}%")
        clause = " AND ".join(where)
        return self.db.page("*", f"FROM contacts WHERE {clause}", "name COLLATE NOCASE, id", params, limit)

    def get(self, agent_id: str, contact_id: int) -> Row | None:
        with self.db.reading() as conn:
            return owned_row(conn, "contacts", contact_id, agent_id)

    def exists(self, agent_id: str, contact_ids: list[int]) -> list[int]:
        """Those of `contact_ids` the agent does not have."""
        with self.db.reading() as conn:
            return [
                contact_id
                for contact_id in dict.fromkeys(contact_ids)
                if owned_row(conn, "contacts", contact_id, agent_id) is None
            ]

    def update(self, agent_id: str, contact_id: int, changes: dict[str, Any], now: str) -> tuple[bool, Row | None]:
        """`(found, clash)`: clash is the other contact that already has the new e-mail (nothing is changed)."""
        unknown = set(changes) - set(UPDATABLE)
        if unknown:
            raise ValueError(f"not contact columns: {sorted(unknown)}")
        with self.db.transaction() as conn:
            if owned_row(conn, "contacts", contact_id, agent_id) is None:
                return False, None
            if "email" in changes:
                clash = self._with_email(agent_id, changes["email"], other_than=contact_id)
                if clash is not None:
                    return True, clash
            update_owned(conn, "contacts", contact_id, agent_id, changes, now)
            return True, None
