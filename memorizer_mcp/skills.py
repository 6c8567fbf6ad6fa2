"""The skills table: scheduled and on-demand behaviours (cron, manual, event), with run and failure bookkeeping.

`trigger_config`, `required_tools` and `execution_plan` are JSON columns; booleans are 0/1. Cron expressions are
stored as given: the scheduler reads those without a zone in ANNABELLE_TIMEZONE when it runs them (the original
wrote the machine's zone into trigger_config at creation).
"""

from __future__ import annotations

import json
from typing import Any

from memorizer_mcp.db.connection import Database, Row
from memorizer_mcp.db.owned import owned_row, update_owned
from shared.contracts.memory import SKILL_DEFINITION_FIELDS, SKILL_JSON_FIELDS, SKILL_STATE_FIELDS

JSON_COLUMNS = SKILL_JSON_FIELDS
BOOL_COLUMNS = frozenset({"enabled", "notify_on_completion"})
UPDATABLE = (*SKILL_DEFINITION_FIELDS, *SKILL_STATE_FIELDS)


def _loads(raw: str | None, default: Any) -> Any:
    if raw is None or raw == "":
        return default
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return default


def skill_dict(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "agent_id": row["agent_id"],
        "name": row["name"],
        "description": row["description"],
        "enabled": bool(row["enabled"]),
        "trigger_type": row["trigger_type"],
        "trigger_config": _loads(row["trigger_config"], None),
        "instructions": row["instructions"],
        "required_tools": _loads(row["required_tools"], []),
        "execution_plan": _loads(row["execution_plan"], None),
        "max_steps": row["max_steps"],
        "notify_on_completion": bool(row["notify_on_completion"]),
        "notify_interval_minutes": row["notify_interval_minutes"] or 0,
        "max_tokens_per_run": row["max_tokens_per_run"],
        "daily_tokens": row["daily_tokens"],
        "last_run_at": row["last_run_at"],
        "last_run_status": row["last_run_status"],
        "last_run_summary": row["last_run_summary"],
        "last_notified_at": row["last_notified_at"],
        "consecutive_failures": row["consecutive_failures"] or 0,
        "backoff_until": row["backoff_until"],
        "last_error": row["last_error"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


# What a listing shows by default: enough to pick a skill and tell when it runs. A seeded playbook's instructions
# and plan run to thousands of characters, and a small model read a 14k-character listing to find one reminder's
# id (a 7k-token prompt); memory_get_skill, or a listing with detail "full", gives the rest. A playbook's trigger
# words and a seed's version are the hub's bookkeeping, not what a user asks about.
SUMMARY_FIELDS = (
    "id",
    "name",
    "description",
    "enabled",
    "trigger_type",
    "trigger_config",
    "last_run_at",
    "last_run_status",
)
_BOOKKEEPING = frozenset({"keywords", "seed_version"})


def skill_summary(row: Row, *, with_agent: bool) -> dict[str, Any]:
    full = skill_dict(row)
    summary = {field: full[field] for field in SUMMARY_FIELDS}
    if isinstance(config := summary["trigger_config"], dict):
        summary["trigger_config"] = {key: value for key, value in config.items() if key not in _BOOKKEEPING}
    if with_agent:
        summary["agent_id"] = full["agent_id"]
    return summary


def _check_columns(columns: Any) -> None:
    # Column names are put into SQL text, so only the known ones may ever get there.
    unknown = set(columns) - set(UPDATABLE)
    if unknown:
        raise ValueError(f"not skill columns: {sorted(unknown)}")


def _column_value(column: str, value: Any) -> Any:
    if column in JSON_COLUMNS:
        return None if value is None else json.dumps(value, ensure_ascii=False)
    if column in BOOL_COLUMNS:
        return 1 if value else 0
    return value


class SkillStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, agent_id: str, fields: dict[str, Any], now: str) -> tuple[int, bool]:
        """Insert a skill; `(id, False)`, or `(existing id, True)` when the agent already has one of that name."""
        _check_columns(fields)
        with self.db.transaction() as conn:
            existing = conn.execute(
                "SELECT id FROM skills WHERE agent_id = ? AND name = ? ORDER BY id LIMIT 1", (agent_id, fields["name"])
            ).fetchone()
            if existing is not None:
                return existing["id"], True
            columns = ["agent_id", *fields, "created_at", "updated_at"]
            values = [agent_id, *(_column_value(c, v) for c, v in fields.items()), now, now]
            cursor = conn.execute(
                f"INSERT INTO skills ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values
            )
            return int(cursor.lastrowid or 0), False

    def listing(self, agent_id: str | None, enabled: bool | None, trigger_type: str | None) -> list[Row]:
        where: list[str] = ["1 = 1"]
        params: list[Any] = []
        if agent_id is not None:
            where.append("agent_id = ?")
            params.append(agent_id)
        if enabled is not None:
            where.append("enabled = ?")
            params.append(1 if enabled else 0)
        if trigger_type is not None:
            where.append("trigger_type = ?")
            params.append(trigger_type)
        with self.db.reading() as conn:
            return list(
                conn.execute(
                    f"SELECT * FROM skills WHERE {' AND '.join(where)} ORDER BY created_at DESC, id DESC", params
                )
            )

    def get(self, agent_id: str, skill_id: int) -> Row | None:
        with self.db.reading() as conn:
            return owned_row(conn, "skills", skill_id, agent_id)

    def name_taken(self, agent_id: str, name: str, other_than: int) -> int | None:
        with self.db.reading() as conn:
            row = conn.execute(
                "SELECT id FROM skills WHERE agent_id = ? AND name = ? AND id != ? LIMIT 1",
                (agent_id, name, other_than),
            ).fetchone()
            return None if row is None else int(row["id"])

    def update(self, agent_id: str, skill_id: int, changes: dict[str, Any], now: str) -> bool:
        _check_columns(changes)
        values = {column: _column_value(column, value) for column, value in changes.items()}
        with self.db.transaction() as conn:
            return update_owned(conn, "skills", skill_id, agent_id, values, now)

    def delete(self, agent_id: str, skill_id: int) -> Row | None:
        with self.db.transaction() as conn:
            row = owned_row(conn, "skills", skill_id, agent_id)
            if row is not None:
                conn.execute("DELETE FROM skills WHERE id = ? AND agent_id = ?", (skill_id, agent_id))
            return row
