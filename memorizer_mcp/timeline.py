"""query_timeline: what happened between two moments, across every table, as one list of events.

Sources and their events: facts (created, updated, superseded: when a later fact replaced it), conversations
(created), profile_changes (changed),
skills (created, executed), contacts (created, updated), projects (created, updated). "Updated" means
updated_at falls in the range and differs from created_at. An optional keyword narrows each source by its main
text columns. Events come newest first; `total_count` counts them before the limit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memorizer_mcp.db.columns import json_list
from memorizer_mcp.db.connection import Database, Row
from memorizer_mcp.fts import escape_like
from shared.text import shorten

PREVIEW = 300


@dataclass(frozen=True)
class EventQuery:
    source: str
    event_type: str
    table: str
    time_column: str
    search_columns: tuple[str, ...]
    summary: Callable[[Row], str]
    details: Callable[[Row], dict[str, Any]]
    updated_only: bool = False


QUERIES: tuple[EventQuery, ...] = (
    EventQuery(
        "facts", "created", "facts", "created_at", ("fact",),
        lambda r: f'Learned: "{shorten(r["fact"] or "", 120, "...")}" ({r["category"]})',
        lambda r: {"fact_id": r["id"], "fact": r["fact"], "category": r["category"], "confidence": r["confidence"],
                   "source_conversation": r["source"], "source": r["source"], "source_type": r["source_type"],
                   "provenance": r["provenance"], "valid_until": r["valid_until"], "superseded_by": r["superseded_by"]},
    ),
    EventQuery(
        "facts", "superseded", "facts", "valid_until", ("fact",),
        lambda r: f'No longer true: "{shorten(r["fact"] or "", 120, "...")}" (replaced by fact {r["superseded_by"]})',
        lambda r: {"fact_id": r["id"], "fact": r["fact"], "category": r["category"], "valid_until": r["valid_until"],
                   "superseded_by": r["superseded_by"]},
    ),
    EventQuery(
        "facts", "updated", "facts", "updated_at", ("fact",),
        lambda r: f'Updated fact: "{shorten(r["fact"] or "", 120, "...")}" ({r["category"]})',
        lambda r: {"fact_id": r["id"], "fact": r["fact"], "category": r["category"]},
        updated_only=True,
    ),
    EventQuery(
        "conversations", "created", "conversations", "created_at", ("user_message", "agent_response"),
        lambda r: f'Conversation: "{shorten(r["user_message"] or "", 150, "...")}"',
        lambda r: {"conversation_id": r["id"], "session_id": r["session_id"],
                   "user_message_preview": shorten(r["user_message"] or "", PREVIEW, "..."),
                   "response_preview": shorten(r["agent_response"] or "", PREVIEW, "..."), "tags": json_list(r["tags"])},
    ),
    EventQuery(
        "profile_changes", "changed", "profile_history", "changed_at", ("change_reason",),
        lambda r: f"Profile updated: {r['change_reason'] or 'no reason given'}",
        lambda r: {"history_id": r["id"], "change_reason": r["change_reason"]},
    ),
    EventQuery(
        "skills", "created", "skills", "created_at", ("name", "description"),
        lambda r: f'Skill "{r["name"]}" created ({r["trigger_type"]})',
        lambda r: {"skill_id": r["id"], "name": r["name"], "description": r["description"],
                   "trigger_type": r["trigger_type"]},
    ),
    EventQuery(
        "skills", "executed", "skills", "last_run_at", ("name", "description"),
        lambda r: f'Skill "{r["name"]}" ran: {r["last_run_status"] or "unknown"}',
        lambda r: {"skill_id": r["id"], "name": r["name"], "status": r["last_run_status"],
                   "summary": r["last_run_summary"]},
    ),
    EventQuery(
        "contacts", "created", "contacts", "created_at", ("name", "email", "company"),
        lambda r: f"New contact: {r['name']} ({r['email']})",
        lambda r: {"contact_id": r["id"], "name": r["name"], "email": r["email"], "company": r["company"],
                   "role": r["role"], "type": r["type"]},
    ),
    EventQuery(
        "contacts", "updated", "contacts", "updated_at", ("name", "email", "company"),
        lambda r: f"Contact updated: {r['name']} ({r['email']})",
        lambda r: {"contact_id": r["id"], "name": r["name"], "email": r["email"], "company": r["company"]},
        updated_only=True,
    ),
    EventQuery(
        "projects", "created", "projects", "created_at", ("name", "description", "company"),
        lambda r: f'Project "{r["name"]}" created ({r["status"]})',
        lambda r: {"project_id": r["id"], "name": r["name"], "status": r["status"], "type": r["type"],
                   "company": r["company"]},
    ),
    EventQuery(
        "projects", "updated", "projects", "updated_at", ("name", "description", "company"),
        lambda r: f'Project "{r["name"]}" updated ({r["status"]})',
        lambda r: {"project_id": r["id"], "name": r["name"], "status": r["status"], "priority": r["priority"]},
        updated_only=True,
    ),
)  # fmt: skip


class Timeline:
    def __init__(self, db: Database) -> None:
        self.db = db

    def query(
        self, agent_id: str, date_from: str, date_to: str, sources: Sequence[str], keyword: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], int]:
        events: list[dict[str, Any]] = []
        total = 0
        with self.db.reading() as conn:
            for spec in QUERIES:
                if spec.source not in sources:
                    continue
                where = f"agent_id = ? AND {spec.time_column} BETWEEN ? AND ?"
                params: list[Any] = [agent_id, date_from, date_to]
                if spec.updated_only:
                    where += " AND updated_at != created_at"
                if keyword:
                    pattern = f"%{escape_like(keyword)}%"
                    where += " AND (" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in spec.search_columns) + ")"
                    params += [pattern] * len(spec.search_columns)
                total += conn.execute(f"SELECT COUNT(*) FROM {spec.table} WHERE {where}", params).fetchone()[0]
                # Each source gives at most `limit` newest events: the merged list needs no more.
                rows = conn.execute(
                    f"SELECT * FROM {spec.table} WHERE {where} ORDER BY {spec.time_column} DESC LIMIT ?",
                    (*params, limit),
                )
                for row in rows:
                    events.append(
                        {
                            "timestamp": row[spec.time_column],
                            "source": spec.source,
                            "event_type": spec.event_type,
                            "summary": spec.summary(row),
                            "details": spec.details(row),
                        }
                    )
        events.sort(key=lambda event: event["timestamp"] or "", reverse=True)
        return events[:limit], total
