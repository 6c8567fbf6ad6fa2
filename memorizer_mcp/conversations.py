"""The conversations table: logged exchanges, their search, and which ones facts were extracted from."""

from __future__ import annotations

import json
import uuid
from typing import Any

from memorizer_mcp.db.columns import json_list
from memorizer_mcp.db.connection import Database, Row
from memorizer_mcp.fts import escape_like


def conversation_dict(row: Row, *, full: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": row["id"],
        "user_message": row["user_message"],
        "agent_response": row["agent_response"],
        "created_at": row["created_at"],
    }
    if full:
        out["session_id"] = row["session_id"]
        out["tags"] = json_list(row["tags"])
    return out


def new_conversation_id() -> str:
    return f"conv_{uuid.uuid4().hex}"


class ConversationStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def insert(
        self,
        agent_id: str,
        user_message: str,
        agent_response: str,
        *,
        session_id: str | None,
        tags: list[str] | None,
        now: str,
    ) -> str:
        conversation_id = new_conversation_id()
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO conversations (id, agent_id, session_id, user_message, agent_response, tags, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    conversation_id,
                    agent_id,
                    session_id,
                    user_message,
                    agent_response,
                    json.dumps(tags, ensure_ascii=False) if tags else None,
                    now,
                ),
            )
        return conversation_id

    def mark_extracted(self, conversation_id: str, now: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE conversations SET facts_extracted_at = ? WHERE id = ?", (now, conversation_id))

    def search(
        self, agent_id: str, query: str, limit: int, date_from: str | None, date_to: str | None
    ) -> tuple[list[Row], int]:
        """Whole-query substring match in either side of the exchange, optionally within dates; newest first."""
        pattern = f"%{escape_like(query)}%"
        where = "agent_id = ? AND (user_message LIKE ? ESCAPE '\\' OR agent_response LIKE ? ESCAPE '\\')"
        params: list[Any] = [agent_id, pattern, pattern]
        if date_from:
            where += " AND created_at >= ?"
            params.append(date_from)
        if date_to:
            where += " AND created_at <= ?"
            params.append(date_to)
        return self.db.page("*", f"FROM conversations WHERE {where}", "created_at DESC, rowid DESC", params, limit)

    def search_keywords(self, agent_id: str, patterns: list[str], limit: int) -> list[Row]:
        """Exchanges containing any of the LIKE `patterns`, newest first (retrieve_memories)."""
        if not patterns:
            return []
        condition = " OR ".join(
            "(user_message LIKE ? ESCAPE '\\' OR agent_response LIKE ? ESCAPE '\\')" for _ in patterns
        )
        params = [value for pattern in patterns for value in (pattern, pattern)]
        with self.db.reading() as conn:
            return list(
                conn.execute(
                    f"SELECT * FROM conversations WHERE agent_id = ? AND ({condition})"
                    " ORDER BY created_at DESC, rowid DESC LIMIT ?",
                    (agent_id, *params, limit),
                )
            )

    _UNPROCESSED = (
        "FROM conversations c WHERE c.agent_id = ? AND c.facts_extracted_at IS NULL"
        " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.source = c.id)"
    )

    def unprocessed(self, agent_id: str, limit: int) -> tuple[list[Row], int]:
        """Conversations no extraction has looked at (oldest first), and how many there are in all.

        A conversation counts as processed when it is marked, or (for databases from the original, which kept
        no mark) when a fact names it as its source.
        """
        return self.db.page("c.*", self._UNPROCESSED, "c.created_at ASC, c.rowid ASC", (agent_id,), limit)

    def recent(self, agent_id: str, limit: int) -> list[Row]:
        with self.db.reading() as conn:
            return list(
                conn.execute(
                    "SELECT * FROM conversations WHERE agent_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
                    (agent_id, limit),
                )
            )

    def stats(self, agent_id: str) -> dict[str, Any]:
        with self.db.reading() as conn:
            row = conn.execute(
                "SELECT COUNT(*) AS n, MIN(created_at) AS oldest, MAX(created_at) AS newest"
                " FROM conversations WHERE agent_id = ?",
                (agent_id,),
            ).fetchone()
        return {
            "conversation_count": row["n"],
            "oldest_conversation": row["oldest"],
            "newest_conversation": row["newest"],
        }
