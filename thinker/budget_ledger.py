"""The spend ledger: what each budget has spent, kept in SQLite so a restart forgets nothing.

`$ANNABELLE_HOME/data/budgets/<account>.db`, where the account is the agent whose budgets the spend counts
against (`budgets.account`, else the agent itself; a subagent's Thinker writes its parent's file: several
processes may share one, hence WAL and a busy timeout). Three tables:

- `spend`: one row per (scope, owner's day): tokens, USD of the priced calls, calls and unpriced calls. The scope
  is `agent` for everything the agent spent, `skill:<key>` for a skill's runs. A month is the sum of its days.
- `notices`: (limit, window) pairs the owner was told about: "notify once per window" holds across restarts.
- `skills`: the limits each skill last ran with, so `/cost-status` can show a skill's spend against its limit.

Each call's spend is one transaction (the agent's row and the skill's row move together). The schema changes
only by appended, named migrations recorded in `_migrations`. Days older than `KEEP_DAYS` are pruned at start.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from shared.private_files import private_dir, private_file
from shared.sqlite import immediate
from shared.sqlite import migrate as run_migrations

KEEP_DAYS = 400
"""Spend rows are kept this long (a year and a month: this month's and last year's figures stay readable)."""
AGENT_SCOPE = "agent"


def skill_scope(key: str) -> str:
    return f"skill:{key}"


@dataclass(frozen=True)
class Spend:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0
    calls: int = 0
    unpriced_calls: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class SkillSeen:
    key: str
    label: str
    max_tokens_per_run: int | None
    daily_tokens: int | None


Migration = Callable[[sqlite3.Connection], None]


def _m001_initial(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE spend (
            scope TEXT NOT NULL,
            day TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            usd REAL NOT NULL DEFAULT 0,
            calls INTEGER NOT NULL DEFAULT 0,
            unpriced_calls INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (scope, day)
        )"""
    )
    conn.execute(
        """CREATE TABLE notices (
            limit_key TEXT NOT NULL,
            window TEXT NOT NULL,
            sent_at TEXT NOT NULL,
            PRIMARY KEY (limit_key, window)
        )"""
    )
    conn.execute(
        """CREATE TABLE skills (
            key TEXT PRIMARY KEY,
            label TEXT NOT NULL,
            max_tokens_per_run INTEGER,
            daily_tokens INTEGER,
            last_day TEXT NOT NULL
        )"""
    )


MIGRATIONS: list[tuple[str, Migration]] = [("m001_initial", _m001_initial)]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Run the migrations not yet recorded, each in its own transaction with its record; the names run."""
    return run_migrations(conn, MIGRATIONS)


def ledger_path(data_dir: Path, account: str) -> Path:
    return data_dir / "budgets" / f"{account}.db"


class BudgetLedger:
    def __init__(self, path: Path) -> None:
        private_dir(path.parent)
        private_file(path)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, timeout=10.0, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        migrate(self._db)

    def close(self) -> None:
        self._db.close()

    def spent(self, scope: str, first_day: str, last_day: str | None = None) -> Spend:
        """The spend of `scope` from `first_day` to `last_day` (both included; one day when no last)."""
        row = self._db.execute(
            "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(usd), 0), "
            "COALESCE(SUM(calls), 0), COALESCE(SUM(unpriced_calls), 0) FROM spend "
            "WHERE scope = ? AND day >= ? AND day <= ?",
            (scope, first_day, last_day or first_day),
        ).fetchone()
        return Spend(int(row[0]), int(row[1]), float(row[2]), int(row[3]), int(row[4]))

    def month(self, scope: str, month: str) -> Spend:
        """The spend of `scope` in `month` (`YYYY-MM`)."""
        return self.spent(scope, f"{month}-01", f"{month}-31")

    def add(
        self, scopes: Iterable[str], day: str, prompt_tokens: int, completion_tokens: int, usd: float | None
    ) -> None:
        """Count one call in each scope's row of `day`, in one transaction; `usd` None: the price is unknown."""
        priced = usd is not None
        with immediate(self._db):
            for scope in scopes:
                self._db.execute(
                    "INSERT INTO spend (scope, day, prompt_tokens, completion_tokens, usd, calls, unpriced_calls) "
                    "VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (scope, day) DO UPDATE SET "
                    "prompt_tokens = prompt_tokens + excluded.prompt_tokens, "
                    "completion_tokens = completion_tokens + excluded.completion_tokens, "
                    "usd = usd + excluded.usd, calls = calls + 1, "
                    "unpriced_calls = unpriced_calls + excluded.unpriced_calls",
                    (scope, day, max(0, prompt_tokens), max(0, completion_tokens), usd or 0.0, 0 if priced else 1),
                )

    def claim_notice(self, limit_key: str, window: str, now: str) -> bool:
        """True the first time (limit, window) is claimed, ever: the owner is told once per window."""
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO notices (limit_key, window, sent_at) VALUES (?, ?, ?)", (limit_key, window, now)
        )
        return cursor.rowcount == 1

    def remember_skill(self, skill: SkillSeen, day: str) -> None:
        self._db.execute(
            "INSERT INTO skills (key, label, max_tokens_per_run, daily_tokens, last_day) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET label = excluded.label, max_tokens_per_run = "
            "excluded.max_tokens_per_run, daily_tokens = excluded.daily_tokens, last_day = excluded.last_day",
            (skill.key, skill.label, skill.max_tokens_per_run, skill.daily_tokens, day),
        )

    def skills_since(self, day: str) -> list[SkillSeen]:
        """The skills that ran with limits on or after `day`, by label."""
        rows = self._db.execute(
            "SELECT key, label, max_tokens_per_run, daily_tokens FROM skills WHERE last_day >= ? ORDER BY label",
            (day,),
        ).fetchall()
        return [SkillSeen(str(r[0]), str(r[1]), r[2], r[3]) for r in rows]

    def prune(self, today: str) -> int:
        """Forget spend and notices older than `KEEP_DAYS`; the number of spend rows removed."""
        cutoff = (date.fromisoformat(today) - timedelta(days=KEEP_DAYS)).isoformat()
        removed = self._db.execute("DELETE FROM spend WHERE day < ?", (cutoff,)).rowcount
        self._db.execute("DELETE FROM notices WHERE window < ?", (cutoff[:7],))
        return int(removed)


__all__ = [
    "AGENT_SCOPE",
    "KEEP_DAYS",
    "BudgetLedger",
    "SkillSeen",
    "Spend",
    "ledger_path",
    "migrate",
    "skill_scope",
]
