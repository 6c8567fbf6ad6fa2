"""The facts table, its full-text index and its vectors: every SQL statement about facts lives here.

Every method takes the agent id and every statement filters on it: one agent can neither read nor change
another's facts, including by id (the original's delete_fact and update_fact ignored the agent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memorizer_mcp import dedup
from memorizer_mcp.db.connection import Database, Row
from memorizer_mcp.fts import fts_query

SIMILAR_CANDIDATES = 200
"""Most facts the similarity check compares a new fact with (the best full-text matches)."""
COMMON_KEYWORD_FACTS = 500
"""A keyword found in more facts than this does not by itself make a fact a similarity candidate."""
MAX_KEYWORDS = 32


@dataclass
class Added:
    fact_id: int
    created: bool
    similar: list[tuple[int, str, float]] = field(default_factory=list)


def fact_dict(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "fact": row["fact"],
        "category": row["category"],
        "confidence": row["confidence"],
        "source": row["source"],
        "created_at": row["created_at"],
    }


def vector_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


class FactStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- writes ------------------------------------------------------------------------------------------------

    def add(
        self,
        agent_id: str,
        text: str,
        category: str,
        *,
        source: str | None,
        confidence: float,
        now: str,
        threshold: float,
        created_at: str | None = None,
    ) -> Added:
        """Insert a fact, or touch the identical one (same agent, text and category) and return its id.

        A new fact also gets the list of same-category facts whose keyword overlap reaches `threshold`.
        """
        with self.db.transaction() as conn:
            existing = conn.execute(
                "SELECT id FROM facts WHERE agent_id = ? AND category = ? AND fact = ? ORDER BY id LIMIT 1",
                (agent_id, category, text),
            ).fetchone()
            if existing is not None:
                conn.execute(
                    "UPDATE facts SET updated_at = ?, last_accessed_at = ? WHERE id = ?", (now, now, existing["id"])
                )
                return Added(existing["id"], created=False)
            similar = dedup.similar(text, self._candidates(agent_id, category, text), threshold)
            cursor = conn.execute(
                "INSERT INTO facts (agent_id, fact, category, source, confidence, created_at, updated_at,"
                " last_accessed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (agent_id, text, category, source, confidence, created_at or now, now, now),
            )
            return Added(int(cursor.lastrowid or 0), created=True, similar=similar)

    def _candidates(self, agent_id: str, category: str, text: str) -> list[tuple[int, str]]:
        """Same-category facts that may reach the overlap threshold, found through the full-text index.

        A similar fact shares at least one keyword, so the candidates are the facts sharing any keyword that is
        not common; when every keyword is common (in more than COMMON_KEYWORD_FACTS facts), the facts holding all
        of them. Below that many facts this is every fact sharing a keyword, as in the original; above it, the
        ranking of a word found in tens of thousands of facts is skipped, which kept a store at 100k facts from
        taking 30 ms. The overlap rule itself is then applied exactly (dedup.similar).
        """
        words = sorted(dedup.keywords(text))[:MAX_KEYWORDS]
        rare: list[str] = []
        common: list[str] = []
        for word in words:
            query = fts_query(word)
            if query is None:
                continue
            hits = self.db.conn.execute(
                "SELECT COUNT(*) FROM (SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? LIMIT ?)",
                (query, COMMON_KEYWORD_FACTS + 1),
            ).fetchone()[0]
            (common if hits > COMMON_KEYWORD_FACTS else rare).append(query)
        if rare:
            match = " OR ".join(rare)
        elif common:
            match = " AND ".join(common)
        else:
            return []
        rows = self.db.conn.execute(
            "SELECT f.id, f.fact FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
            " WHERE facts_fts MATCH ? AND f.agent_id = ? AND f.category = ? ORDER BY facts_fts.rank LIMIT ?",
            (match, agent_id, category, SIMILAR_CANDIDATES),
        )
        return [(row["id"], row["fact"]) for row in rows]

    def delete(self, agent_id: str, fact_id: int) -> Row | None:
        """Delete one fact of the agent (its vectors go with it); the deleted row, or None if there was none."""
        with self.db.transaction() as conn:
            row = self._get(agent_id, fact_id)
            if row is not None:
                conn.execute("DELETE FROM facts WHERE id = ? AND agent_id = ?", (fact_id, agent_id))
            return row

    def update(self, agent_id: str, fact_id: int, text: str, category: str | None, now: str) -> Row | None:
        """Replace text (and category); the old row, or None if the agent has no such fact.

        Every stored vector of the fact is dropped: they describe the old text, whichever model made them.
        """
        with self.db.transaction() as conn:
            old = self._get(agent_id, fact_id)
            if old is None:
                return None
            conn.execute(
                "UPDATE facts SET fact = ?, category = ?, updated_at = ?, last_accessed_at = ? WHERE id = ? AND agent_id = ?",
                (text, category or old["category"], now, now, fact_id, agent_id),
            )
            if text != old["fact"]:
                conn.execute("DELETE FROM fact_vectors WHERE fact_id = ?", (fact_id,))
            return old

    def apply_plan(
        self, agent_id: str, updates: dict[int, str], deletes: set[int], now: str
    ) -> tuple[list[int], list[int]]:
        """Set new texts and delete facts of the agent in one transaction; the ids actually updated and deleted.

        Facts whose text changes lose their stored vectors (they describe the old text).
        """
        updated, deleted = [], []
        with self.db.transaction() as conn:
            for fact_id, text in updates.items():
                changed = conn.execute(
                    "UPDATE facts SET fact = ?, updated_at = ? WHERE id = ? AND agent_id = ? AND fact != ?",
                    (text, now, fact_id, agent_id, text),
                ).rowcount
                if changed:
                    conn.execute("DELETE FROM fact_vectors WHERE fact_id = ?", (fact_id,))
                    updated.append(fact_id)
            for fact_id in sorted(deletes):
                if conn.execute("DELETE FROM facts WHERE id = ? AND agent_id = ?", (fact_id, agent_id)).rowcount:
                    deleted.append(fact_id)
        return updated, deleted

    def store_vectors(self, key: str, items: list[tuple[int, str, np.ndarray]], now: str) -> list[int]:
        """Save `(fact id, the text embedded, vector)`; the ids saved.

        A vector is saved only if its fact still exists with that text: an embedding can finish after the fact
        was deleted or rewritten, and must then not come back as a stale vector.
        """
        saved = []
        with self.db.transaction() as conn:
            for fact_id, text, vector in items:
                cursor = conn.execute(
                    "INSERT OR REPLACE INTO fact_vectors (fact_id, embedder_key, vector, created_at)"
                    " SELECT id, ?, ?, ? FROM facts WHERE id = ? AND fact = ?",
                    (key, vector_blob(vector), now, fact_id, text),
                )
                if cursor.rowcount:
                    saved.append(fact_id)
        return saved

    def mark_accessed(self, fact_ids: list[int], now: str) -> None:
        if not fact_ids:
            return
        with self.db.transaction() as conn:
            conn.executemany("UPDATE facts SET last_accessed_at = ? WHERE id = ?", [(now, i) for i in fact_ids])

    # -- reads -------------------------------------------------------------------------------------------------

    def _get(self, agent_id: str, fact_id: int) -> Row | None:
        row: Row | None = self.db.conn.execute(
            "SELECT * FROM facts WHERE id = ? AND agent_id = ?", (fact_id, agent_id)
        ).fetchone()
        return row

    def get(self, agent_id: str, fact_id: int) -> Row | None:
        with self.db.reading():
            return self._get(agent_id, fact_id)

    def listing(self, agent_id: str, category: str | None, limit: int, offset: int = 0) -> tuple[list[Row], int]:
        where, params = "agent_id = ?", [agent_id]
        if category:
            where += " AND category = ?"
            params.append(category)
        with self.db.reading() as conn:
            rows = conn.execute(
                f"SELECT * FROM facts WHERE {where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            total = conn.execute(f"SELECT COUNT(*) FROM facts WHERE {where}", params).fetchone()[0]
        return rows, total

    def oldest(self, agent_id: str, category: str, limit: int) -> list[Row]:
        with self.db.reading() as conn:
            return list(
                conn.execute(
                    "SELECT * FROM facts WHERE agent_id = ? AND category = ? ORDER BY created_at ASC, id ASC LIMIT ?",
                    (agent_id, category, limit),
                )
            )

    def by_ids(self, agent_id: str, fact_ids: list[int]) -> dict[int, Row]:
        if not fact_ids:
            return {}
        marks = ",".join("?" * len(fact_ids))
        with self.db.reading() as conn:
            rows = conn.execute(f"SELECT * FROM facts WHERE agent_id = ? AND id IN ({marks})", (agent_id, *fact_ids))
            return {row["id"]: row for row in rows}

    def text_scores(self, agent_id: str, text: str, limit: int) -> dict[int, float]:
        """BM25 relevance (higher is better) of the agent's facts matching any token of `text`."""
        query = fts_query(text)
        if query is None:
            return {}
        with self.db.reading() as conn:
            rows = conn.execute(
                "SELECT f.id, -facts_fts.rank AS score FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
                " WHERE facts_fts MATCH ? AND f.agent_id = ? ORDER BY facts_fts.rank LIMIT ?",
                (query, agent_id, limit),
            )
            return {row["id"]: float(row["score"]) for row in rows}

    def like_ids(self, agent_id: str, patterns: list[str], limit: int) -> list[int]:
        """The last resort: substring matches, most confident and most recently used first."""
        if not patterns:
            return []
        condition = " OR ".join("fact LIKE ? ESCAPE '\\'" for _ in patterns)
        with self.db.reading() as conn:
            rows = conn.execute(
                f"SELECT id FROM facts WHERE agent_id = ? AND ({condition})"
                " ORDER BY confidence DESC, COALESCE(last_accessed_at, created_at) DESC, created_at DESC, id DESC"
                " LIMIT ?",
                (agent_id, *patterns, limit),
            )
            return [row["id"] for row in rows]

    def load_vectors(self, key: str, agent_id: str, dimension: int) -> tuple[np.ndarray, np.ndarray]:
        """Every stored vector of the agent's facts for `key` (rows of another length are skipped)."""
        with self.db.reading() as conn:
            rows = conn.execute(
                "SELECT v.fact_id, v.vector FROM fact_vectors v JOIN facts f ON f.id = v.fact_id"
                " WHERE v.embedder_key = ? AND f.agent_id = ?",
                (key, agent_id),
            ).fetchall()
        width = dimension * 4
        good = [row for row in rows if len(row["vector"]) == width]
        ids = np.fromiter((row["fact_id"] for row in good), dtype=np.int64, count=len(good))
        vectors = np.frombuffer(b"".join(row["vector"] for row in good), dtype="<f4").reshape(len(good), dimension)
        return ids, vectors.astype(np.float32, copy=False)

    def missing_vectors(self, agent_id: str, key: str, limit: int) -> tuple[list[Row], int]:
        """Facts of the agent without a vector for `key` (oldest first), and how many there are in all."""
        missing = (
            "FROM facts f WHERE f.agent_id = ? AND NOT EXISTS"
            " (SELECT 1 FROM fact_vectors v WHERE v.fact_id = f.id AND v.embedder_key = ?)"
        )
        with self.db.reading() as conn:
            rows = conn.execute(
                f"SELECT f.id, f.fact {missing} ORDER BY f.id LIMIT ?", (agent_id, key, limit)
            ).fetchall()
            total = conn.execute(f"SELECT COUNT(*) {missing}", (agent_id, key)).fetchone()[0]
        return rows, total

    def count_with_vectors(self, agent_id: str, key: str) -> int:
        with self.db.reading() as conn:
            return int(
                conn.execute(
                    "SELECT COUNT(*) FROM fact_vectors v JOIN facts f ON f.id = v.fact_id"
                    " WHERE f.agent_id = ? AND v.embedder_key = ?",
                    (agent_id, key),
                ).fetchone()[0]
            )

    def counts_by_category(self, agent_id: str) -> dict[str, int]:
        with self.db.reading() as conn:
            rows = conn.execute(
                "SELECT category, COUNT(*) AS n FROM facts WHERE agent_id = ? GROUP BY category ORDER BY category",
                (agent_id,),
            )
            return {row["category"]: row["n"] for row in rows}

    def all_for_export(self, agent_id: str) -> list[Row]:
        with self.db.reading() as conn:
            return list(
                conn.execute(
                    "SELECT * FROM facts WHERE agent_id = ? ORDER BY category, created_at DESC, id DESC", (agent_id,)
                )
            )

    def fts_available(self) -> bool:
        with self.db.reading() as conn:
            try:
                conn.execute("SELECT 1 FROM facts_fts LIMIT 1").fetchall()
            except Exception:
                return False
            return True
