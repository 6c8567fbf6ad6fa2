"""The 31 Memorizer tools, called in-process through an MCP client as the hub would call them.

The embedder is the deterministic fake (tests/fakes/embedder.py), swapped in through `seams.embedder_factory`;
fact extraction is off unless a test turns it on (those tests live in tests/integration with the fake LLM).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sqlean as sqlite3
from mcp import Client

from memorizer_mcp import server as memorizer
from memorizer_mcp.server import server
from shared.embeddings.base import EmbeddingError
from tests.fakes.embedder import FakeEmbedder

TOOLS = {
    "store_fact", "list_facts", "delete_fact", "update_fact", "store_conversation", "search_conversations",
    "get_profile", "update_profile", "retrieve_memories", "get_memory_stats", "export_memory", "import_memory",
    "store_skill", "list_skills", "get_skill", "update_skill", "delete_skill", "backfill_extract_facts",
    "synthesize_facts", "backfill_embeddings", "create_contact", "list_contacts", "update_contact", "create_project",
    "list_projects", "update_project", "link_project_source", "unlink_project_source", "list_project_sources",
    "update_project_source_status", "query_timeline",
}  # fmt: skip
HUB_ONLY = {"get_fact", "get_contact", "compare_request"}
"""What the hub uses to judge and name a record in an approval (privilegedTools: agents never see them)."""


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert result.is_error == (not envelope["success"])
    return envelope


async def ok(client: Client, tool: str, **arguments: Any) -> Any:
    envelope = await call(client, tool, **arguments)
    assert envelope["success"], envelope
    return envelope["data"]


async def refused(client: Client, tool: str, code: str, **arguments: Any) -> str:
    envelope = await call(client, tool, **arguments)
    assert not envelope["success"], envelope
    assert envelope["errorCode"] == code, envelope
    return str(envelope["error"])


async def schema_error(client: Client, tool: str, **arguments: Any) -> str:
    """Arguments outside the schema are an INVALID_ARGUMENTS envelope: one sentence, no pydantic noise."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    envelope = json.loads(str(result.content[0].text))  # type: ignore[union-attr]
    assert envelope["errorCode"] == "INVALID_ARGUMENTS", envelope
    assert "pydantic" not in envelope["error"] and "[type=" not in envelope["error"], envelope
    return str(envelope["error"])


def db_rows(home: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(str(home / "data" / "memory.db"))
    try:
        return [tuple(row) for row in conn.execute(sql, params)]
    finally:
        conn.close()


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    fake = FakeEmbedder()
    monkeypatch.setattr(memorizer.seams, "embedder_factory", lambda settings: fake)
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    return fake


# -- the catalogue ------------------------------------------------------------------------------------------------


async def test_the_server_offers_the_original_31_tools_and_three_for_the_hub_each_parameter_documented(
    embedder: FakeEmbedder,
) -> None:
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        assert {tool.name for tool in tools} == TOOLS | HUB_ONLY
        for tool in tools:
            assert tool.description and len(tool.description.splitlines()[0]) <= 110, tool.name
            properties = tool.input_schema.get("properties", {})
            for name, schema in properties.items():
                assert schema.get("description"), f"{tool.name}.{name} has no description"
            assert properties["agent_id"]["default"] == "annabelle", tool.name
        schemas = {tool.name: tool.input_schema for tool in tools}
        assert schemas["store_fact"]["required"] == ["fact", "category"]
        assert schemas["retrieve_memories"]["properties"]["limit"]["default"] == 5
        assert schemas["store_skill"]["properties"]["max_steps"]["default"] == 10
        assert schemas["backfill_embeddings"]["properties"]["batch_size"]["maximum"] == 200


# -- facts --------------------------------------------------------------------------------------------------------


async def test_stored_facts_list_newest_first_with_a_total(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        first = await ok(client, "store_fact", fact="Lives in Lisbon", category="background")
        second = await ok(client, "store_fact", fact="Prefers dark mode", category="preference", source="conv_x")
        listed = await ok(client, "list_facts")
        assert listed["total_count"] == 2
        assert [f["id"] for f in listed["facts"]] == [second["fact_id"], first["fact_id"]]
        assert listed["facts"][0] == {
            "id": second["fact_id"],
            "fact": "Prefers dark mode",
            "category": "preference",
            "confidence": 1.0,
            "source": "conv_x",
            "source_type": "unknown",
            "provenance": "untrusted",
            "created_at": listed["facts"][0]["created_at"],
            "valid_until": None,
            "superseded_by": None,
        }
        only = await ok(client, "list_facts", category="background", limit=1)
        assert [f["fact"] for f in only["facts"]] == ["Lives in Lisbon"] and only["total_count"] == 1
        assert "hint" not in only and "hint" not in listed
        # An empty filtered listing says that there is more without the filter (a small model stops there).
        none = await ok(client, "list_facts", category="pattern")
        assert none["facts"] == [] and "2 fact(s) exist" in none["hint"] and "category" in none["hint"]


async def test_reading_facts_written_from_untrusted_content_marks_the_result_untrusted(
    embedder: FakeEmbedder,
) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Lives in Lisbon", category="background", provenance="owner")
        owner_only = await call(client, "list_facts")
        assert "untrusted" not in owner_only
        assert "untrusted" not in await call(client, "retrieve_memories", query="Lisbon")
        await ok(client, "store_fact", fact="Banks with EvilBank", category="background", provenance="untrusted")
        listed = await call(client, "list_facts")
        assert listed["untrusted"] is True and len(listed["data"]["facts"]) == 2
        found = await call(client, "retrieve_memories", query="EvilBank")
        assert found["untrusted"] is True and found["data"]["facts"][0]["provenance"] == "untrusted"


async def test_an_identical_fact_returns_the_existing_id_instead_of_a_copy(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        first = await ok(client, "store_fact", fact="Lives in Lisbon", category="background")
        again = await ok(client, "store_fact", fact="  Lives in Lisbon ", category="background")
        assert again["fact_id"] == first["fact_id"]
        assert (again["decision"], again["message"]) == ("merged", "Fact already exists, updated timestamp")
        # The category is a label a model chose: the same statement filed elsewhere is still the same fact.
        other_category = await ok(client, "store_fact", fact="Lives in Lisbon", category="pattern")
        assert other_category["fact_id"] == first["fact_id"]
        assert db_rows(annabelle_home, "SELECT COUNT(*) FROM facts") == [(1,)]


async def test_a_similar_fact_is_stored_with_a_warning_naming_the_existing_one(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        tea = await ok(client, "store_fact", fact="Likes green tea in the morning", category="preference")
        similar = await ok(client, "store_fact", fact="Drinks green tea every morning", category="preference")
        assert similar["similar_existing"] == [{"id": tea["fact_id"], "fact": "Likes green tea in the morning"}]
        assert "update_fact" in similar["message"]
        unrelated = await ok(client, "store_fact", fact="Owns a red bicycle", category="preference")
        assert "similar_existing" not in unrelated


async def test_the_similarity_threshold_is_configurable(
    monkeypatch: pytest.MonkeyPatch, embedder: FakeEmbedder
) -> None:
    monkeypatch.setenv("MEMORY_SIMILARITY_THRESHOLD", "1.0")
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Likes green tea in the morning", category="preference")
        near = await ok(client, "store_fact", fact="Likes green tea at night", category="preference")
    assert "similar_existing" not in near


async def test_a_fact_holding_a_secret_is_refused_without_echoing_it(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        secret = "sk-" + "Zq9" * 10
        error = await refused(
            client, "store_fact", "INVALID_ARGUMENTS", fact=f"my OpenAI key is {secret}", category="background"
        )
        assert "OpenAI API key" in error and secret not in error
        error = await refused(
            client, "store_fact", "INVALID_ARGUMENTS", fact="bank password: hunter2", category="background"
        )
        assert "hunter2" not in error
        assert db_rows(annabelle_home, "SELECT COUNT(*) FROM facts") == [(0,)]


async def test_update_and_delete_change_the_fact_and_its_search_entries(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        fact = await ok(client, "store_fact", fact="Lives in London", category="background")
        updated = await ok(client, "update_fact", fact_id=fact["fact_id"], fact="Lives in Porto near the river")
        assert updated == {
            "fact_id": fact["fact_id"],
            "old_fact": "Lives in London",
            "new_fact": "Lives in Porto near the river",
            "category": "background",
        }
        found = await ok(client, "retrieve_memories", query="Porto")
        assert [f["fact"] for f in found["facts"]] == ["Lives in Porto near the river"]
        gone = await ok(client, "retrieve_memories", query="London", include_conversations=False)
        assert all("London" not in f["fact"] for f in gone["facts"])
        deleted = await ok(client, "delete_fact", fact_id=fact["fact_id"])
        assert deleted["deleted_fact"] == "Lives in Porto near the river"
        after = await ok(client, "retrieve_memories", query="Porto river")
        assert after["facts"] == []
        await refused(client, "delete_fact", "NOT_FOUND", fact_id=fact["fact_id"])


async def test_an_update_to_a_secret_is_refused_and_the_fact_is_unchanged(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        fact = await ok(client, "store_fact", fact="Uses a password manager", category="pattern")
        await refused(client, "update_fact", "INVALID_ARGUMENTS", fact_id=fact["fact_id"], fact="pwd=letmein")
        assert (await ok(client, "list_facts"))["facts"][0]["fact"] == "Uses a password manager"


# -- agents are isolated ------------------------------------------------------------------------------------------


async def test_one_agent_can_neither_see_nor_change_another_agents_facts(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        bobs = await ok(client, "store_fact", fact="Bob likes chess", category="preference", agent_id="bob")
        await ok(client, "store_fact", fact="Annabelle's user likes chess too", category="preference")
        assert (await ok(client, "list_facts"))["total_count"] == 1
        mine = await ok(client, "retrieve_memories", query="chess")
        assert [f["fact"] for f in mine["facts"]] == ["Annabelle's user likes chess too"]
        error = await refused(client, "delete_fact", "NOT_FOUND", fact_id=bobs["fact_id"])
        assert "does not exist for agent 'annabelle'" in error
        await refused(client, "update_fact", "NOT_FOUND", fact_id=bobs["fact_id"], fact="hijacked")
        theirs = await ok(client, "list_facts", agent_id="bob")
        assert [f["fact"] for f in theirs["facts"]] == ["Bob likes chess"]


# -- search ---------------------------------------------------------------------------------------------------------


async def test_retrieval_combines_vectors_and_full_text_and_touches_what_it_returns(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Drinks green tea every morning", category="preference")
        await ok(client, "store_fact", fact="Owns a red bicycle", category="background")
        db_rows(annabelle_home, "SELECT 1")  # the file exists
        conn = sqlite3.connect(str(annabelle_home / "data" / "memory.db"))
        conn.execute("UPDATE facts SET last_accessed_at = '2000-01-01 00:00:00'")
        conn.commit()
        conn.close()
        found = await ok(client, "retrieve_memories", query="morning tea", limit=1)
        assert found["search_mode"] == "hybrid"
        assert [f["fact"] for f in found["facts"]] == ["Drinks green tea every morning"]
        assert set(found["facts"][0]) == {
            "id", "fact", "category", "confidence", "created_at", "score", "source", "source_type", "provenance",
            "valid_until", "superseded_by",
        }  # fmt: skip
        touched = db_rows(
            annabelle_home, "SELECT fact, last_accessed_at > '2000-01-01 00:00:00' FROM facts ORDER BY id"
        )
        assert touched == [("Drinks green tea every morning", 1), ("Owns a red bicycle", 0)]


async def test_full_text_search_uses_stemming(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Went running with friends", category="pattern")
        await ok(client, "store_fact", fact="Plays the violin", category="background")
        found = await ok(client, "retrieve_memories", query="runs", limit=1)
        assert [f["fact"] for f in found["facts"]] == ["Went running with friends"]


async def test_without_an_embedder_search_uses_full_text_then_substrings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "none")
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Lives in London", category="background")
        by_word = await ok(client, "retrieve_memories", query="london")
        by_part = await ok(client, "retrieve_memories", query="ondo")
        stats = await ok(client, "get_memory_stats")
    assert by_word["search_mode"] == "fts" and [f["fact"] for f in by_word["facts"]] == ["Lives in London"]
    assert by_part["search_mode"] == "like" and [f["fact"] for f in by_part["facts"]] == ["Lives in London"]
    assert stats["search_capabilities"]["search_mode"] == "fts5_only"
    assert stats["search_capabilities"]["embedding_provider"] is None


async def test_retrieval_also_finds_conversations_by_any_keyword(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "store_conversation", user_message="We talked about the garden shed", agent_response="Yes!")
        await ok(client, "store_conversation", user_message="Unrelated chat", agent_response="Indeed")
        found = await ok(client, "retrieve_memories", query="shed roof")
        assert [c["user_message"] for c in found["conversations"]] == ["We talked about the garden shed"]
        assert set(found["conversations"][0]) == {"id", "user_message", "agent_response", "created_at"}
        without = await ok(client, "retrieve_memories", query="shed", include_conversations=False)
        assert without["conversations"] == []


async def test_an_embedder_failure_never_blocks_a_write_and_search_falls_back(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        embedder.fail_with = EmbeddingError("the embedding server is down")
        stored = await ok(client, "store_fact", fact="Collects vinyl records", category="preference")
        assert stored["vector"].startswith("missing")
        found = await ok(client, "retrieve_memories", query="vinyl")
        assert found["search_mode"] == "fts" and "vector search unavailable" in found["note"]
        assert [f["fact"] for f in found["facts"]] == ["Collects vinyl records"]
        error = await refused(client, "backfill_embeddings", "TOOL_ERROR")
        assert "did not answer" in error
        embedder.fail_with = None
        filled = await ok(client, "backfill_embeddings")
        assert filled == {"processed": 1, "embedded": 1, "failed": 0, "remaining": 0, "embedder": embedder.key}
        assert (await ok(client, "retrieve_memories", query="vinyl"))["search_mode"] == "hybrid"


class GatedEmbedder(FakeEmbedder):
    """Answers one text at once (a query, a new fact) and holds a batch of several (the re-embedding) until
    `release`: the test sees the Memorizer while the facts are being embedded again."""

    def __init__(self, dimension: int) -> None:
        super().__init__(dimension)
        self.release = asyncio.Event()

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) > 1:
            await self.release.wait()
        return await super().embed(texts)


async def test_a_new_embedder_embeds_the_facts_again_in_the_background_and_text_search_serves_meanwhile(
    monkeypatch: pytest.MonkeyPatch, embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        for text in ("Likes tea", "Owns a cat", "Speaks Portuguese"):
            await ok(client, "store_fact", fact=text, category="background")
    other = GatedEmbedder(dimension=64)
    monkeypatch.setattr(memorizer.seams, "embedder_factory", lambda settings: other)
    async with Client(server) as client:
        during = await ok(client, "retrieve_memories", query="cat", limit=1)
        other.release.set()
        for _ in range(500):
            stats = (await ok(client, "get_memory_stats"))["search_capabilities"]
            if not stats["reembedding_in_progress"]:
                break
            await asyncio.sleep(0.01)
        after = await ok(client, "retrieve_memories", query="cat", limit=1)
    # Meanwhile: full text, saying why; the 384-dimensional vectors are never compared with a 64-dimensional query.
    assert during["search_mode"] == "fts" and "embedded again" in during["note"]
    assert [f["fact"] for f in during["facts"]] == ["Owns a cat"]
    assert (stats["facts_with_vectors"], stats["facts_missing_vectors"]) == (3, 0)
    assert after["search_mode"] == "hybrid" and [f["fact"] for f in after["facts"]] == ["Owns a cat"]
    # One vector per fact, from the embedder that searches it: the old ones are gone.
    keys = db_rows(annabelle_home, "SELECT embedder_key, COUNT(*) FROM fact_vectors GROUP BY 1 ORDER BY 1")
    assert keys == [("fake/hashed-bag-of-words/64", 3)]


async def test_stats_report_counts_categories_and_search_capabilities(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Likes tea", category="preference")
        await ok(client, "store_fact", fact="Lives in Porto", category="background")
        await ok(client, "store_conversation", user_message="hello there", agent_response="hi")
        stats = await ok(client, "get_memory_stats")
        assert stats["fact_count"] == 2 and stats["conversation_count"] == 1
        assert stats["facts_by_category"] == {"background": 1, "preference": 1}
        assert stats["oldest_conversation"] == stats["newest_conversation"] is not None
        assert stats["database_size_mb"] > 0
        assert stats["search_capabilities"] == {
            "sqlite_vec_loaded": True,
            "embedding_provider": "fake/hashed-bag-of-words/384",
            "vector_search_enabled": True,
            "fts5_available": True,
            "search_mode": "hybrid",
            "facts_with_vectors": 2,
            "facts_missing_vectors": 0,
            "reembedding_in_progress": False,
        }


# -- conversations --------------------------------------------------------------------------------------------------


async def test_conversations_are_logged_with_secrets_redacted(embedder: FakeEmbedder, annabelle_home: Path) -> None:
    async with Client(server) as client:
        stored = await ok(
            client,
            "store_conversation",
            user_message="my github token is ghp_" + "a1" * 18 + " keep it",
            agent_response="I will not store that.",
            session_id="chat-1",
            tags=["security"],
        )
        assert stored["conversation_id"].startswith("conv_")
        assert stored["redacted"] == ["GitHub token"]
        assert stored["extraction"] == {
            "status": "skipped",
            "reason": "fact extraction is off (FACT_EXTRACTION_ENABLED=false)",
        }
        rows = db_rows(annabelle_home, "SELECT user_message, session_id, tags FROM conversations")
        assert rows == [("my github token is [redacted GitHub token] keep it", "chat-1", '["security"]')]


async def test_conversations_are_searched_by_text_and_date(embedder: FakeEmbedder, annabelle_home: Path) -> None:
    async with Client(server) as client:
        await ok(client, "store_conversation", user_message="Plan the trip to Porto", agent_response="Sure")
        await ok(client, "store_conversation", user_message="Porto again: book a hotel", agent_response="Done")
        conn = sqlite3.connect(str(annabelle_home / "data" / "memory.db"))
        conn.execute("UPDATE conversations SET created_at = '2026-01-10 12:00:00' WHERE user_message LIKE 'Plan%'")
        conn.commit()
        conn.close()
        every = await ok(client, "search_conversations", query="porto")
        assert every["total_count"] == 2
        january = await ok(client, "search_conversations", query="Porto", date_from="2026-01-01", date_to="2026-01-10")
        assert [c["user_message"] for c in january["conversations"]] == ["Plan the trip to Porto"]
        assert january["conversations"][0]["tags"] is None
        assert (await ok(client, "search_conversations", query="100%"))["total_count"] == 0
        error = await refused(client, "search_conversations", "INVALID_ARGUMENTS", query="x", date_from="yesterday")
        assert "date_from" in error


# -- profile --------------------------------------------------------------------------------------------------------


async def test_the_profile_starts_as_a_skeleton_and_keeps_its_history(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        empty = await ok(client, "get_profile")
        assert empty == {
            "profile": {
                "user_info": {"name": None, "background": None, "timezone": None, "current_role": None},
                "preferences": {"communication": None, "coding_languages": [], "tools": [], "working_style": None},
                "current_projects": [],
                "learned_patterns": [],
            },
            "last_updated": None,
        }
        first = await ok(client, "update_profile", updates={"user_info.name": "Ana", "preferences.tools[0]": "vim"})
        assert first == {"updated_fields": ["user_info.name", "preferences.tools[0]"]}
        await ok(client, "update_profile", updates={"user_info.timezone": "Europe/Lisbon"}, reason="she said so")
        profile = await ok(client, "get_profile")
        assert profile["profile"]["user_info"]["name"] == "Ana"
        assert profile["profile"]["user_info"]["timezone"] == "Europe/Lisbon"
        assert profile["profile"]["preferences"]["tools"] == ["vim"]
        history = db_rows(annabelle_home, "SELECT change_reason, profile_data FROM profile_history")
        assert len(history) == 1 and history[0][0] == "she said so"
        assert json.loads(history[0][1])["user_info"]["timezone"] is None


async def test_a_bad_profile_update_changes_nothing(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "update_profile", updates={"preferences.tools": ["vim"]})
        error = await refused(
            client, "update_profile", "INVALID_ARGUMENTS", updates={"user_info.name": "Ana", "preferences.tools.x": 1}
        )
        assert "is a list" in error
        await refused(client, "update_profile", "INVALID_ARGUMENTS", updates={"bad path!": 1})
        await refused(client, "update_profile", "INVALID_ARGUMENTS", updates={"notes.wifi": "password: hunter2"})
        await refused(client, "update_profile", "INVALID_ARGUMENTS", updates={})
        profile = (await ok(client, "get_profile"))["profile"]
        assert profile["user_info"]["name"] is None and profile["preferences"]["tools"] == ["vim"]
        assert "notes" not in profile


# -- export and import ----------------------------------------------------------------------------------------------


def temporary_files(folder: Path) -> list[Path]:
    return list(folder.rglob("*.tmp"))


async def seed(client: Client) -> None:
    await ok(client, "store_fact", fact="Likes green tea", category="preference")
    await ok(client, "store_fact", fact="Has two cats\nnamed Tom and Kit", category="background")
    await ok(client, "store_fact", fact="Chose Python for the shed project", category="decision")
    await ok(client, "update_profile", updates={"user_info.name": "Ana"})
    await ok(client, "store_conversation", user_message="hello", agent_response="hi")


async def facts_of(client: Client, agent: str) -> set[tuple[str, str, float]]:
    listed = await ok(client, "list_facts", agent_id=agent)
    return {(f["fact"], f["category"], f["confidence"]) for f in listed["facts"]}


async def test_a_json_export_imports_back_to_the_same_facts_and_profile(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        await seed(client)
        exported = await ok(client, "export_memory", format="json")
        folder = Path(exported["export_path"])
        assert folder == (annabelle_home / "memory-export" / "annabelle").resolve()
        assert exported["files"] == ["profile.json", "facts/all-facts.json", "conversations/recent.json"]
        assert not temporary_files(folder)
        imported = await ok(client, "import_memory", file_path="annabelle/facts/all-facts.json", agent_id="copy")
        assert imported["facts_stored"] == 3 and imported["changes_applied"] == 3
        assert await facts_of(client, "copy") == await facts_of(client, "annabelle")
        profile = await ok(client, "import_memory", file_path=str(folder / "profile.json"), agent_id="copy")
        assert profile == {"changes_applied": 1, "fields_updated": ["profile"]}
        assert (await ok(client, "get_profile", agent_id="copy"))["profile"]["user_info"]["name"] == "Ana"
        # Imported facts take the store path: they are embedded, and importing again only finds duplicates.
        assert (await ok(client, "retrieve_memories", query="cats", agent_id="copy"))["search_mode"] == "hybrid"
        again = await ok(client, "import_memory", file_path="annabelle/facts/all-facts.json", agent_id="copy")
        assert (again["facts_stored"], again["duplicates"]) == (0, 3)


async def test_a_markdown_export_is_readable_and_its_fact_files_import_back(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await seed(client)
        exported = await ok(client, "export_memory")
        folder = Path(exported["export_path"])
        assert sorted(exported["files"]) == sorted(
            [
                "profile.md",
                "facts/preference.md",
                "facts/background.md",
                "facts/decision.md",
                "conversations/recent.md",
                "summary.md",
            ]
        )
        assert "- **Name:** Ana" in (folder / "profile.md").read_text(encoding="utf-8")
        assert (folder / "facts" / "preference.md").read_text(encoding="utf-8").startswith("# Preferences I've Learned")
        for category in ("preference", "background", "decision"):
            await ok(client, "import_memory", file_path=f"annabelle/facts/{category}.md", agent_id="copy")
        assert await facts_of(client, "copy") == await facts_of(client, "annabelle")
        error = await refused(client, "import_memory", "INVALID_ARGUMENTS", file_path="annabelle/profile.md")
        assert "profile.json" in error


async def test_export_and_import_stay_inside_the_export_folder_and_the_workspace(
    embedder: FakeEmbedder, annabelle_home: Path, tmp_path: Path
) -> None:
    async with Client(server) as client:
        outside = tmp_path / "outside.json"
        outside.write_text('[{"fact": "planted", "category": "preference"}]', encoding="utf-8")
        for path in ("../outside.json", str(outside), "/etc/passwd", "~/x.json"):
            await refused(client, "import_memory", "NOT_ALLOWED", file_path=path)
        export_root = annabelle_home / "memory-export"
        export_root.mkdir(parents=True, exist_ok=True)
        (export_root / "escape").symlink_to(tmp_path)
        await refused(client, "import_memory", "NOT_ALLOWED", file_path="escape/outside.json")
        await refused(client, "export_memory", "NOT_ALLOWED", output_dir="escape")
        await refused(client, "export_memory", "NOT_ALLOWED", output_dir="../elsewhere")
        await refused(client, "export_memory", "NOT_ALLOWED", output_dir=str(tmp_path))
        assert (await ok(client, "list_facts"))["total_count"] == 0
        assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "profile.md").exists()
        workspace = annabelle_home / "workspace"
        workspace.mkdir()
        (workspace / "mine.json").write_text(
            '[{"fact": "From the workspace", "category": "pattern"}]', encoding="utf-8"
        )
        imported = await ok(client, "import_memory", file_path=str(workspace / "mine.json"))
        assert imported["facts_stored"] == 1
        exported = await ok(client, "export_memory", format="json", output_dir=str(workspace / "backup"))
        assert (workspace / "backup" / "facts" / "all-facts.json").is_file()
        assert exported["export_path"] == str((workspace / "backup").resolve())


async def test_imported_facts_pass_the_secret_filter_and_bad_entries_are_reported(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        folder = annabelle_home / "memory-export"
        folder.mkdir(parents=True)
        entries = [
            {"fact": "Likes jazz", "category": "preference", "confidence": 0.9, "created_at": "2025-05-01 10:00:00"},
            {"fact": "aws_secret_access_key = abcdef", "category": "background"},
            {"fact": "Broken", "category": "feelings"},
        ]
        (folder / "facts.json").write_text(json.dumps(entries), encoding="utf-8")
        imported = await ok(client, "import_memory", file_path="facts.json")
        assert imported["facts_stored"] == 1
        assert imported["rejected_secrets"] == {"AWS secret key": 1}
        assert len(imported["skipped"]) == 1 and "feelings" in imported["skipped"][0]
        listed = (await ok(client, "list_facts"))["facts"]
        assert [(f["fact"], f["confidence"], f["created_at"]) for f in listed] == [
            ("Likes jazz", 0.9, "2025-05-01 10:00:00")
        ]
        await refused(client, "import_memory", "TOOL_ERROR", file_path="missing.json")
        (folder / "profile.json").write_text('{"accounts": {"bank": "password=letmein"}}', encoding="utf-8")
        error = await refused(client, "import_memory", "INVALID_ARGUMENTS", file_path="profile.json")
        assert "password" in error and "letmein" not in error
        assert (await ok(client, "get_profile"))["last_updated"] is None
        (folder / "bad.json").write_text("{not json", encoding="utf-8")
        assert "not valid JSON" in await refused(client, "import_memory", "INVALID_ARGUMENTS", file_path="bad.json")


# -- skills ---------------------------------------------------------------------------------------------------------


async def test_skills_are_created_once_per_name_listed_updated_and_deleted(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        briefing: dict[str, Any] = {
            "name": "Morning Briefing",
            "trigger_type": "cron",
            "trigger_config": {"schedule": "0 6 * * *"},
            "instructions": "Summarise today's calendar and mail.",
        }
        created = await ok(
            client,
            "store_skill",
            **briefing,
            required_tools=["gmail_list_emails"],
            execution_plan=[{"id": "s1", "toolName": "telegram_send_message", "parameters": {"text": "hi"}}],
        )
        again = await ok(client, "store_skill", **briefing)  # the same skill again: nothing new is stored
        assert again["skill_id"] == created["skill_id"] and again["already_existed"] is True
        # Another skill under the taken name is refused, not reported as stored: a model would say it was.
        taken = await refused(
            client,
            "store_skill",
            "INVALID_ARGUMENTS",
            name="Morning Briefing",
            trigger_type="manual",
            instructions="other",
        )
        assert f"(id {created['skill_id']})" in taken and "another name" in taken
        await ok(client, "store_skill", name="Water", trigger_type="manual", instructions="Remind me", enabled=False)
        await ok(client, "store_skill", name="Other agent's", trigger_type="event", instructions="x", agent_id="bob")

        assert (await ok(client, "list_skills"))["total_count"] == 2
        assert [s["name"] for s in (await ok(client, "list_skills", enabled=True))["skills"]] == ["Morning Briefing"]
        assert (await ok(client, "list_skills", agent_id="*"))["total_count"] == 3
        # Filters that match nothing say there are skills without them (a small model stops at an empty list).
        empty = await ok(client, "list_skills", trigger_type="event")
        assert empty["skills"] == [] and "2 skill(s) exist" in empty["hint"] and "trigger_type" in empty["hint"]
        assert "hint" not in await ok(client, "list_skills", enabled=True)
        assert "hint" not in await ok(client, "list_skills", trigger_type="event", agent_id="nobody")
        # A listing is a summary unless asked in full: a playbook's instructions and plan stay out of the prompt.
        (summary,) = (await ok(client, "list_skills", enabled=True))["skills"]
        assert summary["trigger_config"] == {"schedule": "0 6 * * *"} and summary["id"] == created["skill_id"]
        assert "instructions" not in summary and "execution_plan" not in summary
        (full,) = (await ok(client, "list_skills", enabled=True, detail="full"))["skills"]
        assert full["execution_plan"][0]["toolName"] == "telegram_send_message" and full["required_tools"]
        skill = (await ok(client, "get_skill", skill_id=created["skill_id"]))["skill"]
        assert skill["trigger_config"] == {"schedule": "0 6 * * *"}
        assert skill["execution_plan"] == [
            {"id": "s1", "toolName": "telegram_send_message", "parameters": {"text": "hi"}}
        ]
        assert skill["required_tools"] == ["gmail_list_emails"]
        assert (skill["enabled"], skill["max_steps"], skill["notify_on_completion"]) == (True, 10, True)

        updated = await ok(
            client,
            "update_skill",
            skill_id=created["skill_id"],
            last_run_at="2026-11-21T06:00:05+01:00",
            last_run_status="error",
            consecutive_failures=2,
            backoff_until="2026-11-21T05:10:00Z",
            enabled=False,
        )
        assert set(updated["updated_fields"]) == {
            "last_run_at", "last_run_status", "consecutive_failures", "backoff_until", "enabled",
        }  # fmt: skip
        skill = (await ok(client, "get_skill", skill_id=created["skill_id"]))["skill"]
        assert (skill["last_run_at"], skill["backoff_until"]) == ("2026-11-21 05:00:05", "2026-11-21 05:10:00")
        assert (skill["consecutive_failures"], skill["enabled"]) == (2, False)

        await refused(client, "update_skill", "INVALID_ARGUMENTS", skill_id=created["skill_id"])
        await refused(client, "update_skill", "INVALID_ARGUMENTS", skill_id=created["skill_id"], last_run_at="soon")
        await refused(client, "update_skill", "INVALID_ARGUMENTS", skill_id=created["skill_id"], name="Water")
        await refused(client, "get_skill", "NOT_FOUND", skill_id=created["skill_id"], agent_id="bob")
        deleted = await ok(client, "delete_skill", skill_id=created["skill_id"])
        assert deleted["deleted_skill"] == "Morning Briefing"
        await refused(client, "get_skill", "NOT_FOUND", skill_id=created["skill_id"])


async def test_a_skills_token_budgets_are_stored_and_changed(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        created = await ok(
            client, "store_skill", name="Digest", trigger_type="manual", instructions="x", max_tokens_per_run=20_000
        )
        skill = (await ok(client, "get_skill", skill_id=created["skill_id"]))["skill"]
        assert (skill["max_tokens_per_run"], skill["daily_tokens"]) == (20_000, None)
        await ok(client, "update_skill", skill_id=created["skill_id"], daily_tokens=100_000)
        skill = (await ok(client, "get_skill", skill_id=created["skill_id"]))["skill"]
        assert (skill["max_tokens_per_run"], skill["daily_tokens"]) == (20_000, 100_000)
        await refused(client, "update_skill", "INVALID_ARGUMENTS", skill_id=created["skill_id"], daily_tokens=-1)


# -- contacts and projects ------------------------------------------------------------------------------------------


async def test_contacts_have_unique_emails_per_agent(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        ana = await ok(client, "create_contact", name="Ana Silva", email="ana@example.com", company="Acme", role="CTO")
        error = await refused(client, "create_contact", "INVALID_ARGUMENTS", name="Other Ana", email="ANA@example.com")
        assert f"id {ana['contact_id']}" in error and "update_contact" in error
        await ok(client, "create_contact", name="Ana for Bob", email="ana@example.com", agent_id="bob")
        ben = await ok(client, "create_contact", name="Ben", email="ben@example.com", type="personal")
        assert (await ok(client, "list_contacts"))["total_count"] == 2
        assert [c["name"] for c in (await ok(client, "list_contacts", name="silv"))["contacts"]] == ["Ana Silva"]
        assert [c["name"] for c in (await ok(client, "list_contacts", type="personal"))["contacts"]] == ["Ben"]
        assert (await ok(client, "list_contacts", email="Ana@Example.com"))["total_count"] == 1
        changed = await ok(
            client, "update_contact", contact_id=ben["contact_id"], role="Neighbour", notes="Has a ladder"
        )
        assert changed == {"updated_fields": ["role", "notes"]}
        await refused(
            client, "update_contact", "INVALID_ARGUMENTS", contact_id=ben["contact_id"], email="ana@example.com"
        )
        await refused(client, "update_contact", "NOT_FOUND", contact_id=ben["contact_id"], agent_id="bob", role="x")


async def test_projects_link_contacts_and_external_sources(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        contacts = [
            (await ok(client, "create_contact", name=f"P{i}", email=f"p{i}@example.com"))["contact_id"]
            for i in range(12)
        ]
        first, twelfth = contacts[0], contacts[11]
        shed = await ok(
            client, "create_project", name="Shed", primary_contact_id=twelfth, participants=[twelfth], priority="high"
        )
        garden = await ok(client, "create_project", name="Garden", participants=[first], type="personal")
        error = await refused(client, "create_project", "INVALID_ARGUMENTS", name="Shed")
        assert f"id {shed['project_id']}" in error
        assert "create_contact" in await refused(
            client, "create_project", "INVALID_ARGUMENTS", name="X", participants=[999]
        )
        # Contact 1 is not contact 12 (the original matched ids as substrings).
        by_first = await ok(client, "list_projects", contact_id=first)
        assert [p["name"] for p in by_first["projects"]] == ["Garden"]
        assert (await ok(client, "list_projects", priority="high"))["projects"][0]["participants"] == [twelfth]
        cleared = await ok(
            client, "update_project", project_id=shed["project_id"], primary_contact_id=0, priority="none"
        )
        assert cleared == {"updated_fields": ["primary_contact_id", "priority"]}
        project = (await ok(client, "list_projects", status="active"))["projects"]
        shed_row = next(p for p in project if p["name"] == "Shed")
        assert (shed_row["primary_contact_id"], shed_row["priority"]) == (None, None)
        await refused(client, "update_project", "INVALID_ARGUMENTS", project_id=garden["project_id"], name="Shed")

        linked = await ok(
            client,
            "link_project_source",
            project_id=shed["project_id"],
            mcp_name="github",
            external_project_id="o/shed",
        )
        relinked = await ok(
            client,
            "link_project_source",
            project_id=shed["project_id"],
            mcp_name="github",
            external_project_name="Shed repo",
        )
        assert relinked["project_source_id"] == linked["project_source_id"] and relinked["already_existed"] is True
        await refused(
            client, "link_project_source", "NOT_FOUND", project_id=shed["project_id"], mcp_name="x", agent_id="bob"
        )
        await ok(
            client, "update_project_source_status", project_source_id=linked["project_source_id"], last_status="warning"
        )
        sources = await ok(client, "list_project_sources", project_id=shed["project_id"])
        assert sources["total_count"] == 1
        source = sources["sources"][0]
        assert (source["project_name"], source["external_project_name"], source["last_status"]) == (
            "Shed",
            "Shed repo",
            "warning",
        )
        assert source["last_checked_at"] is not None
        assert (await ok(client, "list_project_sources", agent_id="bob"))["total_count"] == 0
        await refused(
            client,
            "update_project_source_status",
            "NOT_FOUND",
            project_source_id=linked["project_source_id"],
            last_status="ok",
            agent_id="bob",
        )
        unlinked = await ok(client, "unlink_project_source", project_id=shed["project_id"], mcp_name="github")
        assert unlinked == {"unlinked_project": "Shed", "unlinked_mcp": "github"}
        await refused(client, "unlink_project_source", "TOOL_ERROR", project_id=shed["project_id"], mcp_name="github")


# -- timeline -------------------------------------------------------------------------------------------------------


async def test_the_timeline_lists_events_across_sources_newest_first(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        fact = await ok(client, "store_fact", fact="Started learning Portuguese", category="project")
        await ok(client, "store_conversation", user_message="Portuguese lesson went well", agent_response="Great")
        await ok(client, "update_profile", updates={"user_info.name": "Ana"})
        await ok(client, "update_profile", updates={"user_info.name": "Ana S."}, reason="full name")
        await ok(
            client, "store_skill", name="Lesson reminder", trigger_type="manual", instructions="Remind about Portuguese"
        )
        await ok(client, "create_contact", name="Teacher", email="t@example.com")
        await ok(client, "create_project", name="Portuguese")
        conn = sqlite3.connect(str(annabelle_home / "data" / "memory.db"))
        conn.execute("UPDATE facts SET created_at = '2026-01-01 09:00:00', updated_at = '2026-01-02 09:00:00'")
        conn.commit()
        conn.close()
        everything = await ok(client, "query_timeline", date_from="2025-12-31")
        kinds = {(e["source"], e["event_type"]) for e in everything["events"]}
        assert kinds == {
            ("facts", "created"), ("facts", "updated"), ("conversations", "created"), ("profile_changes", "changed"),
            ("skills", "created"), ("contacts", "created"), ("projects", "created"),
        }  # fmt: skip
        stamps = [e["timestamp"] for e in everything["events"]]
        assert stamps == sorted(stamps, reverse=True) and everything["total_count"] == len(stamps)
        january = await ok(client, "query_timeline", date_from="2026-01-01", date_to="2026-01-01", categories=["facts"])
        assert [e["details"]["fact_id"] for e in january["events"]] == [fact["fact_id"]]
        assert january["date_range"] == {"from": "2026-01-01 00:00:00", "to": "2026-01-01 23:59:59"}
        keyword = await ok(client, "query_timeline", date_from="2025-01-01", query="portuguese", limit=2)
        assert keyword["total_count"] == 4 and len(keyword["events"]) == 2  # 2 fact events, conversation, project
        await refused(client, "query_timeline", "INVALID_ARGUMENTS", date_from="2026-02-01", date_to="2026-01-01")
        await refused(client, "query_timeline", "INVALID_ARGUMENTS", date_from="last week")


# -- configuration problems -----------------------------------------------------------------------------------------


async def test_an_unopenable_database_makes_every_tool_say_what_to_fix(
    monkeypatch: pytest.MonkeyPatch, embedder: FakeEmbedder, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEMORY_DB_PATH", str(tmp_path))  # a folder, not a file
    async with Client(server) as client:
        error = await refused(client, "list_facts", "TOOL_ERROR")
        assert "MEMORY_DB_PATH" in error
        assert "MEMORY_DB_PATH" in await refused(client, "store_fact", "TOOL_ERROR", fact="x", category="preference")


async def test_a_bad_setting_makes_every_tool_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_TEXT_WEIGHT", "lots")
    async with Client(server) as client:
        assert "MEMORY_TEXT_WEIGHT" in await refused(client, "get_memory_stats", "TOOL_ERROR")


async def test_the_embedder_is_closed_when_the_session_ends(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "get_memory_stats")
    assert embedder.closed
