"""The facts table, its keys, its full-text index and its vectors: every SQL statement about facts lives here.

Every method takes the agent id and every statement filters on it: one agent can neither read nor change
another's facts, including by id (the original's delete_fact and update_fact ignored the agent).

A fact is *current* while `valid_until` is NULL. A superseded fact keeps its row (history), with `valid_until`
(when it stopped being true) and `superseded_by` (the fact that replaced it); reads skip history unless asked.
Deleting a fact deletes its history with it: the facts it superseded, and the ones those superseded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from memorizer_mcp import dedup
from memorizer_mcp.db.connection import Connection, Database, Row
from memorizer_mcp.db.owned import owned_row
from memorizer_mcp.decisions import Decision
from memorizer_mcp.fts import fts_query

SIMILAR_CANDIDATES = 200
"""Most facts the similarity check compares a new fact with (the best full-text matches)."""
COMMON_KEYWORD_FACTS = 500
"""A keyword found in more facts than this does not by itself make a fact a similarity candidate."""
MAX_KEYWORDS = 32
KEY_CANDIDATES = 20
"""Most facts (the most recent) taken per claim key when comparing a new fact with stored ones."""
WORD_CANDIDATES = 10
MAX_CHAIN = 50
"""Most successive replacements followed from a fact to the current one (a guard, not a real limit)."""
"""Most facts taken from the full-text index (shared rare words) when comparing a new fact with stored ones."""

CURRENT = "valid_until IS NULL"
FACT_FIELDS = (
    "id",
    "fact",
    "category",
    "confidence",
    "source",
    "source_type",
    "provenance",
    "created_at",
    "valid_until",
    "superseded_by",
)
"""What every tool shows of a fact (list, search, export): where it came from and whether it is still current."""

# The ids of a fact and of every fact it superseded, transitively: its history.
_HISTORY = (
    "WITH RECURSIVE history(id) AS (SELECT ? UNION SELECT f.id FROM facts f JOIN history h ON f.superseded_by = h.id"
    " WHERE f.agent_id = ?) SELECT id FROM history"
)


@dataclass(frozen=True)
class NewFact:
    agent_id: str
    text: str
    category: str
    source: str | None
    source_type: str
    provenance: str
    confidence: float
    learned_at: str
    keys: tuple[str, ...]


@dataclass
class Applied:
    """What the store path did: the fact's id and how it relates to the facts that were there."""

    action: Literal["added", "merged", "superseded", "kept_as_history"]
    fact_id: int
    superseded: list[tuple[int, str]] = field(default_factory=list)
    stands: tuple[int, str] | None = None
    """kept_as_history: the fact that stays current."""
    similar: list[tuple[int, str, float]] = field(default_factory=list)
    raised: bool = False
    """merged: the stored fact took the new statement's (more trusted) provenance."""


def fact_dict(row: Row) -> dict[str, Any]:
    return {key: row[key] for key in FACT_FIELDS}


def vector_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


class FactStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- the store path ------------------------------------------------------------------------------------------

    def candidates(self, agent_id: str, text: str, keys: Sequence[str], neighbours: Iterable[int]) -> list[Row]:
        """Current facts of the agent a new fact must be compared with: the same text, the same claim keys (most
        recent first), the embedding neighbours given, and facts sharing its rarer words."""
        ids: dict[int, None] = {}
        with self.db.reading() as conn:
            for row in conn.execute(
                f"SELECT id FROM facts WHERE agent_id = ? AND fact = ? AND {CURRENT}", (agent_id, text)
            ):
                ids.setdefault(row["id"], None)
            for key in keys:
                for row in conn.execute(
                    f"SELECT f.id FROM fact_keys k JOIN facts f ON f.id = k.fact_id WHERE k.key = ? AND f.agent_id = ?"
                    f" AND f.{CURRENT} ORDER BY f.created_at DESC, f.id DESC LIMIT ?",
                    (key, agent_id, KEY_CANDIDATES),
                ):
                    ids.setdefault(row["id"], None)
            for fact_id in neighbours:
                ids.setdefault(fact_id, None)
            for fact_id, _ in self._word_candidates(agent_id, None, text, WORD_CANDIDATES):
                ids.setdefault(fact_id, None)
            if not ids:
                return []
            marks = ",".join("?" * len(ids))
            return list(
                conn.execute(
                    f"SELECT * FROM facts WHERE agent_id = ? AND {CURRENT} AND id IN ({marks})", (agent_id, *ids)
                )
            )

    def apply(self, new: NewFact, decision: Decision, now: str, threshold: float) -> Applied:
        """Carry out a decision in one transaction.

        The decision was taken outside it (it may have waited for a model), so it is checked again here: a fact
        to merge into or to keep beside must still be current, and only facts still current are superseded. An
        identical current fact found now (a concurrent store) turns any decision into a merge.
        """
        with self.db.transaction() as conn:
            same = conn.execute(
                f"SELECT id FROM facts WHERE agent_id = ? AND fact = ? AND {CURRENT} ORDER BY id LIMIT 1",
                (new.agent_id, new.text),
            ).fetchone()
            if same is not None and not (decision.action == "merge" and self._is_current(conn, new, decision.target)):
                decision = Decision("merge", same["id"], decision.supersede if decision.action == "merge" else ())
            if decision.action == "merge" and self._is_current(conn, new, decision.target):
                assert decision.target is not None
                return self._merge(conn, new, decision, now)
            if decision.action == "history" and self._is_current(conn, new, decision.target):
                assert decision.target is not None
                fact_id = self._insert(conn, new, now, valid_until=new.learned_at, superseded_by=decision.target)
                return Applied("kept_as_history", fact_id, stands=self._text_of(conn, decision.target))
            similar = dedup.similar(new.text, self._word_candidates(new.agent_id, new.category, new.text), threshold)
            fact_id = self._insert(conn, new, now)
            superseded = self._supersede(conn, new.agent_id, decision.supersede, fact_id, new.learned_at)
            return Applied("superseded" if superseded else "added", fact_id, superseded, similar=similar)

    def _is_current(self, conn: Connection, new: NewFact, fact_id: int | None) -> bool:
        if fact_id is None:
            return False
        row = conn.execute(
            f"SELECT 1 FROM facts WHERE id = ? AND agent_id = ? AND {CURRENT}", (fact_id, new.agent_id)
        ).fetchone()
        return row is not None

    def _text_of(self, conn: Connection, fact_id: int) -> tuple[int, str]:
        return fact_id, conn.execute("SELECT fact FROM facts WHERE id = ?", (fact_id,)).fetchone()["fact"]

    def _insert(
        self,
        conn: Connection,
        new: NewFact,
        now: str,
        *,
        valid_until: str | None = None,
        superseded_by: int | None = None,
    ) -> int:
        cursor = conn.execute(
            "INSERT INTO facts (agent_id, fact, category, source, source_type, provenance, confidence, created_at,"
            " updated_at, last_accessed_at, valid_until, superseded_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.agent_id,
                new.text,
                new.category,
                new.source,
                new.source_type,
                new.provenance,
                new.confidence,
                new.learned_at,
                now,
                now,
                valid_until,
                superseded_by,
            ),
        )
        fact_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT OR IGNORE INTO fact_keys (key, fact_id) VALUES (?, ?)", [(k, fact_id) for k in new.keys]
        )
        return fact_id

    def _merge(self, conn: Connection, new: NewFact, decision: Decision, now: str) -> Applied:
        target = decision.target
        assert target is not None
        row = conn.execute("SELECT provenance FROM facts WHERE id = ?", (target,)).fetchone()
        raised = decision.raise_provenance and row["provenance"] != new.provenance
        conn.execute(
            "UPDATE facts SET updated_at = ?, last_accessed_at = ?, confidence = MAX(COALESCE(confidence, 0), ?)"
            " WHERE id = ?",
            (now, now, new.confidence, target),
        )
        if raised:
            conn.execute(
                "UPDATE facts SET provenance = ?, source_type = ?, source = COALESCE(?, source) WHERE id = ?",
                (new.provenance, new.source_type, new.source, target),
            )
        superseded = self._supersede(conn, new.agent_id, decision.supersede, target, new.learned_at)
        return Applied("merged", target, superseded, raised=raised)

    def _supersede(
        self, conn: Connection, agent_id: str, fact_ids: Sequence[int], by: int, when: str
    ) -> list[tuple[int, str]]:
        done = []
        for fact_id in fact_ids:
            if fact_id == by:
                continue
            row = conn.execute(
                f"UPDATE facts SET valid_until = ?, superseded_by = ? WHERE id = ? AND agent_id = ? AND {CURRENT}"
                " RETURNING id, fact",
                (when, by, fact_id, agent_id),
            ).fetchone()
            if row is not None:
                done.append((row["id"], row["fact"]))
        if done:
            # What the old facts answered, the one replacing them answers now: "stopped seeing Dr. Lee, now sees
            # Dr. Park" is filed under the therapist it replaced, so "Who is the user's therapist?" finds it.
            marks = ",".join("?" * len(done))
            conn.execute(
                f"INSERT OR IGNORE INTO fact_keys (key, fact_id) SELECT key, ? FROM fact_keys WHERE fact_id IN ({marks})",
                (by, *(fact_id for fact_id, _ in done)),
            )
        return done

    def insert_history(self, new: NewFact, valid_until: str, superseded_by: int | None, now: str) -> int:
        """Insert a fact that is no longer current as it is (an imported export's history)."""
        with self.db.transaction() as conn:
            return self._insert(conn, new, now, valid_until=valid_until, superseded_by=superseded_by)

    def _word_candidates(
        self, agent_id: str, category: str | None, text: str, limit: int = SIMILAR_CANDIDATES
    ) -> list[tuple[int, str]]:
        """Current facts (of `category`, or any) sharing the text's rarer keywords, found through the full-text index.

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
        where = "facts_fts MATCH ? AND f.agent_id = ? AND f.valid_until IS NULL"
        params: list[Any] = [match, agent_id]
        if category is not None:
            where += " AND f.category = ?"
            params.append(category)
        rows = self.db.conn.execute(
            f"SELECT f.id, f.fact FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid WHERE {where}"
            " ORDER BY facts_fts.rank LIMIT ?",
            (*params, limit),
        )
        return [(row["id"], row["fact"]) for row in rows]

    def history_ids(self, conn: Connection, agent_id: str, fact_id: int) -> list[int]:
        return [row[0] for row in conn.execute(_HISTORY, (fact_id, agent_id))]

    def delete(self, agent_id: str, fact_id: int) -> tuple[Row, list[int]] | None:
        """Delete one fact of the agent and its history (vectors and keys go with them).

        Returns the deleted row and every id deleted, or None if the agent has no such fact. A fact this one had
        been superseded by stays (it is not history of this one) and no longer points here.
        """
        with self.db.transaction() as conn:
            row = self._get(agent_id, fact_id)
            if row is None:
                return None
            ids = self.history_ids(conn, agent_id, fact_id)
            self._delete(conn, agent_id, ids)
            return row, ids

    def _delete(self, conn: Connection, agent_id: str, ids: Sequence[int]) -> None:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM facts WHERE agent_id = ? AND id IN ({marks})", (agent_id, *chunk))

    def update(
        self, agent_id: str, fact_id: int, text: str, category: str | None, keys: Sequence[str], now: str
    ) -> Row | None:
        """Replace text (and category) in place; the old row, or None if the agent has no such fact.

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
                self._rekey(conn, fact_id, keys)
            return old

    def set_provenance(self, agent_id: str, fact_id: int, provenance: str) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE facts SET provenance = ? WHERE id = ? AND agent_id = ?", (provenance, fact_id, agent_id)
            )

    def _rekey(self, conn: Connection, fact_id: int, keys: Sequence[str]) -> None:
        conn.execute("DELETE FROM fact_keys WHERE fact_id = ?", (fact_id,))
        conn.executemany("INSERT OR IGNORE INTO fact_keys (key, fact_id) VALUES (?, ?)", [(k, fact_id) for k in keys])

    def apply_plan(
        self,
        agent_id: str,
        updates: dict[int, tuple[str, Sequence[str]]],
        deletes: set[int],
        merged_into: dict[int, int],
        now: str,
    ) -> tuple[list[int], list[int]]:
        """Set new texts (with their claim keys) and delete facts of the agent in one transaction; the ids actually
        updated and deleted.

        A fact merged into another hands its history to it; a fact deleted outright takes its history along.
        Facts whose text changes lose their stored vectors (they describe the old text).
        """
        updated: list[int] = []
        deleted: list[int] = []
        with self.db.transaction() as conn:
            for fact_id, (text, keys) in updates.items():
                changed = conn.execute(
                    "UPDATE facts SET fact = ?, updated_at = ? WHERE id = ? AND agent_id = ? AND fact != ?",
                    (text, now, fact_id, agent_id, text),
                ).rowcount
                if changed:
                    conn.execute("DELETE FROM fact_vectors WHERE fact_id = ?", (fact_id,))
                    self._rekey(conn, fact_id, keys)
                    updated.append(fact_id)
            for fact_id in sorted(deletes):
                if self._get(agent_id, fact_id) is None:
                    continue
                keeper = merged_into.get(fact_id)
                if keeper is not None:
                    conn.execute(
                        "UPDATE facts SET superseded_by = ? WHERE superseded_by = ? AND agent_id = ?",
                        (keeper, fact_id, agent_id),
                    )
                    ids = [fact_id]
                else:
                    ids = self.history_ids(conn, agent_id, fact_id)
                self._delete(conn, agent_id, ids)
                deleted.extend(ids)
        return updated, deleted

    def store_vectors(self, key: str, items: list[tuple[int, str, np.ndarray]], now: str) -> list[int]:
        """Save `(fact id, the text embedded, vector)`; the ids saved.

        A vector is saved only if its fact still exists with that text: an embedding can finish after the fact
        was deleted or rewritten, and must then not come back as a stale vector. A fact keeps one vector, from the
        embedder that searches it: a vector of another embedder (the one configured before) is dropped with it.
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
                    conn.execute("DELETE FROM fact_vectors WHERE fact_id = ? AND embedder_key != ?", (fact_id, key))
        return saved

    def agents_with_other_vectors(self, key: str) -> list[str]:
        """Agents with facts whose vector comes from another embedder than `key` (the one configured before):
        those facts must be embedded again before vector search can see them."""
        with self.db.reading() as conn:
            rows = conn.execute(
                "SELECT DISTINCT f.agent_id FROM fact_vectors v JOIN facts f ON f.id = v.fact_id"
                " WHERE v.embedder_key != ? ORDER BY f.agent_id",
                (key,),
            ).fetchall()
        return [row["agent_id"] for row in rows]

    def mark_accessed(self, fact_ids: list[int], now: str) -> None:
        if not fact_ids:
            return
        with self.db.transaction() as conn:
            conn.executemany("UPDATE facts SET last_accessed_at = ? WHERE id = ?", [(now, i) for i in fact_ids])

    # -- reads -------------------------------------------------------------------------------------------------

    def _get(self, agent_id: str, fact_id: int) -> Row | None:
        return owned_row(self.db.conn, "facts", fact_id, agent_id)

    def get(self, agent_id: str, fact_id: int) -> Row | None:
        with self.db.reading():
            return self._get(agent_id, fact_id)

    def listing(
        self, agent_id: str, category: str | None, limit: int, *, include_history: bool = False
    ) -> tuple[list[Row], int]:
        """Current facts newest first; with history, the facts no longer current follow them."""
        where, params = "agent_id = ?", [agent_id]
        if category:
            where += " AND category = ?"
            params.append(category)
        if not include_history:
            where += f" AND {CURRENT}"
        order = "valid_until IS NOT NULL, created_at DESC, id DESC"
        return self.db.page("*", f"FROM facts WHERE {where}", order, params, limit)

    def oldest(self, agent_id: str, category: str, provenance: str, limit: int) -> list[Row]:
        """The oldest current facts of one category and one provenance class (what synthesis reviews together)."""
        with self.db.reading() as conn:
            return list(
                conn.execute(
                    f"SELECT * FROM facts WHERE agent_id = ? AND category = ? AND provenance = ? AND {CURRENT}"
                    " ORDER BY created_at ASC, id ASC LIMIT ?",
                    (agent_id, category, provenance, limit),
                )
            )

    def by_ids(self, agent_id: str, fact_ids: list[int]) -> dict[int, Row]:
        if not fact_ids:
            return {}
        marks = ",".join("?" * len(fact_ids))
        with self.db.reading() as conn:
            rows = conn.execute(f"SELECT * FROM facts WHERE agent_id = ? AND id IN ({marks})", (agent_id, *fact_ids))
            return {row["id"]: row for row in rows}

    def current_successors(self, agent_id: str, fact_ids: Sequence[int]) -> dict[int, int | None]:
        """For each fact, the current fact it leads to: itself when current, else the end of its `superseded_by`
        chain (None when the chain ends in a fact no longer current, e.g. one whose successor was deleted)."""
        if not fact_ids:
            return {}
        rows: dict[int, Row] = {}
        pending = set(fact_ids)
        with self.db.reading() as conn:
            for _ in range(MAX_CHAIN):
                pending -= rows.keys()
                if not pending:
                    break
                marks = ",".join("?" * len(pending))
                found = conn.execute(
                    f"SELECT id, valid_until, superseded_by FROM facts WHERE agent_id = ? AND id IN ({marks})",
                    (agent_id, *pending),
                ).fetchall()
                rows.update((row["id"], row) for row in found)
                pending = {row["superseded_by"] for row in found if row["valid_until"] is not None}
                pending.discard(None)
        out: dict[int, int | None] = {}
        for fact_id in fact_ids:
            current: int | None = fact_id
            for _ in range(MAX_CHAIN):
                row = rows.get(current) if current is not None else None
                if row is None:
                    current = None
                    break
                if row["valid_until"] is None:
                    break
                current = row["superseded_by"]
            else:
                current = None
            out[fact_id] = current
        return out

    def keys_of(
        self, agent_id: str, fact_ids: Sequence[int], lookup: Sequence[str], *, include_history: bool = False
    ) -> dict[int, list[str]]:
        """The claim keys of the given facts and of the facts filed under `lookup` keys (a few each, newest first)."""
        current = "" if include_history else f" AND f.{CURRENT}"
        ids: dict[int, None] = dict.fromkeys(fact_ids)
        with self.db.reading() as conn:
            for key in lookup:
                for row in conn.execute(
                    "SELECT f.id FROM fact_keys k JOIN facts f ON f.id = k.fact_id"
                    f" WHERE k.key = ? AND f.agent_id = ?{current} ORDER BY f.created_at DESC LIMIT ?",
                    (key, agent_id, KEY_CANDIDATES),
                ):
                    ids.setdefault(row["id"], None)
            if not ids:
                return {}
            marks = ",".join("?" * len(ids))
            rows = conn.execute(
                f"SELECT k.fact_id, k.key FROM fact_keys k JOIN facts f ON f.id = k.fact_id"
                f" WHERE f.agent_id = ?{current} AND k.fact_id IN ({marks})",
                (agent_id, *ids),
            )
            keys: dict[int, list[str]] = {}
            for row in rows:
                keys.setdefault(row["fact_id"], []).append(row["key"])
        return keys

    def text_scores(self, agent_id: str, text: str, limit: int, *, include_history: bool = False) -> dict[int, float]:
        """BM25 relevance (higher is better) of the agent's facts matching any token of `text`."""
        query = fts_query(text)
        if query is None:
            return {}
        current = "" if include_history else f" AND f.{CURRENT}"
        with self.db.reading() as conn:
            rows = conn.execute(
                "SELECT f.id, -facts_fts.rank AS score FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid"
                f" WHERE facts_fts MATCH ? AND f.agent_id = ?{current} ORDER BY facts_fts.rank LIMIT ?",
                (query, agent_id, limit),
            )
            return {row["id"]: float(row["score"]) for row in rows}

    def like_ids(self, agent_id: str, patterns: list[str], limit: int, *, include_history: bool = False) -> list[int]:
        """The last resort: substring matches, current first, most confident and most recently used first."""
        if not patterns:
            return []
        condition = " OR ".join("fact LIKE ? ESCAPE '\\'" for _ in patterns)
        current = "" if include_history else f" AND {CURRENT}"
        with self.db.reading() as conn:
            rows = conn.execute(
                f"SELECT id FROM facts WHERE agent_id = ? AND ({condition}){current}"
                " ORDER BY valid_until IS NOT NULL, confidence DESC, COALESCE(last_accessed_at, created_at) DESC, created_at DESC, id DESC"
                " LIMIT ?",
                (agent_id, *patterns, limit),
            )
            return [row["id"] for row in rows]

    def load_vectors(self, key: str, agent_id: str, dimension: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every stored vector of the agent's facts for `key` (rows of another length are skipped), with whether
        each fact is current."""
        with self.db.reading() as conn:
            rows = conn.execute(
                "SELECT v.fact_id, v.vector, f.valid_until IS NULL AS current FROM fact_vectors v"
                " JOIN facts f ON f.id = v.fact_id WHERE v.embedder_key = ? AND f.agent_id = ?",
                (key, agent_id),
            ).fetchall()
        width = dimension * 4
        good = [row for row in rows if len(row["vector"]) == width]
        ids = np.fromiter((row["fact_id"] for row in good), dtype=np.int64, count=len(good))
        current = np.fromiter((bool(row["current"]) for row in good), dtype=bool, count=len(good))
        vectors = np.frombuffer(b"".join(row["vector"] for row in good), dtype="<f4").reshape(len(good), dimension)
        return ids, vectors.astype(np.float32, copy=False), current

    def missing_vectors(self, agent_id: str, key: str, limit: int) -> tuple[list[Row], int]:
        """Facts of the agent without a vector for `key` (oldest first), and how many there are in all."""
        missing = (
            "FROM facts f WHERE f.agent_id = ? AND NOT EXISTS"
            " (SELECT 1 FROM fact_vectors v WHERE v.fact_id = f.id AND v.embedder_key = ?)"
        )
        return self.db.page("f.id, f.fact", missing, "f.id", (agent_id, key), limit)

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
        """Current facts per category."""
        with self.db.reading() as conn:
            rows = conn.execute(
                f"SELECT category, COUNT(*) AS n FROM facts WHERE agent_id = ? AND {CURRENT}"
                " GROUP BY category ORDER BY category",
                (agent_id,),
            )
            return {row["category"]: row["n"] for row in rows}

    def counts_by_provenance(self, agent_id: str) -> tuple[dict[str, int], int]:
        """Current facts per provenance class, and how many facts are history."""
        with self.db.reading() as conn:
            rows = conn.execute(
                f"SELECT provenance, COUNT(*) AS n FROM facts WHERE agent_id = ? AND {CURRENT}"
                " GROUP BY provenance ORDER BY provenance",
                (agent_id,),
            )
            by_provenance = {row["provenance"]: row["n"] for row in rows}
            history = conn.execute(
                "SELECT COUNT(*) FROM facts WHERE agent_id = ? AND valid_until IS NOT NULL", (agent_id,)
            ).fetchone()[0]
        return by_provenance, int(history)

    def all_for_export(self, agent_id: str) -> list[Row]:
        with self.db.reading() as conn:
            return list(
                conn.execute(
                    "SELECT * FROM facts WHERE agent_id = ?"
                    " ORDER BY category, valid_until IS NOT NULL, created_at DESC, id DESC",
                    (agent_id,),
                )
            )

    def fts_available(self) -> bool:
        with self.db.reading() as conn:
            try:
                conn.execute("SELECT 1 FROM facts_fts LIMIT 1").fetchall()
            except Exception:
                return False
            return True
