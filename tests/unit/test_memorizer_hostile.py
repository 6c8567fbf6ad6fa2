"""Hostile inputs: SQL-looking text, FTS syntax, oversized strings, wrong types and values. Each gets a clear
answer and changes nothing it should not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlean as sqlite3
from mcp import Client

from memorizer_mcp import server as memorizer
from memorizer_mcp.params import MAX_TEXT_BYTES
from memorizer_mcp.server import server
from tests.fakes.embedder import FakeEmbedder
from tests.unit.test_memorizer_search_logic import HOSTILE
from tests.unit.test_memorizer_tools import call, ok, refused, schema_error

BIG = "x" * (MAX_TEXT_BYTES + 1)
BIG_MULTIBYTE = "é" * (MAX_TEXT_BYTES // 2 + 1)  # fewer characters than bytes: the limit is in bytes


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    fake = FakeEmbedder()
    monkeypatch.setattr(memorizer.seams, "embedder_factory", lambda settings: fake)
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    return fake


def counts(home: Path) -> dict[str, int]:
    conn = sqlite3.connect(str(home / "data" / "memory.db"))
    try:
        tables = ("facts", "conversations", "profiles", "skills", "contacts", "projects", "project_sources")
        return {table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in tables}
    finally:
        conn.close()


SQLISH = [
    "'); DROP TABLE facts;--",
    "Robert'); DELETE FROM facts WHERE ('1'='1",
    '" OR 1=1 --',
    "x' UNION SELECT * FROM sqlite_master --",
    "facts_fts MATCH '*'",
    "%' OR fact LIKE '%",
]


@pytest.mark.parametrize("text", SQLISH)
async def test_sql_looking_text_is_stored_and_found_as_plain_text(
    embedder: FakeEmbedder, annabelle_home: Path, text: str
) -> None:
    async with Client(server) as client:
        stored = await ok(client, "store_fact", fact=text, category="pattern")
        await ok(client, "store_fact", fact="An innocent fact", category="pattern")
        listed = await ok(client, "list_facts")
        found = await ok(client, "retrieve_memories", query=text)
        await ok(client, "store_conversation", user_message=text, agent_response=text)
        conversations = await ok(client, "search_conversations", query=text)
        await ok(client, "create_contact", name=text, email=f"{abs(hash(text))}@example.com", notes=text)
        contacts = await ok(client, "list_contacts", name=text)
    assert listed["total_count"] == 2
    assert any(f["id"] == stored["fact_id"] and f["fact"] == text for f in listed["facts"])
    assert stored["fact_id"] in [f["id"] for f in found["facts"]]
    assert conversations["total_count"] == 1
    assert [c["name"] for c in contacts["contacts"]] == [text]
    assert counts(annabelle_home)["facts"] == 2


@pytest.mark.parametrize("query", [q for q in HOSTILE if q.strip()])
async def test_no_search_text_makes_retrieval_fail(embedder: FakeEmbedder, query: str) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Likes green tea (not coffee) AND cake*", category="preference")
        found = await ok(client, "retrieve_memories", query=query)
        events = await ok(client, "query_timeline", date_from="2020-01-01", query=query[:1000])
    assert found["search_mode"] in {"hybrid", "fts", "like"}
    assert isinstance(events["events"], list)


async def test_a_whitespace_query_finds_nothing_instead_of_everything(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Likes tea", category="preference")
        found = await ok(client, "retrieve_memories", query="   \t ")
    assert found == {"facts": [], "conversations": [], "search_mode": "none"}


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("store_fact", {"fact": BIG, "category": "preference"}, "fact"),
        ("store_fact", {"fact": BIG_MULTIBYTE, "category": "preference"}, "fact"),
        ("update_fact", {"fact_id": 1, "fact": BIG}, "fact"),
        ("store_conversation", {"user_message": BIG, "agent_response": "ok"}, "user_message"),
        ("store_conversation", {"user_message": "hi", "agent_response": BIG}, "agent_response"),
        ("retrieve_memories", {"query": BIG}, "query"),
        ("update_profile", {"updates": {"user_info.background": BIG}}, "profile"),
        ("store_skill", {"name": "s", "trigger_type": "manual", "instructions": BIG}, "instructions"),
        ("create_contact", {"name": "n", "email": "n@example.com", "notes": BIG}, "notes"),
        ("create_project", {"name": "p", "description": BIG}, "description"),
    ],
)
async def test_texts_over_one_megabyte_are_refused_with_a_sentence_and_nothing_is_stored(
    embedder: FakeEmbedder, annabelle_home: Path, tool: str, arguments: dict[str, Any], field: str
) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Existing fact", category="preference")
        before = counts(annabelle_home)
        error = await refused(client, tool, "INVALID_ARGUMENTS", **arguments)
    assert field in error and "1 MB" in error
    assert len(error) < 300
    assert counts(annabelle_home) == before


async def test_a_text_just_under_the_limit_is_accepted(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        stored = await ok(client, "store_fact", fact="y" * (MAX_TEXT_BYTES - 10), category="pattern")
    assert stored["fact_id"] == 1


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("store_fact", {"fact": "x", "category": "feelings"}),
        ("store_fact", {"fact": "x"}),
        ("store_fact", {"fact": "", "category": "preference"}),
        ("store_fact", {"fact": 42, "category": "preference"}),
        ("store_fact", {"fact": "x", "category": "preference", "agent_id": "../../etc"}),
        ("store_fact", {"fact": "x", "category": "preference", "agent_id": ""}),
        ("list_facts", {"limit": 0}),
        ("list_facts", {"limit": 100_000}),
        ("list_facts", {"limit": "many"}),
        ("delete_fact", {"fact_id": "abc"}),
        ("delete_fact", {"fact_id": -1}),
        ("retrieve_memories", {"query": "tea", "limit": 0}),
        ("retrieve_memories", {"query": "tea", "include_conversations": "perhaps"}),
        ("store_conversation", {"user_message": "hi", "agent_response": "x", "tags": "not-a-list"}),
        ("update_profile", {"updates": ["user_info.name", "Ana"]}),
        ("store_skill", {"name": "s", "trigger_type": "hourly", "instructions": "x"}),
        ("store_skill", {"name": "s", "trigger_type": "cron", "instructions": "x", "execution_plan": [{"id": "1"}]}),
        ("create_contact", {"name": "n", "email": "n@example.com", "type": "enemy"}),
        ("create_project", {"name": "p", "priority": "urgent"}),
        ("backfill_embeddings", {"batch_size": 201}),
        ("synthesize_facts", {"max_facts_per_category": 0}),
        ("query_timeline", {"date_from": "2026-01-01", "categories": ["gossip"]}),
        ("export_memory", {"format": "pdf"}),
        ("list_skills", {"agent_id": "**"}),
    ],
)
async def test_arguments_outside_the_schema_are_refused_and_change_nothing(
    embedder: FakeEmbedder, annabelle_home: Path, tool: str, arguments: dict[str, Any]
) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Existing fact", category="preference")
        before = counts(annabelle_home)
        await schema_error(client, tool, **arguments)
        after = await ok(client, "list_facts")
    assert counts(annabelle_home) == before
    assert [f["fact"] for f in after["facts"]] == ["Existing fact"]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("store_fact", {"fact": "   ", "category": "preference"}),
        ("store_conversation", {"user_message": " \n ", "agent_response": "x"}),
        ("create_contact", {"name": "  ", "email": "a@example.com"}),
        ("store_skill", {"name": "\t", "trigger_type": "manual", "instructions": "x"}),
    ],
)
async def test_blank_texts_are_refused_with_a_sentence(
    embedder: FakeEmbedder, tool: str, arguments: dict[str, Any]
) -> None:
    async with Client(server) as client:
        error = await refused(client, tool, "INVALID_ARGUMENTS", **arguments)
    assert "is empty" in error


async def test_odd_but_valid_unicode_is_kept_exactly(embedder: FakeEmbedder) -> None:
    text = "Ana’s café 🍵 — 日本語 \u200b zero-width and\ttab"
    async with Client(server) as client:
        await ok(client, "store_fact", fact=text, category="preference")
        listed = await ok(client, "list_facts")
        found = await call(client, "retrieve_memories", query="café 日本語")
    assert listed["facts"][0]["fact"] == text
    assert found["success"]


async def test_a_giant_single_word_query_falls_back_without_overflowing_like(embedder: FakeEmbedder) -> None:
    # SQLite refuses LIKE patterns over 50,000 bytes ("pattern too complex"): keywords are cut well before.
    word = "z" * 60_000
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Likes tea", category="preference")
        await ok(client, "store_conversation", user_message="hello there", agent_response="hi")
        found = await ok(client, "retrieve_memories", query=word)
    assert found["facts"][0]["fact"] == "Likes tea"  # the vector side always proposes neighbours
    assert found["conversations"] == []


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("search_conversations", {"query": "q" * 1001}, "query"),
        ("query_timeline", {"date_from": "2020-01-01", "query": "q" * 1001}, "query"),
        ("list_contacts", {"name": "n" * 1001}, "name"),
    ],
)
async def test_substring_searches_refuse_texts_too_long_to_be_a_substring(
    embedder: FakeEmbedder, tool: str, arguments: dict[str, Any], field: str
) -> None:
    async with Client(server) as client:
        await ok(client, "store_conversation", user_message="hello there", agent_response="hi")
        await ok(client, "create_contact", name="Ana", email="ana@example.com")
        error = await refused(client, tool, "INVALID_ARGUMENTS", **arguments)
    assert error.startswith(f"{field} is 1,001 characters")
