"""The fact operations that combine storage, embeddings and the write rules; and the tiered search.

The store path (`store`) is the only way a fact gets in, whoever sends it (store_fact, extraction from a
conversation, import): the secret filter; the embedding; the comparison with the current facts about the same
subject (same claim keys, nearest vectors, shared rare words), judged by the rules of decisions.py and, where
they cannot settle a related pair and `MEMORY_MODEL_DECISIONS` is on, by the utility model; then one transaction
that adds the fact, merges it into a duplicate, or supersedes the facts it updates (kept as history) — never one
more trusted than the statement (provenance.py). An embedding failure never loses the fact: it is stored
without a vector (and compared without vector neighbours) and `backfill_embeddings` adds one later.

Search (`retrieve`) degrades in three tiers: vectors + FTS5 (hybrid) when an embedder answers; FTS5 alone when
there is no embedder or it fails; LIKE substring matching when neither finds anything.

Database work runs in worker threads (`offload`), so a slow query never stalls the MCP session's event loop.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import anyio.to_thread
import numpy as np

from memorizer_mcp import attributes, claims, ranking
from memorizer_mcp.contacts import ContactStore
from memorizer_mcp.conversations import ConversationStore, conversation_dict
from memorizer_mcp.db.connection import Database, DatabaseError
from memorizer_mcp.db.migrations import migrate
from memorizer_mcp.decisions import Candidate, Decision, Judgement, ValueSimilarity, decide, judge
from memorizer_mcp.facts import Applied, FactStore, NewFact, fact_dict
from memorizer_mcp.fts import like_patterns
from memorizer_mcp.params import limit_text, require_text
from memorizer_mcp.profiles import ProfileStore
from memorizer_mcp.projects import ProjectStore
from memorizer_mcp.provenance import DEFAULT_PROVENANCE, DEFAULT_SOURCE_TYPE, trust
from memorizer_mcp.secret_filter import find_secret, refusal
from memorizer_mcp.settings import MemorizerSettings
from memorizer_mcp.skills import SkillStore
from memorizer_mcp.timeline import Timeline
from memorizer_mcp.timestamps import Clock, to_db, utc_now
from memorizer_mcp.vector_index import VectorIndex
from shared.embeddings.base import Embedder
from shared.mcp_tools import InvalidArguments, NotAllowed, NotFound, ToolFailure

log = logging.getLogger(__name__)

T = TypeVar("T")
SearchMode = Literal["hybrid", "fts", "like", "none"]
EMBED_BATCH = 64
NEIGHBOURS = 8
"""Nearest current facts (by vector) a new fact is compared with, besides those sharing its claim keys."""
NEIGHBOUR_FLOORS = {"multilingual": 0.25, "local": 0.3}
"""Per embedding provider, the cosine similarity below which a vector neighbour is too far to be about the same
thing. A cosine means something only in its model's space: the multilingual encoder's floor is the lowest
similarity between a fact and the fact it updates on the tuned update set, rounded down to 0.05
(benchmarks/memory_thresholds.py; docs/memorizer.md says how), all-MiniLM-L6-v2's is the one tuned before."""
DEFAULT_NEIGHBOUR_FLOOR = 0.3
"""For an embedder no floor was derived for (an Ollama model): MiniLM's, the floor used before there were two."""
MODEL_CANDIDATES = 5
MAX_VALUE_PAIRS = 16

ModelDecider = Callable[[str, list[Candidate]], Awaitable[dict[int, Judgement] | None]]
"""Asks the utility model about related facts the rules could not settle: id → judgement, or None on failure."""


def unfiltered_hint(kind: str, everything: int, filters: str) -> str:
    """What an empty filtered listing says when the unfiltered one is not empty. Pure."""
    return (
        f"No {kind} matches these filters, but {everything} {kind}(s) exist: list again without {filters} to see "
        "them all."
    )


@dataclass
class StoreOutcome:
    """What the store path did with one fact."""

    status: Literal["stored", "duplicate", "rejected"]
    fact_id: int | None = None
    secret_kind: str | None = None
    similar: list[tuple[int, str, float]] | None = None
    vector_stored: bool = False
    applied: Applied | None = None
    decided_by: Literal["rules", "model"] = "rules"


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
        values: Embedder | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.db = db
        self.settings = settings
        self.embedder = embedder
        self.values = values
        """The multilingual encoder every similarity of the update rules comes from (decisions.py: its thresholds
        are this encoder's cosines); by default the same instance as `embedder`. None: the rules decide by words
        alone."""
        self.clock = clock
        self.index = VectorIndex()
        self.facts = FactStore(db)
        self.conversations = ConversationStore(db)
        self.profiles = ProfileStore(db)
        self.skills = SkillStore(db)
        self.contacts = ContactStore(db)
        self.projects = ProjectStore(db)
        self.timeline = Timeline(db)
        self.decider: ModelDecider | None = None
        self._prototypes: attributes.Prototypes | None = None
        """The attribute, holder and addition vectors of attributes.py, embedded by `values` on first need."""
        self.reembedding: set[str] = set()
        """Agents with facts whose vectors came from another embedder (found by `open`), until `reembed` has embedded
        them again: searched by text meanwhile."""

    @classmethod
    def open(
        cls,
        settings: MemorizerSettings,
        embedder: Embedder | None,
        *,
        values: Embedder | None = None,
        clock: Clock = utc_now,
    ) -> Memory:
        db = Database.open(settings.db_path)
        try:
            ran = migrate(db.conn)
        except Exception:
            db.close()
            raise
        if ran:
            log.info("database migrated", extra={"path": str(settings.db_path), "migrations": ran})
        memory = cls(db, settings, embedder, values=values, clock=clock)
        if embedder is not None:
            # Before the first search: none may use vectors that only the facts already embedded again have.
            memory.reembedding.update(memory.facts.agents_with_other_vectors(embedder.key))
        return memory

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
        source_type: str = DEFAULT_SOURCE_TYPE,
        provenance: str = DEFAULT_PROVENANCE,
        confidence: float = 1.0,
        created_at: str | None = None,
        embed: bool = True,
    ) -> StoreOutcome:
        kind = find_secret(text)
        if kind is not None:
            log.warning("fact refused: secret", extra={"agent_id": agent_id, "secret_kind": kind})
            return StoreOutcome("rejected", secret_kind=kind)
        parsed = claims.parse(text)
        vector = await self._embed_one(text) if embed else None
        neighbours: list[int] = []
        if vector is not None:
            scores = await self.offload(self._vector_scores, agent_id, vector, NEIGHBOURS)
            assert self.embedder is not None  # a vector came from it
            floor = NEIGHBOUR_FLOORS.get(self.embedder.provider, DEFAULT_NEIGHBOUR_FLOOR)
            neighbours = [fact_id for fact_id, score in scores.items() if score >= floor]
        rows = await self.offload(self.facts.candidates, agent_id, text, claims.keys(parsed), neighbours)
        candidates = [
            Candidate(row["id"], row["fact"], row["provenance"], row["created_at"], claims.parse(row["fact"]))
            for row in rows
        ]
        learned_at = created_at or self.now()
        decision, decided_by = await self._decide(text, parsed, provenance, learned_at, candidates)
        new = NewFact(
            agent_id,
            text,
            category,
            source,
            source_type,
            provenance,
            confidence,
            learned_at,
            tuple(claims.keys(parsed)),
        )
        applied = await self.offload(
            self.facts.apply, new, decision, self.now(), self.settings.memory_similarity_threshold
        )
        superseded = [fact_id for fact_id, _ in applied.superseded]
        self.index.set_current(agent_id, superseded, False)
        if applied.action == "merged":
            return StoreOutcome("duplicate", applied.fact_id, applied=applied, decided_by=decided_by)
        vector_stored = False
        if vector is not None:
            saved = await self.offload(
                self._save_vectors, self.embedder_key, agent_id, [(applied.fact_id, text, vector)]
            )
            vector_stored = saved == 1
        return StoreOutcome(
            "stored",
            applied.fact_id,
            similar=applied.similar,
            vector_stored=vector_stored,
            applied=applied,
            decided_by=decided_by,
        )

    @property
    def embedder_key(self) -> str:
        assert self.embedder is not None
        return self.embedder.key

    async def _embed_one(self, text: str) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            return np.asarray(await self.embedder.embed_one(text), dtype=np.float32)
        except Exception as exc:
            log.warning(
                "embedding failed; fact stored without a vector",
                extra={"embedder": self.embedder.key, "error": str(exc)},
            )
            return None

    async def _similarities(
        self, embedder: Embedder | None, pairs: list[tuple[str, str]]
    ) -> dict[tuple[str, str], float]:
        """Cosine similarities of value pairs, embedded in one batch; {} when the embedder cannot answer."""
        if embedder is None or not pairs:
            return {}
        texts = list(dict.fromkeys(text for pair in pairs for text in pair))
        try:
            vectors = np.asarray(await embedder.embed(texts), dtype=np.float32)
        except Exception as exc:
            log.warning("embedding values failed; comparing without them", extra={"error": str(exc)})
            return {}
        position = {text: i for i, text in enumerate(texts)}
        return {pair: float(vectors[position[pair[0]]] @ vectors[position[pair[1]]]) for pair in pairs}

    async def _decide(
        self,
        text: str,
        parsed: claims.ParsedFact,
        provenance: str,
        learned_at: str,
        candidates: list[Candidate],
    ) -> tuple[Decision, Literal["rules", "model"]]:
        if not candidates:
            return Decision("add"), "rules"
        # The rules ask for the similarity of two values only in a few cases: judge once without, note what they
        # asked, embed just that, and judge again. Every similarity comes from the multilingual encoder (`values`;
        # by default the search embedder itself), whatever embedder searches, because the thresholds of
        # decisions.py are cosines of that encoder. English facts are compared by the words that differ; two
        # claims' values in any other language as written (ValueSimilarity), where stemmed word spans read badly.
        asked: list[tuple[str, str]] = []
        asked_values: list[tuple[str, str]] = []

        def note(a: str, b: str) -> float | None:
            asked.append((a, b))
            return None

        def note_value(a: str, b: str) -> float | None:
            asked_values.append((a, b))
            return None

        def english(candidate: Candidate) -> bool:
            return parsed.language == "en" and candidate.parsed.language == "en"

        def by_values(candidate: Candidate, cosine: Callable[[str, str], float | None]) -> ValueSimilarity | None:
            return None if english(candidate) or self.values is None else ValueSimilarity(cosine)

        judged = [(c, judge(parsed, c.parsed, note, by_values(c, note_value))) for c in candidates]
        if asked or asked_values:
            words = await self._similarities(
                self.values if parsed.language == "en" else None, list(dict.fromkeys(asked))[:MAX_VALUE_PAIRS]
            )
            values = await self._similarities(self.values, list(dict.fromkeys(asked_values))[:MAX_VALUE_PAIRS])

            def word_similarity(a: str, b: str) -> float | None:
                return words.get((a, b))

            def value_similarity(a: str, b: str) -> float | None:
                return values.get((a, b))

            judged = [
                (c, judge(parsed, c.parsed, word_similarity if english(c) else note, by_values(c, value_similarity)))
                for c, _ in judged
            ]
        judged = await self._by_encoder(text, parsed, judged)
        settled = any(j.verdict != "unrelated" for _, j in judged)
        related = [c for c, j in judged if j.related]
        if self.decider is None or settled or not related:
            return decide(provenance, learned_at, judged), "rules"
        answer = await self.decider(text, related[:MODEL_CANDIDATES])
        if answer is None:
            return decide(provenance, learned_at, judged), "rules"
        judged = [(c, answer.get(c.id, j)) for c, j in judged]
        return decide(provenance, learned_at, judged), "model"

    async def _by_encoder(
        self, text: str, parsed: claims.ParsedFact, judged: list[tuple[Candidate, Judgement]]
    ) -> list[tuple[Candidate, Judgement]]:
        """Pairs the rules could not read (a fact in a language the lexicon has no words for, or with no claim)
        and judged unrelated, judged again by the encoder (attributes.py): an update there supersedes."""
        if self.values is None:
            return judged
        pending = [c for c, j in judged if attributes.for_encoder(parsed, c.parsed, j)]
        if not pending:
            return judged
        try:
            prototypes = await self._attribute_prototypes(self.values)
            vectors = np.asarray(await self.values.embed([text, *(c.text for c in pending)]), dtype=np.float32)
            differences = {c.id: attributes.Difference.of(c.text, text) for c in pending}
            found = {
                c.id: attribute
                for c, vector in zip(pending, vectors[1:], strict=True)
                if (attribute := attributes.shared_attribute(vector, vectors[0], differences[c.id], prototypes))
            }
            # Only the words of pairs that state one attribute are embedded (a few per pair, mostly cached).
            words = list(dict.fromkeys(w for i in found for w in differences[i].vector_words))
            word_vectors = (
                dict(zip(words, np.asarray(await self.values.embed(words), dtype=np.float32), strict=True))
                if words
                else {}
            )
        except Exception as exc:
            log.warning("comparing by the encoder failed; the rules' judgement stands", extra={"error": str(exc)})
            return judged
        verdicts = {
            fact_id: attributes.judge_difference(attribute, differences[fact_id], word_vectors, prototypes)
            for fact_id, attribute in found.items()
        }
        return [
            (c, Judgement("update", verdict.reason))
            if (verdict := verdicts.get(c.id)) is not None and verdict.update
            else (c, j)
            for c, j in judged
        ]

    async def _attribute_prototypes(self, encoder: Embedder) -> attributes.Prototypes:
        if self._prototypes is None:
            vectors = np.asarray(await encoder.embed(attributes.prototype_texts()), dtype=np.float32)
            self._prototypes = attributes.Prototypes.from_batch(vectors)
        return self._prototypes

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

    async def reembed(self, batch_size: int = EMBED_BATCH) -> dict[str, int]:
        """Embed again, with the current embedder, every fact whose vector came from another one (the embedder
        configured before an upgrade or a change of EMBEDDING_PROVIDER); facts embedded, per agent.

        Started in the background when the Memorizer starts. A vector of one model is never compared with one of
        another (vectors are stored and searched per embedder key), so until an agent's facts are done its searches
        use full text and keywords alone rather than vectors that would see only the facts already done. If the
        embedder stops answering, the rest is left to `backfill_embeddings` and vector search resumes with the
        facts that have a vector.
        """
        if self.embedder is None or not self.reembedding:
            return {}
        key = self.embedder.key
        agents = sorted(self.reembedding)
        log.info("embedding facts again for a new embedder", extra={"embedder": key, "agents": len(agents)})
        done: dict[str, int] = {}
        try:
            for agent_id in agents:
                done[agent_id] = await self._reembed_agent(agent_id, key, batch_size)
                self.reembedding.discard(agent_id)
        finally:
            self.reembedding.difference_update(agents)
        log.info("facts embedded again", extra={"embedder": key, "facts": sum(done.values())})
        return done

    async def _reembed_agent(self, agent_id: str, key: str, batch_size: int) -> int:
        embedded = 0
        while True:
            taken, stored, missing = await self._embed_missing(agent_id, key, batch_size)
            if not taken:
                return embedded
            embedded += stored
            if stored == 0:
                log.warning(
                    "re-embedding stopped: the embedder did not answer; backfill_embeddings adds the rest",
                    extra={"agent_id": agent_id, "embedder": key, "facts_left": missing},
                )
                return embedded

    async def _embed_missing(self, agent_id: str, key: str, batch_size: int) -> tuple[int, int, int]:
        """Embed the next `batch_size` of the agent's facts that have no vector for `key`: (facts taken, vectors
        stored, facts without a vector before this batch)."""
        rows, missing = await self.offload(self.facts.missing_vectors, agent_id, key, batch_size)
        stored = await self.embed_facts(agent_id, [(row["id"], row["fact"]) for row in rows])
        return len(rows), stored, missing

    def _save_vectors(self, key: str, agent_id: str, triples: list[tuple[int, str, np.ndarray]]) -> int:
        # SQLite first (the store of record), then the in-memory matrix if it is loaded: only the vectors SQLite
        # kept, so a fact deleted or rewritten while it was being embedded leaves no ghost in the matrix.
        saved = set(self.facts.store_vectors(key, triples, self.now()))
        rows = self.facts.by_ids(agent_id, sorted(saved))
        self.index.upsert(
            key,
            agent_id,
            [
                (fact_id, vector, rows[fact_id]["valid_until"] is None)
                for fact_id, _, vector in triples
                if fact_id in saved and fact_id in rows
            ],
        )
        return len(saved)

    # -- fact tools ----------------------------------------------------------------------------------------------

    async def store_fact(
        self,
        agent_id: str,
        fact: str,
        category: str,
        source: str | None,
        source_type: str = DEFAULT_SOURCE_TYPE,
        provenance: str = DEFAULT_PROVENANCE,
    ) -> dict[str, Any]:
        text = require_text("fact", fact)
        limit_text("source", source)
        outcome = await self.store(
            agent_id, text, category, source=source, source_type=source_type, provenance=provenance
        )
        if outcome.status == "rejected":
            assert outcome.secret_kind is not None
            raise InvalidArguments(refusal("The fact", outcome.secret_kind))
        applied = outcome.applied
        assert applied is not None
        result: dict[str, Any] = {
            "fact_id": outcome.fact_id,
            "stored_at": self.now(),
            "decision": applied.action,
            "decided_by": outcome.decided_by,
        }
        if applied.superseded:
            result["superseded"] = [{"id": i, "fact": t} for i, t in applied.superseded]
        if applied.action == "merged":
            result["message"] = await self.offload(self._merge_message, agent_id, applied, text)
            return result
        if applied.action == "kept_as_history":
            assert applied.stands is not None
            result["superseded_by"] = {"id": applied.stands[0], "fact": applied.stands[1]}
            result["message"] = (
                f"Kept only as history: fact {applied.stands[0]} says otherwise and stands, because it is more "
                f"trusted than a statement of provenance '{provenance}' or was learned later."
            )
        elif applied.superseded:
            result["message"] = (
                f"Stored; it replaces {len(applied.superseded)} older fact(s), kept as history "
                "(list_facts or retrieve_memories with include_history shows them)."
            )
        elif outcome.similar:
            result["similar_existing"] = [{"id": i, "fact": t} for i, t, _ in outcome.similar]
            result["message"] = (
                f'Stored, but {len(outcome.similar)} similar fact(s) found in "{category}". Consider update_fact to '
                "supersede the old one, or delete_fact to remove duplicates."
            )
        if self.embedder is not None and not outcome.vector_stored:
            result["vector"] = "missing: the embedder did not answer; backfill_embeddings will add it"
        return result

    def _merge_message(self, agent_id: str, applied: Applied, text: str) -> str:
        row = self.facts.get(agent_id, applied.fact_id)
        if row is None or row["fact"] == text:
            message = "Fact already exists, updated timestamp"
        else:
            message = f"Same as fact {applied.fact_id} ({row['fact']!r}): merged, timestamps updated"
        if applied.raised and row is not None:
            message += f"; it is now recorded with provenance '{row['provenance']}'"
        return message

    async def update_fact(
        self,
        agent_id: str,
        fact_id: int,
        fact: str,
        category: str | None,
        provenance: str = DEFAULT_PROVENANCE,
    ) -> dict[str, Any]:
        text = require_text("fact", fact)
        kind = find_secret(text)
        if kind is not None:
            raise InvalidArguments(refusal("The new fact text", kind))
        row = await self.offload(self.facts.get, agent_id, fact_id)
        if row is None:
            raise NotFound(f"Fact {fact_id} does not exist for agent '{agent_id}'.")
        if trust(provenance) < trust(row["provenance"]):
            # The label must stay true: a less trusted caller rewriting the owner's fact would launder its text.
            raise NotAllowed(
                f"Fact {fact_id} has provenance '{row['provenance']}'; an update with provenance '{provenance}' "
                "cannot change it. Store the new statement with store_fact instead: it is kept beside it."
            )
        keys = claims.keys(claims.parse(text))
        old = await self.offload(self.facts.update, agent_id, fact_id, text, category, keys, self.now())
        if old is None:
            raise NotFound(f"Fact {fact_id} does not exist for agent '{agent_id}'.")
        if trust(provenance) > trust(old["provenance"]):
            await self.offload(self.facts.set_provenance, agent_id, fact_id, provenance)
        if old["fact"] != text:
            self.index.remove(agent_id, [fact_id])
            await self.embed_facts(agent_id, [(fact_id, text)])
        return {"fact_id": fact_id, "old_fact": old["fact"], "new_fact": text, "category": category or old["category"]}

    def get_fact(self, agent_id: str, fact_id: int) -> dict[str, Any]:
        row = self.facts.get(agent_id, fact_id)
        if row is None:
            raise NotFound(f"Fact {fact_id} does not exist for agent '{agent_id}'.")
        return {"fact": fact_dict(row)}

    async def delete_fact(self, agent_id: str, fact_id: int) -> dict[str, Any]:
        deleted = await self.offload(self.facts.delete, agent_id, fact_id)
        if deleted is None:
            raise NotFound(f"Fact {fact_id} does not exist for agent '{agent_id}'.")
        row, ids = deleted
        self.index.remove(agent_id, ids)
        return {"deleted_fact": row["fact"], "fact_id": fact_id, "history_deleted": len(ids) - 1}

    def list_facts(
        self, agent_id: str, category: str | None, limit: int, include_history: bool = False
    ) -> dict[str, Any]:
        rows, total = self.facts.listing(agent_id, category, limit, include_history=include_history)
        listed: dict[str, Any] = {"facts": [fact_dict(row) for row in rows], "total_count": total}
        if category and not total:
            # A small model adds a filter it was never asked for (a correction listed as `category: "pattern"`),
            # finds nothing and gives up, or guesses an id.
            _, everything = self.facts.listing(agent_id, None, 1, include_history=include_history)
            if everything:
                listed["hint"] = unfiltered_hint("fact", everything, "category")
        return listed

    # -- search ------------------------------------------------------------------------------------------------

    def _vector_scores(
        self, agent_id: str, query_vector: np.ndarray, k: int, include_history: bool = False
    ) -> dict[int, float]:
        embedder = self.embedder
        assert embedder is not None
        dimension = embedder.dimension
        if query_vector.shape != (dimension,):
            raise ValueError(f"query vector has shape {query_vector.shape}, expected ({dimension},)")
        key = embedder.key
        hits = self.index.search(
            key,
            agent_id,
            dimension,
            query_vector,
            k,
            lambda: self.facts.load_vectors(key, agent_id, dimension),
            current_only=not include_history,
        )
        return dict(hits)

    def _key_scores(
        self, agent_id: str, terms: claims.QueryTerms, found: list[int], include_history: bool
    ) -> dict[int, float]:
        """How well each fact's subject and attribute match the query (claims.key_match): the facts already found,
        and those filed under the keys the query points at."""
        if not terms.slots and not terms.subjects:
            return {}
        lookup = [f"|{slot}" for slot in terms.slots if terms.about_user]
        lookup += [f"{subject}|{slot}" for subject in terms.subjects for slot in (*terms.slots, "is")]
        keys = self.facts.keys_of(agent_id, found, lookup, include_history=include_history)
        return {fact_id: max(claims.key_match(key, terms) for key in fact_keys) for fact_id, fact_keys in keys.items()}

    def _text_scores(self, agent_id: str, query: str, k: int, include_history: bool) -> dict[int, float]:
        try:
            return self.facts.text_scores(agent_id, query, k, include_history=include_history)
        except DatabaseError as exc:
            log.warning("full-text search failed; using LIKE", extra={"error": str(exc)})
            return {}

    async def search_facts(self, agent_id: str, query: str, limit: int, include_history: bool = False) -> SearchResult:
        if not query.strip():
            return SearchResult([], {}, "none")
        k = limit * 3
        terms = claims.query_terms(query)
        # "the", "user", "where" match nearly every fact and only add noise to BM25: search the meaningful words.
        words = " ".join(terms.words) or query
        vector: dict[int, float] = {}
        note = None
        vector_ran = False
        if self.embedder is not None and agent_id in self.reembedding:
            note = "facts are being embedded again for a new embedding model; searched by text meanwhile"
        elif self.embedder is not None:
            try:
                query_vector = np.asarray(await self.embedder.embed_one(query), dtype=np.float32)
                vector = await self.offload(self._vector_scores, agent_id, query_vector, k, True)
                vector_ran = True
            except Exception as exc:
                note = f"vector search unavailable ({type(exc).__name__}: {exc}); used full-text search"
                log.warning("vector search failed; using full-text search", extra={"error": str(exc)})
        # History is searched too: a fact that no longer holds but matches the question well points to the fact
        # that replaced it ("Coffee is my morning drink" → "I've swapped coffee for green tea"), which may share
        # no word with the question.
        text = await self.offload(self._text_scores, agent_id, words, k, True)
        keyed = await self.offload(self._key_scores, agent_id, terms, [*vector, *text], True)
        if vector or text or keyed:
            if vector_ran:
                weights = (self.settings.memory_vector_weight, self.settings.memory_text_weight)
                ranked = ranking.hybrid_rank(vector, text, *weights)
            else:
                ranked = ranking.rank_single(text)
            ranked = ranking.boost(ranked, keyed, self.settings.memory_key_weight)
            if not include_history:
                successors = await self.offload(self.facts.current_successors, agent_id, [i for i, _ in ranked])
                ranked = ranking.carry_to(ranked, successors)
            top = ranked[:limit]
            return SearchResult([i for i, _ in top], dict(top), "hybrid" if vector_ran else "fts", note)
        ids = await self.offload(
            functools.partial(self.facts.like_ids, include_history=include_history),
            agent_id,
            like_patterns(query),
            limit,
        )
        return SearchResult(ids, {}, "like", note)

    async def retrieve(
        self, agent_id: str, query: str, limit: int, include_conversations: bool, include_history: bool = False
    ) -> dict[str, Any]:
        limit_text("query", query)
        found = await self.search_facts(agent_id, query, limit, include_history)
        rows = await self.offload(self.facts.by_ids, agent_id, found.fact_ids)
        # The best `limit` by relevance, current facts first: history only follows what is true now.
        ordered = sorted((rows[i] for i in found.fact_ids if i in rows), key=lambda row: row["valid_until"] is not None)
        await self.offload(self.facts.mark_accessed, [row["id"] for row in ordered], self.now())
        facts = []
        for row in ordered:
            item = fact_dict(row)
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
                "Set EMBEDDING_PROVIDER=multilingual (offline) or ollama and restart the Memorizer."
            )
        key = self.embedder.key
        processed, embedded, missing = await self._embed_missing(agent_id, key, batch_size)
        if processed and embedded == 0:
            raise ToolFailure(
                f"The embedder {key} did not answer, so no vectors were added ({missing} facts still lack one). "
                "Check the embedding provider (EMBEDDING_PROVIDER, OLLAMA_HOST) and try again."
            )
        return {
            "processed": processed,
            "embedded": embedded,
            "failed": processed - embedded,
            "remaining": missing - embedded,
            "embedder": key,
        }

    def stats(self, agent_id: str) -> dict[str, Any]:
        by_category = self.facts.counts_by_category(agent_id)
        by_provenance, history = self.facts.counts_by_provenance(agent_id)
        fts = self.facts.fts_available()
        key = self.embedder.key if self.embedder else None
        with_vectors = self.facts.count_with_vectors(agent_id, key) if key else 0
        total = sum(by_category.values())
        return {
            "fact_count": total,
            "superseded_fact_count": history,
            **self.conversations.stats(agent_id),
            "facts_by_category": by_category,
            "facts_by_provenance": by_provenance,
            "database_size_mb": round(self.db.size_bytes() / 1024 / 1024, 2),
            "search_capabilities": {
                "sqlite_vec_loaded": True,
                "embedding_provider": key,
                "vector_search_enabled": key is not None,
                "fts5_available": fts,
                "search_mode": "hybrid" if key else "fts5_only" if fts else "like_fallback",
                "facts_with_vectors": with_vectors,
                "facts_missing_vectors": total + history - with_vectors if key else None,
                "reembedding_in_progress": agent_id in self.reembedding,
            },
        }
