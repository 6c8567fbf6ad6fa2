"""Migrations: an empty database gets exactly the current schema; a file from the original TypeScript Memorizer
is adopted and brought forward with its data."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlean as sqlite3
import sqlite_vec

from memorizer_mcp.db.connection import Database, connect
from memorizer_mcp.db.migrations import MIGRATIONS, migrate

EXPECTED_COLUMNS = {
    "facts": [
        "id", "agent_id", "fact", "category", "source", "confidence", "created_at", "updated_at", "last_accessed_at",
        "source_type", "provenance", "valid_until", "superseded_by",
    ],
    "conversations": [
        "id", "agent_id", "session_id", "user_message", "agent_response", "tags", "created_at", "facts_extracted_at",
    ],
    "profiles": ["agent_id", "profile_data", "created_at", "updated_at"],
    "profile_history": ["id", "agent_id", "profile_data", "changed_at", "change_reason"],
    "skills": [
        "id", "agent_id", "name", "description", "enabled", "trigger_type", "trigger_config", "instructions",
        "required_tools", "max_steps", "notify_on_completion", "last_run_at", "last_run_status", "last_run_summary",
        "created_at", "updated_at", "execution_plan", "notify_interval_minutes", "last_notified_at",
        "consecutive_failures", "backoff_until", "last_error", "max_tokens_per_run", "daily_tokens",
    ],
    "contacts": ["id", "agent_id", "name", "email", "company", "role", "type", "notes", "created_at", "updated_at"],
    "projects": [
        "id", "agent_id", "name", "status", "type", "description", "primary_contact_id", "participants", "company",
        "priority", "created_at", "updated_at",
    ],
    "project_sources": [
        "id", "project_id", "mcp_name", "external_project_id", "external_project_name", "source_type", "last_status",
        "last_checked_at", "created_at", "updated_at",
    ],
    "fact_vectors": ["fact_id", "embedder_key", "vector", "created_at"],
    "fact_keys": ["key", "fact_id"],
    "_migrations": ["name", "applied_at"],
}  # fmt: skip


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def tables(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    return {row[0] for row in rows if not row[0].startswith("facts_fts_")}


def test_an_empty_database_migrates_to_exactly_the_expected_columns(tmp_path: Path) -> None:
    conn = connect(tmp_path / "memory.db")
    ran = migrate(conn)
    assert ran == [name for name, _ in MIGRATIONS]
    assert tables(conn) == {*EXPECTED_COLUMNS, "facts_fts"}
    for table, expected in EXPECTED_COLUMNS.items():
        assert columns(conn, table) == expected, table
    assert [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")] == ran


def test_migrating_twice_runs_nothing_the_second_time(tmp_path: Path) -> None:
    conn = connect(tmp_path / "memory.db")
    migrate(conn)
    assert migrate(conn) == []


def test_the_connection_uses_wal_a_busy_timeout_and_foreign_keys(tmp_path: Path) -> None:
    conn = connect(tmp_path / "memory.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")


def test_a_failing_migration_leaves_nothing_half_done(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memorizer_mcp.db import migrations

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, ("m999_broken", broken)])
    conn = connect(tmp_path / "memory.db")
    with pytest.raises(RuntimeError, match="boom"):
        migrations.migrate(conn)
    assert "half_done" not in tables(conn)
    assert "m999_broken" not in [row[0] for row in conn.execute("SELECT name FROM _migrations")]
    assert "m007_lookup_indexes" in [row[0] for row in conn.execute("SELECT name FROM _migrations")]


# The original TypeScript Memorizer's schema (reference section 5), as an early version of it left the file:
# agent_id defaulting to 'main', skills without execution_plan and the notification columns, no project_sources,
# the FTS5 index with its any-column update trigger, and a 768-d sqlite-vec table.
ORIGINAL_SCHEMA = """
CREATE TABLE facts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL DEFAULT 'main', fact TEXT NOT NULL,
    category TEXT NOT NULL, source TEXT, confidence REAL DEFAULT 1.0,
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now'))
);
CREATE INDEX idx_facts_agent ON facts(agent_id);
CREATE INDEX idx_facts_category ON facts(agent_id, category);
CREATE TABLE conversations (
    id TEXT PRIMARY KEY, agent_id TEXT NOT NULL DEFAULT 'main', session_id TEXT, user_message TEXT NOT NULL,
    agent_response TEXT NOT NULL, tags TEXT, created_at TEXT DEFAULT (datetime('now'))
);
CREATE TABLE profiles (
    agent_id TEXT PRIMARY KEY, profile_data TEXT NOT NULL,
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now'))
);
CREATE TABLE profile_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL, profile_data TEXT NOT NULL,
    changed_at TEXT DEFAULT (datetime('now')), change_reason TEXT
);
CREATE TABLE skills (
    id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL DEFAULT 'main', name TEXT NOT NULL,
    description TEXT, enabled INTEGER NOT NULL DEFAULT 1, trigger_type TEXT NOT NULL, trigger_config TEXT,
    instructions TEXT NOT NULL, required_tools TEXT, max_steps INTEGER DEFAULT 10,
    notify_on_completion INTEGER DEFAULT 1, last_run_at TEXT, last_run_status TEXT, last_run_summary TEXT,
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now'))
);
CREATE TABLE contacts (
    id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL DEFAULT 'main', name TEXT NOT NULL,
    email TEXT NOT NULL, company TEXT, role TEXT, type TEXT NOT NULL DEFAULT 'work', notes TEXT,
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now'))
);
CREATE TABLE projects (
    id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL DEFAULT 'main', name TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active', type TEXT NOT NULL DEFAULT 'work', description TEXT,
    primary_contact_id INTEGER, participants TEXT, company TEXT, priority TEXT,
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now')),
    FOREIGN KEY (primary_contact_id) REFERENCES contacts(id) ON DELETE SET NULL
);
CREATE VIRTUAL TABLE facts_fts USING fts5(fact, content=facts, content_rowid=id, tokenize='porter unicode61');
CREATE TRIGGER facts_fts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, fact) VALUES (new.id, new.fact);
END;
CREATE TRIGGER facts_fts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, fact) VALUES('delete', old.id, old.fact);
END;
CREATE TRIGGER facts_fts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, fact) VALUES('delete', old.id, old.fact);
    INSERT INTO facts_fts(rowid, fact) VALUES (new.id, new.fact);
END;
CREATE VIRTUAL TABLE vec_facts USING vec0(embedding float[768]);
"""

ORIGINAL_DATA = """
INSERT INTO facts (agent_id, fact, category, source) VALUES ('main', 'Prefers dark mode', 'preference', NULL);
INSERT INTO facts (agent_id, fact, category, source, confidence) VALUES ('hexa-puffs', 'Lives in London', 'background', 'conv_1', 0.9);
INSERT INTO conversations (id, agent_id, user_message, agent_response, tags) VALUES ('conv_1', 'main', 'I moved to London last year', 'Noted!', '["move"]');
INSERT INTO conversations (id, agent_id, user_message, agent_response) VALUES ('conv_2', 'main', 'What is the weather like in London today?', 'Sunny.');
INSERT INTO profiles (agent_id, profile_data) VALUES ('main', '{"user_info": {"name": "Sam"}}');
INSERT INTO profile_history (agent_id, profile_data, change_reason) VALUES ('main', '{}', 'first');
INSERT INTO skills (agent_id, name, trigger_type, trigger_config, instructions, required_tools)
    VALUES ('thinker', 'Morning Briefing', 'cron', '{"schedule": "0 6 * * *"}', 'Summarise the day', '["gmail_list_emails"]');
INSERT INTO contacts (agent_id, name, email) VALUES ('main', 'Ana', 'ana@example.com');
INSERT INTO projects (agent_id, name, primary_contact_id, participants) VALUES ('main', 'Garden', 1, '[1]');
"""


def make_original_database(path: Path) -> None:
    conn = sqlite3.connect(str(path))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.executescript(ORIGINAL_SCHEMA)
    conn.executescript(ORIGINAL_DATA)
    conn.execute("INSERT INTO vec_facts (rowid, embedding) VALUES (1, ?)", (bytes(768 * 4),))
    conn.commit()
    conn.close()


def test_a_database_from_the_original_is_migrated_with_its_data(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    make_original_database(path)
    conn = connect(path)
    migrate(conn)

    for table, expected in EXPECTED_COLUMNS.items():
        assert set(columns(conn, table)) == set(expected), table
    assert "vec_facts" not in tables(conn)
    facts = conn.execute(
        "SELECT agent_id, fact, category, source, confidence, source_type, provenance, valid_until FROM facts"
        " ORDER BY id"
    ).fetchall()
    # Nothing recorded who said the original's facts: untrusted, never the owner's word; all current. conv_1 is
    # another agent's conversation, so the London fact's source type is not known.
    assert [tuple(row) for row in facts] == [
        ("main", "Prefers dark mode", "preference", None, 1.0, "unknown", "untrusted", None),
        ("hexa-puffs", "Lives in London", "background", "conv_1", 0.9, "unknown", "untrusted", None),
    ]
    assert [tuple(r) for r in conn.execute("SELECT fact_id, key FROM fact_keys ORDER BY fact_id, key")] == [
        (1, "|prefer"),
        (2, "|residence"),
    ]
    assert conn.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 2
    assert conn.execute("SELECT profile_data FROM profiles").fetchone()[0] == '{"user_info": {"name": "Sam"}}'
    skill = conn.execute(
        "SELECT name, execution_plan, notify_interval_minutes, consecutive_failures FROM skills"
    ).fetchone()
    assert tuple(skill) == ("Morning Briefing", None, 0, 0)
    assert conn.execute("SELECT name FROM projects").fetchone()[0] == "Garden"
    # The full-text index was rebuilt and answers; new rows still reach it through the triggers.
    assert [row[0] for row in conn.execute("SELECT rowid FROM facts_fts WHERE facts_fts MATCH 'london'")] == [2]
    conn.execute("INSERT INTO facts (agent_id, fact, category) VALUES ('annabelle', 'Owns a bicycle', 'background')")
    assert conn.execute("SELECT COUNT(*) FROM facts_fts WHERE facts_fts MATCH 'bicycle'").fetchone()[0] == 1
    # Touching a timestamp no longer rewrites the index entry (the original's trigger fired on any column).
    trigger = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'facts_fts_au'").fetchone()[0]
    assert "UPDATE OF fact" in trigger


def test_the_original_database_then_serves_the_memorizer(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    make_original_database(path)
    db = Database.open(path)
    migrate(db.conn)
    from memorizer_mcp.facts import FactStore

    facts = FactStore(db)
    rows, total = facts.listing("main", None, 10)
    assert total == 1 and rows[0]["fact"] == "Prefers dark mode"
    # No vectors survive from the original (their model is unknown): every fact is waiting for a backfill.
    _, missing = facts.missing_vectors("hexa-puffs", "local/all-MiniLM-L6-v2/384", 10)
    assert missing == 1


def test_a_database_of_the_previous_version_gains_provenance_validity_and_claim_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memorizer_mcp.db import migrations

    conn = connect(tmp_path / "memory.db")
    with monkeypatch.context() as patch:
        patch.setattr(migrations, "MIGRATIONS", [(n, fn) for n, fn in MIGRATIONS if n < "m008"])
        migrate(conn)
    conn.executescript(
        """
        INSERT INTO conversations (id, agent_id, user_message, agent_response) VALUES ('c1', 'annabelle', 'x', 'y');
        INSERT INTO facts (agent_id, fact, category, source) VALUES ('annabelle', 'Lives in Berlin', 'background', 'c1');
        INSERT INTO facts (agent_id, fact, category, source) VALUES ('annabelle', 'Moved to Lisbon', 'background', NULL);
        INSERT INTO facts (agent_id, fact, category, source) VALUES ('annabelle', 'Likes green tea', 'preference', 'x');
        """
    )
    assert migrate(conn) == ["m008_fact_provenance_and_validity", "m009_skill_budgets"]
    rows = conn.execute("SELECT fact, source_type, provenance, valid_until, superseded_by FROM facts ORDER BY id")
    assert [tuple(row) for row in rows] == [
        ("Lives in Berlin", "conversation", "untrusted", None, None),
        ("Moved to Lisbon", "unknown", "untrusted", None, None),
        ("Likes green tea", "unknown", "untrusted", None, None),
    ]
    keys = conn.execute("SELECT fact_id, key FROM fact_keys ORDER BY fact_id").fetchall()
    assert [tuple(row) for row in keys] == [(1, "|residence"), (2, "|residence"), (3, "|like")]
    # The class is checked from now on: a row cannot claim a provenance outside the three.
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO facts (agent_id, fact, category, provenance) VALUES ('annabelle', 'x', 'pattern', 'admin')"
        )
