"""The fact operations that combine storage, embeddings and the write rules; and the tiered search.

The store path (`store`) is the only way a fact gets in, whoever sends it (store_fact, extraction from a
conversation, import): the secret filter, then exact dedup (same agent, text and category → the existing id with
its timestamps touched), then the keyword-similarity warning, then the insert, then the embedding. An embedding
failure never loses the fact: it is stored without a vector and `backfill_embeddings` adds one later.

Search (`retrieve`) degrades in three tiers: vectors + FTS5 (hybrid) when an embedder answers; FTS5 alone when
there is no embedder or it fails; LIKE substring matching when neither finds anything.

Database work runs in worker threads (`offload`), so a slow query never stalls the MCP session's event loop.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio.to_thread
import numpy as np

from memorizer_mcp import ranking
from memorizer_mcp.contacts import ContactStore
from memorizer_mcp.conversations import ConversationStore, conversation_dict
from memorizer_mcp.db.connection import Database, DatabaseError
from memorizer_mcp.db.migrations import migrate
from memorizer_mcp.facts import FactStore, fact_dict
from memorizer_mcp.fts import like_patterns
from memorizer_mcp.params import limit_text, require_text
from memorizer_mcp.profiles import ProfileStore
from memorizer_mcp.projects import ProjectStore
from memorizer_mcp.secret_filter import find_secret, refusal
from memorizer_mcp.settings import MemorizerSettings
from memorizer_mcp.skills import SkillStore
from memorizer_mcp.timeline import Timeline
from memorizer_mcp.timestamps import Clock, to_db, utc_now
from memorizer_mcp.vector_index import VectorIndex
from shared.embeddings.base import Embedder
from shared.mcp_tools import InvalidArguments, ToolFailure

log = logging.getLogger(__name__)

T = TypeVar("T")
SearchMode = Literal["hybrid", "fts", "like", "none"]
EMBED_BATCH = 64


@dataclass
class StoreOutcome:
    """What the store path did with one fact."""

    status: Literal["stored", "duplicate", "rejected"]
    fact_id: int | None = None
    secret_kind: str | None = None
    similar: list[tuple[int, str, float]] | None = None
    vector_stored: bool = False


@dataclass
class SearchResult:
    fact_ids: list[int]
    scores: dict[int, float]
    mode: SearchMode
    note: str | None = None


class Memory:
    def __init__(
        self,
        db: Database,
        settings: MemorizerSettings,
        embedder: Embedder | None,
        *,
        clock: Clock = utc_now,
    ) -> None:
        self.db = db
        self.settings = settings
        self.embedder = embedder
        self.clock = clock
        self.index = VectorIndex()
        self.facts = FactStore(db)
        self.conversations = ConversationStore(db)
        self.profiles = ProfileStore(db)
        self.skills = SkillStore(db)
        self.contacts = ContactStore(db)
        self.projects = ProjectStore(db)
        self.timeline = Timeline(db)

    @classmethod
    def open(cls, settings: MemorizerSettings, embedder: Embedder | None, *, clock: Clock = utc_now) -> Memory:
        db = Database.open(settings.db_path)
        try:
            ran = migrate(db.conn)
        except Exception:
            db.close()
            raise
        if ran:
            log.info("database migrated", extra={"path": str(settings.db_path), "migrations": ran})
        return cls(db, settings, embedder, clock=clock)

    def close(self) -> None:
        self.db.close()

    def now(self) -> str:
        return to_db(self.clock())

    async def offload(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))

    # -- the store path ----------------------------------------------------------------------------------------

    async def store(
        self,
        agent_id: str,
        text: str,
        category: str,
        *,
        source: str | None = None,
        confidence: float = 1.0,
        created_at: str | None = None,
        embed: bool = True,
    ) -> StoreOutcome:
        kind = find_secret(text)
        if kind is not None:
            log.warning("fact refused: secret", extra={"agent_id": agent_id, "secret_kind": kind})
            return StoreOutcome("rejected", secret_kind=kind)
        added = await self.offload(
            self.facts.add,
            agent_id,
            text,
            category,
            source=source,
            confidence=confidence,
            now=self.now(),
            threshold=self.settings.memory_similarity_threshold,
            created_at=created_at,
        )
        if not added.created:
            return StoreOutcome("duplicate", added.fact_id)
        vector_stored = embed and await self.embed_facts(agent_id, [(added.fact_id, text)]) == 1
        return StoreOutcome("stored", added.fact_id, similar=added.similar, vector_stored=vector_stored)

    async def embed_facts(self, agent_id: str, items: list[tuple[int, str]]) -> int:
        """Embed and store vectors for `items` with the current embedder; how many were stored.

        Failures are logged and leave the facts without a vector (backfill_embeddings fills them in later).
        """
        if self.embedder is None or not items:
            return 0
        embedder = self.embedder
        stored = 0
        for start in range(0, len(items), EMBED_BATCH):
            batch = items[start : start + EMBED_BATCH]
            try:
                vectors = await embedder.embed([text for _, text in batch])
            except Exception as exc:
                log.warning(
                    "embedding failed; facts stored without vectors",
                    extra={"embedder": embedder.key, "error": str(exc), "facts": len(items) - stored},
                )
                return stored
            triples = [
                (fact_id, text, np.asarray(vector, dtype=np.float32))
                for (fact_id, text), vector in zip(batch, vectors, strict=True)
            ]
            stored += await self.offload(self._save_vectors, embedder.key, agent_id, triples)
        return stored

    def _save_vectors(self, key: str, agent_id: str, triples: list[tuple[int, str, np.ndarray]]) -> int:
        # SQLite first (the store of record), then the in-memory matrix if it is loaded: only the vectors SQLite
        # kept, so a fact deleted or rewritten while it was being embedded leaves no ghost in the matrix.
        saved = set(self.facts.store_vectors(key, triples, self.now()))
        self.index.upsert(key, agent_id, [(fact_id, vector) for fact_id, _, vector in triples if fact_id in saved])
        return len(saved)

    # -- fact tools ----------------------------------------------------------------------------------------------

    async def store_fact(self, agent_id: str, fact: str, category: str, source: str | None) -> dict[str, Any]:
        text = require_text("fact", fact)
        outcome = await self.store(agent_id, text, category, source=source)
        if outcome.status == "rejected":
            assert outcome.secret_kind is not None
            raise InvalidArguments(refusal("The fact", outcome.secret_kind))
        result: dict[str, Any] = {"fact_id": outcome.fact_id, "stored_at": self.now()}
        if outcome.status == "duplicate":
            result["message"] = "Fact already exists, updated timestamp"
            return result
        if outcome.similar:
            result["similar_existing"] = [{"id": i, "fact": t} for i, t, _ in outcome.similar]
            result["message"] = (
                f'Stored, but {len(outcome.similar)} similar fact(s) found in "{category}". Consider update_fact to '
                "supersede the old one, or delete_fact to remove duplicates."
            )
        if self.embedder is not None and not outcome.vector_stored:
            result["vector"] = "missing: the embedder did not answer; backfill_embeddings will add it"
        return result

    async def update_fact(self, agent_id: str, fact_id: int, fact: str, category: str | None) -> dict[str, Any]:
        text = require_text("fact", fact)
        kind = find_secret(text)
        if kind is not None:
            raise InvalidArguments(refusal("The new fact text", kind))
        old = await self.offload(self.facts.update, agent_id, fact_id, text, category, self.now())
        if old is None:
            raise ToolFailure(f"Fact {fact_id} does not exist for agent '{agent_id}'.")
        if old["fact"] != text:
            self.index.remove(agent_id, [fact_id])
            await self.embed_facts(agent_id, [(fact_id, text)])
        return {"fact_id": fact_id, "old_fact": old["fact"], "new_fact": text, "category": category or old["category"]}

    async def delete_fact(self, agent_id: str, fact_id: int) -> dict[str, Any]:
        row = await self.offload(self.facts.delete, agent_id, fact_id)
        if row is None:
            raise ToolFailure(f"Fact {fact_id} does not exist for agent '{agent_id}'.")
        self.index.remove(agent_id, [fact_id])
        return {"deleted_fact": row["fact"], "fact_id": fact_id}

    def list_facts(self, agent_id: str, category: str | None, limit: int) -> dict[str, Any]:
        rows, total = self.facts.listing(agent_id, category, limit)
        return {"facts": [fact_dict(row) for row in rows], "total_count": total}

    # -- search ------------------------------------------------------------------------------------------------

    def _vector_scores(self, agent_id: str, query_vector: np.ndarray, k: int) -> dict[int, float]:
        embedder = self.embedder
        assert embedder is not None
        dimension = embedder.dimension
        if query_vector.shape != (dimension,):
            raise ValueError(f"query vector has shape {query_vector.shape}, expected ({dimension},)")
        key = embedder.key
        hits = self.index.search(
            key, agent_id, dimension, query_vector, k, lambda: self.facts.load_vectors(key, agent_id, dimension)
        )
        return dict(hits)

    def _text_scores(self, agent_id: str, query: str, k: int) -> dict[int, float]:
        try:
            return self.facts.text_scores(agent_id, query, k)
        except DatabaseError as exc:
            log.warning("full-text search failed; using LIKE", extra={"error": str(exc)})
            return {}

    async def search_facts(self, agent_id: str, query: str, limit: int) -> SearchResult:
        if not query.strip():
            return SearchResult([], {}, "none")
        k = limit * 3
        vector: dict[int, float] = {}
        note = None
        vector_ran = False
        if self.embedder is not None:
            try:
                query_vector = np.asarray(await self.embedder.embed_one(query), dtype=np.float32)
                vector = await self.offload(self._vector_scores, agent_id, query_vector, k)
                vector_ran = True
            except Exception as exc:
                note = f"vector search unavailable ({type(exc).__name__}: {exc}); used full-text search"
                log.warning("vector search failed; using full-text search", extra={"error": str(exc)})
        text = await self.offload(self._text_scores, agent_id, query, k)
        if vector or text:
            if vector_ran:
                weights = (self.settings.memory_vector_weight, self.settings.memory_text_weight)
                ranked = ranking.hybrid_rank(vector, text, *weights)
            else:
                ranked = ranking.rank_single(text)
            top = ranked[:limit]
            return SearchResult([i for i, _ in top], dict(top), "hybrid" if vector_ran else "fts", note)
        ids = await self.offload(self.facts.like_ids, agent_id, like_patterns(query), limit)
        return SearchResult(ids, {}, "like", note)

    async def retrieve(self, agent_id: str, query: str, limit: int, include_conversations: bool) -> dict[str, Any]:
        limit_text("query", query)
        found = await self.search_facts(agent_id, query, limit)
        rows = await self.offload(self.facts.by_ids, agent_id, found.fact_ids)
        ordered = [rows[i] for i in found.fact_ids if i in rows]
        await self.offload(self.facts.mark_accessed, [row["id"] for row in ordered], self.now())
        facts = []
        for row in ordered:
            item = {key: row[key] for key in ("id", "fact", "category", "confidence", "source", "created_at")}
            if row["id"] in found.scores:
                item["score"] = round(found.scores[row["id"]], 4)
            facts.append(item)
        conversations: list[dict[str, Any]] = []
        if include_conversations and query.strip():
            found_conversations = await self.offload(
                self.conversations.search_keywords, agent_id, like_patterns(query), limit
            )
            conversations = [conversation_dict(row, full=False) for row in found_conversations]
        result: dict[str, Any] = {"facts": facts, "conversations": conversations, "search_mode": found.mode}
        if found.note:
            result["note"] = found.note
        return result

    # -- embeddings and statistics -------------------------------------------------------------------------------

    async def backfill_embeddings(self, agent_id: str, batch_size: int) -> dict[str, Any]:
        if self.embedder is None:
            raise ToolFailure(
                "No embedding provider is configured (EMBEDDING_PROVIDER=none), so there is nothing to backfill. "
                "Set EMBEDDING_PROVIDER=local (offline) or ollama and restart the Memorizer."
            )
        key = self.embedder.key
        rows, missing = await self.offload(self.facts.missing_vectors, agent_id, key, batch_size)
        items = [(row["id"], row["fact"]) for row in rows]
        embedded = await self.embed_facts(agent_id, items)
        if items and embedded == 0:
            raise ToolFailure(
                f"The embedder {key} did not answer, so no vectors were added ({missing} facts still lack one). "
                "Check the embedding provider (EMBEDDING_PROVIDER, OLLAMA_HOST) and try again."
            )
        return {
            "processed": len(items),
            "embedded": embedded,
            "failed": len(items) - embedded,
            "remaining": missing - embedded,
            "embedder": key,
        }

    def stats(self, agent_id: str) -> dict[str, Any]:
        by_category = self.facts.counts_by_category(agent_id)
        fts = self.facts.fts_available()
        key = self.embedder.key if self.embedder else None
        with_vectors = self.facts.count_with_vectors(agent_id, key) if key else 0
        total = sum(by_category.values())
        return {
            "fact_count": total,
            **self.conversations.stats(agent_id),
            "facts_by_category": by_category,
            "database_size_mb": round(self.db.size_bytes() / 1024 / 1024, 2),
            "search_capabilities": {
                "sqlite_vec_loaded": True,
                "embedding_provider": key,
                "vector_search_enabled": key is not None,
                "fts5_available": fts,
                "search_mode": "hybrid" if key else "fts5_only" if fts else "like_fallback",
                "facts_with_vectors": with_vectors,
                "facts_missing_vectors": total - with_vectors if key else None,
            },
        }
