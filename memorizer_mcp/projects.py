"""Projects (unique name per agent) and their links to external MCP sources (one per project and MCP)."""

from __future__ import annotations

import json
from typing import Any

from memorizer_mcp.db.columns import json_list
from memorizer_mcp.db.connection import Database, Row
from memorizer_mcp.db.owned import owned_row, update_owned

UPDATABLE = ("name", "status", "type", "description", "primary_contact_id", "participants", "company", "priority")
SOURCE_COLUMNS = (
    "id",
    "project_id",
    "project_name",
    "mcp_name",
    "external_project_id",
    "external_project_name",
    "source_type",
    "last_status",
    "last_checked_at",
    "created_at",
    "updated_at",
)


def project_dict(row: Row) -> dict[str, Any]:
    out = {key: row[key] for key in ("id", "name", "status", "type", "description", "primary_contact_id")}
    out["participants"] = json_list(row["participants"])
    out.update({key: row[key] for key in ("company", "priority", "created_at", "updated_at")})
    return out


def source_dict(row: Row) -> dict[str, Any]:
    return {key: row[key] for key in SOURCE_COLUMNS}


def _value(column: str, value: Any) -> Any:
    if column == "participants":
        return None if value is None else json.dumps(value)
    return value


class ProjectStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def _named(self, agent_id: str, name: str, other_than: int = 0) -> Row | None:
        row: Row | None = self.db.conn.execute(
            "SELECT id FROM projects WHERE agent_id = ? AND name = ? AND id != ? LIMIT 1", (agent_id, name, other_than)
        ).fetchone()
        return row

    def create(self, agent_id: str, fields: dict[str, Any], now: str) -> tuple[int, int | None]:
        """`(new id, None)`, or `(0, id of the project that already has this name)`."""
        with self.db.transaction() as conn:
            clash = self._named(agent_id, fields["name"])
            if clash is not None:
                return 0, int(clash["id"])
            cursor = conn.execute(
                f"INSERT INTO projects (agent_id, {', '.join(UPDATABLE)}, created_at, updated_at)"
                f" VALUES ({', '.join('?' * (len(UPDATABLE) + 3))})",
                (agent_id, *(_value(key, fields.get(key)) for key in UPDATABLE), now, now),
            )
            return int(cursor.lastrowid or 0), None

    def get(self, agent_id: str, project_id: int) -> Row | None:
        with self.db.reading() as conn:
            return owned_row(conn, "projects", project_id, agent_id)

    def listing(self, agent_id: str, filters: dict[str, Any], limit: int) -> tuple[list[Row], int]:
        where, params = ["agent_id = ?"], [agent_id]
        for column in ("status", "type", "company", "priority"):
            if filters.get(column):
                where.append(f"{column} = ?")
                params.append(filters[column])
        if filters.get("contact_id"):
            # The original matched participants with LIKE '%id%', so contact 1 also found projects of contact 12.
            where.append(
                "(primary_contact_id = ? OR EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(participants)"
                " THEN participants ELSE '[]' END) WHERE value = ?))"
            )
            params += [filters["contact_id"], filters["contact_id"]]
        clause = " AND ".join(where)
        return self.db.page("*", f"FROM projects WHERE {clause}", "updated_at DESC, id DESC", params, limit)

    def update(self, agent_id: str, project_id: int, changes: dict[str, Any], now: str) -> tuple[bool, int | None]:
        """`(found, clash)`: clash is the id of another project that already has the new name."""
        unknown = set(changes) - set(UPDATABLE)
        if unknown:
            raise ValueError(f"not project columns: {sorted(unknown)}")
        with self.db.transaction() as conn:
            if owned_row(conn, "projects", project_id, agent_id) is None:
                return False, None
            if "name" in changes:
                clash = self._named(agent_id, changes["name"], other_than=project_id)
                if clash is not None:
                    return True, int(clash["id"])
            values = {column: _value(column, value) for column, value in changes.items()}
            update_owned(conn, "projects", project_id, agent_id, values, now)
            return True, None

    # -- sources: scoped through their project's agent ---------------------------------------------------------

    def link(self, agent_id: str, project_id: int, fields: dict[str, Any], now: str) -> tuple[int, bool] | None:
        """Upsert the (project, mcp_name) link; `(id, already_existed)`, or None if the agent has no such project."""
        with self.db.transaction() as conn:
            if owned_row(conn, "projects", project_id, agent_id) is None:
                return None
            existing = conn.execute(
                "SELECT id FROM project_sources WHERE project_id = ? AND mcp_name = ?", (project_id, fields["mcp_name"])
            ).fetchone()
            details = (fields.get("external_project_id"), fields.get("external_project_name"), fields["source_type"])
            if existing is not None:
                conn.execute(
                    "UPDATE project_sources SET external_project_id = ?, external_project_name = ?, source_type = ?,"
                    " updated_at = ? WHERE id = ?",
                    (*details, now, existing["id"]),
                )
                return int(existing["id"]), True
            cursor = conn.execute(
                "INSERT INTO project_sources (project_id, mcp_name, external_project_id, external_project_name,"
                " source_type, last_status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'unknown', ?, ?)",
                (project_id, fields["mcp_name"], *details, now, now),
            )
            return int(cursor.lastrowid or 0), False

    def unlink(self, agent_id: str, project_id: int, mcp_name: str) -> str | None:
        """Remove the link; the project's name, or None if there was no such link for the agent."""
        with self.db.transaction() as conn:
            row = conn.execute(
                "SELECT ps.id, p.name FROM project_sources ps JOIN projects p ON p.id = ps.project_id"
                " WHERE ps.project_id = ? AND ps.mcp_name = ? AND p.agent_id = ?",
                (project_id, mcp_name, agent_id),
            ).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM project_sources WHERE id = ?", (row["id"],))
            return str(row["name"])

    def sources(self, agent_id: str, project_id: int | None, mcp_name: str | None, limit: int) -> tuple[list[Row], int]:
        where: list[str] = ["p.agent_id = ?"]
        params: list[Any] = [agent_id]
        if project_id is not None:
            where.append("ps.project_id = ?")
            params.append(project_id)
        if mcp_name:
            where.append("ps.mcp_name = ?")
            params.append(mcp_name)
        body = f"FROM project_sources ps JOIN projects p ON p.id = ps.project_id WHERE {' AND '.join(where)}"
        return self.db.page("ps.*, p.name AS project_name", body, "p.name, ps.mcp_name", params, limit)

    def set_source_status(self, agent_id: str, source_id: int, status: str, checked_at: str, now: str) -> bool:
        with self.db.transaction() as conn:
            cursor = conn.execute(
                "UPDATE project_sources SET last_status = ?, last_checked_at = ?, updated_at = ? WHERE id = ?"
                " AND project_id IN (SELECT id FROM projects WHERE agent_id = ?)",
                (status, checked_at, now, source_id, agent_id),
            )
            return bool(cursor.rowcount > 0)
