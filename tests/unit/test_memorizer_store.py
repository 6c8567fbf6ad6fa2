"""The facts store below the tools: similarity candidates at scale, and writes from many threads at once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memorizer_mcp import facts as facts_module
from memorizer_mcp.db.connection import Database
from memorizer_mcp.db.migrations import migrate
from memorizer_mcp.facts import FactStore

NOW = "2026-11-21 10:00:00"


@pytest.fixture
def store(tmp_path: Path) -> FactStore:
    db = Database.open(tmp_path / "memory.db")
    migrate(db.conn)
    return FactStore(db)


def add(store: FactStore, text: str, category: str = "pattern", agent: str = "annabelle") -> facts_module.Added:
    return store.add(agent, text, category, source=None, confidence=1.0, now=NOW, threshold=0.6)


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
    _, total = store.list("annabelle", None, 1)
    assert total == 40 + 6 * 40
