"""The facts store below the tools: similarity candidates at scale, writes from many threads at once, and
vectors that finish after their fact changed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memorizer_mcp import facts as facts_module
from memorizer_mcp.db.connection import Database
from memorizer_mcp.db.migrations import migrate
from memorizer_mcp.decisions import Decision
from memorizer_mcp.facts import FactStore, NewFact
from memorizer_mcp.service import Memory
from memorizer_mcp.settings import MemorizerSettings
from tests.fakes.embedder import FakeEmbedder

NOW = "2026-11-21 10:00:00"


@pytest.fixture
def store(tmp_path: Path) -> FactStore:
    db = Database.open(tmp_path / "memory.db")
    migrate(db.conn)
    return FactStore(db)


def add(store: FactStore, text: str, category: str = "pattern", agent: str = "annabelle") -> facts_module.Applied:
    new = NewFact(agent, text, category, None, "unknown", "untrusted", 1.0, NOW, ())
    return store.apply(new, Decision("add"), NOW, 0.6)


def test_a_similar_fact_is_found_through_a_rare_shared_keyword_among_many_common_ones(
    store: FactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facts_module, "COMMON_KEYWORD_FACTS", 3)
    for i in range(10):
        add(store, f"User walks dog number{i}")
    target = add(store, "User plays cello weekly")
    found = add(store, "User plays cello daily")
    assert [fact_id for fact_id, _, _ in found.similar] == [target.fact_id]


def test_when_every_keyword_is_common_the_candidates_hold_all_of_them(
    store: FactStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facts_module, "COMMON_KEYWORD_FACTS", 3)
    for i in range(5):
        add(store, f"User walks often {i}")
    for i in range(5):
        add(store, f"Dog sleeps often {i}")
    both = add(store, "User walks dog")
    found = add(store, "Dog walks user")
    assert both.fact_id in [fact_id for fact_id, _, _ in found.similar]


def test_similarity_stays_within_the_agent_and_the_category(store: FactStore) -> None:
    add(store, "Likes green tea", category="preference", agent="bob")
    add(store, "Likes green tea", category="pattern")
    assert add(store, "Likes green tea daily", category="preference").similar == []


def test_concurrent_writes_lose_nothing_and_store_each_text_once(store: FactStore) -> None:
    errors: list[BaseException] = []

    def writer(worker: int) -> None:
        try:
            for i in range(40):
                add(store, f"shared fact {i}")
                add(store, f"worker {worker} fact {i}")
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    _, total = store.listing("annabelle", None, 1)
    assert total == 40 + 6 * 40


class SlowEmbedder(FakeEmbedder):
    """Waits for `release` before answering: lets a test change a fact while it is being embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.started.set()
        await self.release.wait()
        return await super().embed(texts)


async def test_a_fact_deleted_or_rewritten_while_being_embedded_gets_no_stale_vector(tmp_path: Path) -> None:
    embedder = SlowEmbedder()
    settings = MemorizerSettings(annabelle_home=tmp_path, _env_file=None)  # type: ignore[call-arg]
    memory = Memory.open(settings, embedder)
    embedder.release.set()
    await memory.store_fact("annabelle", "Owns a kayak", "background", None)
    embedder.release.clear()
    embedder.started.clear()
    # update_fact embeds the new text after writing it: the fact is deleted meanwhile.
    gone = asyncio.create_task(memory.update_fact("annabelle", 1, "Owns a red kayak", None))
    await embedder.started.wait()
    await memory.offload(memory.facts.delete, "annabelle", 1)
    embedder.release.set()
    await gone
    assert memory.facts.count_with_vectors("annabelle", embedder.key) == 0

    embedder.fail_with = RuntimeError("down")
    await memory.store_fact("annabelle", "Owns a canoe", "background", None)
    embedder.fail_with = None
    embedder.release.clear()
    embedder.started.clear()
    # A backfill embeds the stored text: the fact is rewritten meanwhile.
    kept = asyncio.create_task(memory.backfill_embeddings("annabelle", 10))
    await embedder.started.wait()
    await memory.offload(memory.facts.update, "annabelle", 2, "Owns a sailing boat", None, [], memory.now())
    embedder.release.set()
    await asyncio.gather(kept, return_exceptions=True)  # nothing stored: it may say the embedder gave nothing
    assert memory.facts.count_with_vectors("annabelle", embedder.key) == 0
    # The rewritten fact is embedded again by the next backfill, from its current text.
    assert (await memory.backfill_embeddings("annabelle", 10))["embedded"] == 1
    found = await memory.search_facts("annabelle", "sailing boat", 1)
    assert (found.fact_ids, found.mode) == ([2], "hybrid")
    memory.close()
