"""The schema as ordered, named migrations (the simonw/llm pattern).

Each `@migration` function runs once, inside one transaction that also records its name in `_migrations`; a
schema change is a new function at the end of this file, never an edit to one that has shipped.

`m001_initial` and `m002_original_additions` describe the tables the original TypeScript Memorizer created,
written with `IF NOT EXISTS` / "add the column if it is missing", so a `memory.db` from the original (which has
those tables but no `_migrations`) is adopted as is and brought forward with its data. Later migrations are
Annabelle's own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import sqlean as sqlite3

from memorizer_mcp import claims
from memorizer_mcp.db.connection import Connection
from shared.sqlite import migrate as run_migrations

log = logging.getLogger(__name__)

Migration = Callable[[Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append((fn.__name__, fn))
    return fn


def _columns(conn: Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _run_script(conn: Connection, script: str) -> None:
    """Run several statements inside the current transaction.

    `executescript` would first COMMIT the migration's transaction, so statements are split here instead
    (`complete_statement` keeps a trigger's `BEGIN ...; END;` body in one piece).
    """
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                conn.execute(pending)
            pending = ""
    if pending.strip(" \n;"):
        raise ValueError(f"incomplete SQL statement in migration: {pending[:80]!r}")


def _add_column(conn: Connection, table: str, column: str, definition: str) -> None:
    if column not in _columns(conn, table):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")


@migration
def m001_initial(conn: Connection) -> None:
    # agent_id has no default here (the original's was 'main'): every write names its agent.
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_id TEXT NOT NULL,
            fact TEXT NOT NULL,
            category TEXT NOT NULL,
            source TEXT,
            confidence REAL DEFAULT 1.0,
            created_at TEXT DEFAULT (datetime('now')),
            updated_at TEXT DEFAULT (datetime('now')),
            last_accessed_at TEXT DEFAULT (datetime('now'))
        );
        CREATE INDEX IF NOT EXISTS idx_facts_agent ON facts(agent_id);
        CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(agent_id, category);

        CREATE TABLE IF NOT EXISTS conversations (
            id TEXT PRIMARY KEY,
            agent_id TEXT NOT NULL,
            session_id TEXT,
            user_message TEXT NOT NULL,
            agent_response TEXT NOT NULL,
            tags TEXT,
            created_at TEXT DEFAULT (datetime('now'))
        );
        CREATE INDEX IF NOT EXISTS idx_conversations_agent ON conversations(agent_id);
        CREATE INDEX IF NOT EXISTS idx_conversations_session ON conversations(session_id);
        CREATE INDEX IF NOT EXISTS idx_conversations_date ON conversations(created_at);

        CREATE TABLE IF NOT EXISTS profiles (
            agent_id TEXT PRIMARY KEY,
            profile_data TEXT NOT NULL,
            created_at TEXT DEFAULT (datetime('now')),
            updated_at TEXT DEFAULT (datetime('now'))
        );

        CREATE TABLE IF NOT EXISTS profile_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_id TEXT NOT NULL,
            profile_data TEXT NOT NULL,
            changed_at TEXT DEFAULT (datetime('now')),
            change_reason TEXT
        );
        CREATE INDEX IF NOT EXISTS idx_profile_history_agent ON profile_history(agent_id);

        CREATE TABLE IF NOT EXISTS skills (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_id TEXT NOT NULL,
            name TEXT NOT NULL,
            description TEXT,
            enabled INTEGER NOT NULL DEFAULT 1,
            trigger_type TEXT NOT NULL,
            trigger_config TEXT,
            instructions TEXT NOT NULL,
            required_tools TEXT,
            max_steps INTEGER DEFAULT 10,
            notify_on_completion INTEGER DEFAULT 1,
            last_run_at TEXT,
            last_run_status TEXT,
            last_run_summary TEXT,
            created_at TEXT DEFAULT (datetime('now')),
            updated_at TEXT DEFAULT (datetime('now'))
        );
        CREATE INDEX IF NOT EXISTS idx_skills_agent ON skills(agent_id);
        CREATE INDEX IF NOT EXISTS idx_skills_enabled ON skills(agent_id, enabled);

        CREATE TABLE IF NOT EXISTS contacts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_id TEXT NOT NULL,
            name TEXT NOT NULL,
            email TEXT NOT NULL,
            company TEXT,
            role TEXT,
            type TEXT NOT NULL DEFAULT 'work',
            notes TEXT,
            created_at TEXT DEFAULT (datetime('now')),
            updated_at TEXT DEFAULT (datetime('now'))
        );
        CREATE INDEX IF NOT EXISTS idx_contacts_agent ON contacts(agent_id);
        CREATE INDEX IF NOT EXISTS idx_contacts_email ON contacts(agent_id, email);
        CREATE INDEX IF NOT EXISTS idx_contacts_company ON contacts(agent_id, company);

        CREATE TABLE IF NOT EXISTS projects (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_id TEXT NOT NULL,
            name TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            type TEXT NOT NULL DEFAULT 'work',
            description TEXT,
            primary_contact_id INTEGER,
            participants TEXT,
            company TEXT,
            priority TEXT,
            created_at TEXT DEFAULT (datetime('now')),
            updated_at TEXT DEFAULT (datetime('now')),
            FOREIGN KEY (primary_contact_id) REFERENCES contacts(id) ON DELETE SET NULL
        );
        CREATE INDEX IF NOT EXISTS idx_projects_agent ON projects(agent_id);
        CREATE INDEX IF NOT EXISTS idx_projects_status ON projects(agent_id, status);
        CREATE INDEX IF NOT EXISTS idx_projects_contact ON projects(primary_contact_id);

        CREATE TABLE IF NOT EXISTS project_sources (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            project_id INTEGER NOT NULL,
            mcp_name TEXT NOT NULL,
            external_project_id TEXT,
            external_project_name TEXT,
            source_type TEXT NOT NULL DEFAULT 'auto',
            last_status TEXT DEFAULT 'unknown',
            last_checked_at TEXT,
            created_at TEXT DEFAULT (datetime('now')),
            updated_at TEXT DEFAULT (datetime('now')),
            FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE,
            UNIQUE(project_id, mcp_name)
        );
        CREATE INDEX IF NOT EXISTS idx_project_sources_project ON project_sources(project_id);
        CREATE INDEX IF NOT EXISTS idx_project_sources_mcp ON project_sources(mcp_name);
        """,
    )


@migration
def m002_original_additions(conn: Connection) -> None:
    """Columns the original added over its life; a database from any of its versions may lack some."""
    _add_column(conn, "facts", "last_accessed_at", "TEXT DEFAULT NULL")
    _add_column(conn, "skills", "execution_plan", "TEXT DEFAULT NULL")
    _add_column(conn, "skills", "notify_interval_minutes", "INTEGER DEFAULT 0")
    _add_column(conn, "skills", "last_notified_at", "TEXT DEFAULT NULL")


@migration
def m003_facts_fts(conn: Connection) -> None:
    """Full-text index over facts.fact: external content (no copy of the text), kept in sync by triggers."""
    # The original's update trigger fired on any column, so every "touch" of last_accessed_at rewrote the
    # index entry: the triggers are replaced by ones that fire only when the text changes.
    for trigger in ("facts_fts_ai", "facts_fts_ad", "facts_fts_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    _run_script(
        conn,
        """
        CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(
            fact, content=facts, content_rowid=id, tokenize='porter unicode61'
        );
        CREATE TRIGGER IF NOT EXISTS facts_fts_ai AFTER INSERT ON facts BEGIN
            INSERT INTO facts_fts(rowid, fact) VALUES (new.id, new.fact);
        END;
        CREATE TRIGGER IF NOT EXISTS facts_fts_ad AFTER DELETE ON facts BEGIN
            INSERT INTO facts_fts(facts_fts, rowid, fact) VALUES ('delete', old.id, old.fact);
        END;
        CREATE TRIGGER IF NOT EXISTS facts_fts_au AFTER UPDATE OF fact ON facts BEGIN
            INSERT INTO facts_fts(facts_fts, rowid, fact) VALUES ('delete', old.id, old.fact);
            INSERT INTO facts_fts(rowid, fact) VALUES (new.id, new.fact);
        END;
        """,
    )
    # An original database may already have the index, possibly out of step with facts: rebuild it once.
    conn.execute("INSERT INTO facts_fts(facts_fts) VALUES ('rebuild')")


@migration
def m004_fact_vectors(conn: Connection) -> None:
    """Vectors per (fact, embedder key): switching provider or model never mixes vectors of different spaces.

    The original's `vec_facts` (a sqlite-vec table of 768-d vectors from whichever provider was configured) is
    dropped: nothing records which model made its vectors, so they cannot be trusted; `backfill_embeddings`
    re-embeds those facts with the current embedder.
    """
    conn.execute("DROP TABLE IF EXISTS vec_facts")
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS fact_vectors (
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            embedder_key TEXT NOT NULL,
            vector BLOB NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (fact_id, embedder_key)
        );
        CREATE INDEX IF NOT EXISTS idx_fact_vectors_key ON fact_vectors(embedder_key);
        """,
    )


@migration
def m005_skill_failure_state(conn: Connection) -> None:
    """Failure bookkeeping for the scheduler's graduated backoff (the original kept it in memory only)."""
    _add_column(conn, "skills", "consecutive_failures", "INTEGER NOT NULL DEFAULT 0")
    _add_column(conn, "skills", "backoff_until", "TEXT DEFAULT NULL")
    _add_column(conn, "skills", "last_error", "TEXT DEFAULT NULL")


@migration
def m006_conversation_extraction_marker(conn: Connection) -> None:
    """When facts were extracted from a conversation, so a backfill never asks the model about it twice.

    The original inferred "processed" from facts.source, so a conversation without facts was re-sent forever.
    """
    _add_column(conn, "conversations", "facts_extracted_at", "TEXT DEFAULT NULL")


@migration
def m007_lookup_indexes(conn: Connection) -> None:
    _run_script(
        conn,
        """
        CREATE INDEX IF NOT EXISTS idx_facts_exact ON facts(agent_id, category, fact);
        CREATE INDEX IF NOT EXISTS idx_facts_source ON facts(source);
        CREATE INDEX IF NOT EXISTS idx_facts_created ON facts(agent_id, created_at);
        CREATE INDEX IF NOT EXISTS idx_conversations_agent_date ON conversations(agent_id, created_at);
        CREATE INDEX IF NOT EXISTS idx_skills_name ON skills(agent_id, name);
        CREATE INDEX IF NOT EXISTS idx_projects_name ON projects(agent_id, name);
        """,
    )


@migration
def m008_fact_provenance_and_validity(conn: Connection) -> None:
    """Where each fact came from, how far it is trusted, and when it stopped being true.

    - `source_type`: owner, conversation, email, web, file, tool, import or unknown. Rows from before are
      `conversation` when their `source` names one of the agent's conversations (extraction wrote them), else
      `unknown`.
    - `provenance`: owner, system or untrusted. Nothing recorded who said an older fact, so every existing row is
      `untrusted`: never treated as the owner's word; the owner restating it raises it (a merge).
    - `valid_until` / `superseded_by`: set when a later fact replaces this one (the fact is kept as history).
    - `fact_keys`: the `subject|slot` keys of each fact's claims (claims.py), so facts about the same attribute
      find each other without a vector. Filled here for existing rows.
    """
    _add_column(conn, "facts", "source_type", "TEXT NOT NULL DEFAULT 'unknown'")
    _add_column(
        conn,
        "facts",
        "provenance",
        "TEXT NOT NULL DEFAULT 'untrusted' CHECK (provenance IN ('owner', 'system', 'untrusted'))",
    )
    _add_column(conn, "facts", "valid_until", "TEXT DEFAULT NULL")
    _add_column(conn, "facts", "superseded_by", "INTEGER DEFAULT NULL REFERENCES facts(id) ON DELETE SET NULL")
    conn.execute(
        "UPDATE facts SET source_type = 'conversation' WHERE source IS NOT NULL AND EXISTS"
        " (SELECT 1 FROM conversations c WHERE c.id = facts.source AND c.agent_id = facts.agent_id)"
    )
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS fact_keys (
            key TEXT NOT NULL,
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            PRIMARY KEY (key, fact_id)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS idx_fact_keys_fact ON fact_keys(fact_id);
        CREATE INDEX IF NOT EXISTS idx_facts_current ON facts(agent_id, valid_until);
        CREATE INDEX IF NOT EXISTS idx_facts_superseded_by ON facts(superseded_by);
        """,
    )
    rows = conn.execute("SELECT id, fact FROM facts").fetchall()
    conn.executemany(
        "INSERT OR IGNORE INTO fact_keys (key, fact_id) VALUES (?, ?)",
        [(key, row[0]) for row in rows for key in claims.keys(claims.parse(row[1]))],
    )


@migration
def m009_skill_budgets(conn: Connection) -> None:
    """A skill's token budgets, checked by the Thinker before each model call (0 or NULL: no limit)."""
    _add_column(conn, "skills", "max_tokens_per_run", "INTEGER DEFAULT NULL")
    _add_column(conn, "skills", "daily_tokens", "INTEGER DEFAULT NULL")


def migrate(conn: Connection) -> list[str]:
    """Run every migration not yet recorded, in order; returns the names run now."""
    return run_migrations(conn, MIGRATIONS)
