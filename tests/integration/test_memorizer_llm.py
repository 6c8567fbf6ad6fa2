"""The Memorizer's LLM tools through real litellm against the fake OpenAI-compatible server on 127.0.0.1:
fact extraction in store_conversation, backfill_extract_facts, synthesize_facts, and what happens when the
model is missing, unreachable or answers nonsense."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import sqlean as sqlite3
from mcp import Client

from memorizer_mcp import server as memorizer
from memorizer_mcp.server import server
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.openai_server import FakeOpenAI
from tests.unit.test_memorizer_tools import ok, refused

pytest_plugins = ["tests.fakes.fixtures"]

EXCHANGE = {
    "user_message": "My sister Ana moved to Porto last month and she works as a nurse there.",
    "agent_response": "Thanks for telling me about Ana! Porto is lovely.",
}


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    fake = FakeEmbedder()
    monkeypatch.setattr(memorizer.seams, "embedder_factory", lambda settings: fake)
    return fake


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, fake_llm: FakeOpenAI, embedder: FakeEmbedder) -> FakeOpenAI:
    monkeypatch.setenv("UTILITY_MODEL", "openai/fake-model")
    monkeypatch.setenv("UTILITY_API_BASE", fake_llm.api_base)
    monkeypatch.setenv("UTILITY_API_KEY", "test")
    return fake_llm


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def facts_json(*facts: tuple[str, str, float]) -> str:
    return json.dumps({"facts": [{"fact": f, "category": c, "confidence": p} for f, c, p in facts]})


def rows(home: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(str(home / "data" / "memory.db"))
    try:
        return [tuple(row) for row in conn.execute(sql)]
    finally:
        conn.close()


async def test_extraction_stores_the_safe_confident_facts_of_an_exchange(
    model: FakeOpenAI, annabelle_home: Path
) -> None:
    model.reply(
        facts_json(
            ("The user's sister Ana lives in Porto", "contact", 0.95),
            ("Ana works as a nurse", "background", 0.9),
            ("The user might like travelling", "preference", 0.4),
            ("The user's wifi password: hunter22", "background", 0.99),
        )
    )
    async with Client(server) as client:
        stored = await ok(client, "store_conversation", **EXCHANGE, session_id="chat-1")
        found = await ok(client, "retrieve_memories", query="sister Porto")
    assert stored["facts_extracted"] == 2
    assert stored["extraction"] == {"status": "extracted", "facts_stored": 2, "duplicates": 0, "rejected_secrets": 1}
    facts = rows(annabelle_home, "SELECT fact, category, confidence, source FROM facts ORDER BY id")
    assert facts == [
        ("The user's sister Ana lives in Porto", "contact", 0.95, stored["conversation_id"]),
        ("Ana works as a nurse", "background", 0.9, stored["conversation_id"]),
    ]
    assert found["search_mode"] == "hybrid" and found["facts"][0]["fact"] == "The user's sister Ana lives in Porto"
    request = model.last_request
    assert request.model == "fake-model"
    assert "Ana moved to Porto" in request.messages[-1]["content"]
    assert request.body.get("response_format") == {"type": "json_object"}


async def test_the_model_never_sees_a_secret_from_the_exchange(model: FakeOpenAI) -> None:
    model.reply(facts_json())
    secret = "AKIA" + "QWERTYUIOPASDFGH"
    async with Client(server) as client:
        stored = await ok(
            client,
            "store_conversation",
            user_message=f"Here are my AWS credentials {secret}, please remember my cat is called Mia",
            agent_response="I will not keep credentials, but Mia is a lovely name.",
        )
    assert stored["redacted"] == ["AWS access key"]
    assert secret not in json.dumps(model.last_request.messages)


async def test_an_unreachable_model_still_stores_the_conversation_and_says_why(
    monkeypatch: pytest.MonkeyPatch, embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    monkeypatch.setenv("UTILITY_MODEL", "openai/small-model")
    monkeypatch.setenv("UTILITY_API_BASE", f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("UTILITY_API_KEY", "test")
    async with Client(server) as client:
        stored = await ok(client, "store_conversation", **EXCHANGE)
        backfill = await refused(client, "backfill_extract_facts", "TOOL_ERROR")
        await ok(client, "store_fact", fact="Likes tea", category="preference")
        await ok(client, "store_fact", fact="Prefers the window seat", category="preference")
        synthesis = await refused(client, "synthesize_facts", "TOOL_ERROR", category="preference")
    extraction = stored["extraction"]
    assert extraction["status"] == "skipped"
    assert "openai/small-model" in extraction["reason"] and "UTILITY_MODEL" in extraction["reason"]
    assert stored["facts_extracted"] == 0
    assert rows(annabelle_home, "SELECT COUNT(*), MAX(facts_extracted_at) FROM conversations") == [(1, None)]
    assert "UTILITY_MODEL" in backfill and "UTILITY_MODEL" in synthesis


async def test_without_a_utility_model_the_llm_tools_say_which_variable_to_set(
    monkeypatch: pytest.MonkeyPatch, embedder: FakeEmbedder
) -> None:
    monkeypatch.setenv("UTILITY_MODEL", "off")
    async with Client(server) as client:
        stored = await ok(client, "store_conversation", **EXCHANGE)
        error = await refused(client, "backfill_extract_facts", "TOOL_ERROR")
    assert stored["extraction"]["status"] == "skipped"
    assert "UTILITY_MODEL=off" in stored["extraction"]["reason"]
    assert "Set UTILITY_MODEL" in error


async def test_short_or_disabled_exchanges_are_not_sent_to_the_model(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Client(server) as client:
        short = await ok(client, "store_conversation", user_message="thanks", agent_response="you're welcome")
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    async with Client(server) as client:
        off = await ok(client, "store_conversation", **EXCHANGE)
    assert short["extraction"] == {"status": "skipped", "reason": "exchange shorter than 50 characters"}
    assert "FACT_EXTRACTION_ENABLED" in off["extraction"]["reason"]
    assert model.requests == []


async def test_an_unreadable_answer_is_reported_and_stores_nothing(model: FakeOpenAI, annabelle_home: Path) -> None:
    model.reply("I think the user has a sister.")
    async with Client(server) as client:
        stored = await ok(client, "store_conversation", **EXCHANGE)
    assert stored["extraction"] == {"status": "failed", "reason": "the model's answer was not the JSON asked for"}
    assert rows(annabelle_home, "SELECT COUNT(*) FROM facts") == [(0,)]


async def test_backfill_extracts_from_unprocessed_conversations_until_none_remain(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, annabelle_home: Path
) -> None:
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    async with Client(server) as client:
        for i in range(3):
            await ok(
                client,
                "store_conversation",
                user_message=f"Conversation {i}: I have taken up pottery lessons on Fridays",
                agent_response="Nice!",
            )
        await ok(client, "store_conversation", user_message="ok", agent_response="ok", agent_id="bob")
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "true")
    model.reply(
        facts_json(("Takes pottery lessons on Fridays", "pattern", 0.9)),
        facts_json(("Takes pottery lessons on Fridays", "pattern", 0.9)),
        facts_json(),
    )
    async with Client(server) as client:
        first = await ok(client, "backfill_extract_facts", batch_size=2)
        second = await ok(client, "backfill_extract_facts", batch_size=2)
        third = await ok(client, "backfill_extract_facts")
    assert first == {"processed": 2, "facts_extracted": 1, "failed": 0, "remaining": 1}
    assert second == {"processed": 1, "facts_extracted": 0, "failed": 0, "remaining": 0}
    assert third == {"processed": 0, "facts_extracted": 0, "failed": 0, "remaining": 0}
    assert len(model.requests) == 3
    assert rows(annabelle_home, "SELECT fact FROM facts") == [("Takes pottery lessons on Fridays",)]


async def test_synthesis_applies_checked_actions_and_leaves_other_agents_alone(
    model: FakeOpenAI, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        ids = [
            (await ok(client, "store_fact", fact=text, category="preference"))["fact_id"]
            for text in (
                "Likes tea",
                "Drinks tea every morning",
                "Has tea with every meal",
                "Wants a new phone",
                "Uses vim",
            )
        ]
        bob = (await ok(client, "store_fact", fact="Bob likes tea", category="preference", agent_id="bob"))["fact_id"]
        actions = [
            {
                "type": "merge",
                "keep_id": ids[1],
                "delete_ids": [ids[0], ids[2]],
                "updated_text": "Likes green tea, mostly in the morning",
            },
            {"type": "delete", "fact_id": ids[3], "reason": "probably bought one by now"},
            {"type": "update", "fact_id": ids[4], "new_text": "Uses vim for all editing", "reason": "clearer"},
            {"type": "delete", "fact_id": bob, "reason": "not yours"},
        ]
        model.reply(json.dumps({"actions": actions, "summary": "Merged tea facts"}))
        result = await ok(client, "synthesize_facts", category="preference")
        found = await ok(client, "retrieve_memories", query="editing", limit=1)
        bobs = await ok(client, "list_facts", agent_id="bob")
    assert result["merges"] == 1 and result["deletions"] == 3 and result["updates"] == 2
    assert result["summaries"] == {"preference": "Merged tea facts"}
    assert "not one of the facts shown" in result["dropped_actions"]["preference"][0]
    remaining = rows(annabelle_home, "SELECT fact FROM facts WHERE agent_id = 'annabelle' ORDER BY id")
    assert remaining == [("Likes green tea, mostly in the morning",), ("Uses vim for all editing",)]
    assert [f["fact"] for f in bobs["facts"]] == ["Bob likes tea"]
    assert found["facts"][0]["fact"] == "Uses vim for all editing" and found["search_mode"] == "hybrid"
    prompt = model.last_request.messages[-1]["content"]
    assert f"[{ids[0]}]" in prompt and "Bob likes tea" not in prompt


async def test_synthesis_skips_categories_with_fewer_than_two_facts(model: FakeOpenAI) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="Chose Python", category="decision")
        result = await ok(client, "synthesize_facts")
    assert result["categories_processed"] == 6
    assert result["summaries"]["decision"] == "Skipped: fewer than 2 current facts of one provenance"
    assert model.requests == []


# -- provenance and updates from extraction; the model as a second opinion ---------------------------------------


async def test_extracted_facts_record_their_conversation_and_supersede_what_they_update(
    model: FakeOpenAI, annabelle_home: Path
) -> None:
    model.reply(
        facts_json(("The user lives in Braga", "background", 0.95)),
        facts_json(("The user moved to Faro", "background", 0.95)),
    )
    async with Client(server) as client:
        first = await ok(client, "store_conversation", **EXCHANGE, provenance="owner")
        second = await ok(client, "store_conversation", **EXCHANGE)
        current = await ok(client, "list_facts")
    assert first["facts_extracted"] == second["facts_extracted"] == 1
    facts = rows(annabelle_home, "SELECT fact, source, source_type, provenance, superseded_by FROM facts ORDER BY id")
    # The second exchange came with no provenance: untrusted, so it cannot replace the owner's own statement.
    assert facts == [
        ("The user lives in Braga", first["conversation_id"], "conversation", "owner", None),
        ("The user moved to Faro", second["conversation_id"], "conversation", "untrusted", 1),
    ]
    assert [f["fact"] for f in current["facts"]] == ["The user lives in Braga"]


async def test_the_utility_model_settles_a_related_pair_the_rules_cannot(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_MODEL_DECISIONS", "true")
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    async with Client(server) as client:
        teacher = await ok(client, "store_fact", fact="The user is a teacher", category="background")
        assert model.requests == []  # nothing stored yet to compare with: no model call
        model.reply(json.dumps({"decisions": [{"id": teacher["fact_id"], "relation": "update"}]}))
        # Related (both about the user's work), but neither the rules nor the encoder's one-value attributes
        # settle it ("is a teacher" / "is now a baker" the encoder settles as the same job).
        yoga = await ok(client, "store_fact", fact="The user now teaches yoga", category="background")
        assert (yoga["decision"], yoga["decided_by"]) == ("superseded", "model")
        prompt = model.last_request.messages[-1]["content"]
        assert '"The user now teaches yoga"' in prompt and f'[{teacher["fact_id"]}] "The user is a teacher"' in prompt
        # The rules settle a plain move alone: no model call.
        calls = len(model.requests)
        await ok(client, "store_fact", fact="The user lives in Braga", category="background")
        moved = await ok(client, "store_fact", fact="The user moved to Faro", category="background")
        assert (moved["decision"], moved["decided_by"]) == ("superseded", "rules")
        assert len(model.requests) == calls


async def test_a_model_that_fails_or_rambles_leaves_the_decision_to_the_rules(
    model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_MODEL_DECISIONS", "true")
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    async with Client(server) as client:
        await ok(client, "store_fact", fact="The user is a teacher", category="background")
        model.reply("I think it might be an update, hard to say.")
        kept = await ok(client, "store_fact", fact="The user now teaches yoga", category="background")
        model.reply(json.dumps({"decisions": [{"id": 999, "relation": "update"}]}))  # an id it was not shown
        other = await ok(client, "store_fact", fact="The user now coaches the school chess club", category="background")
        listed = await ok(client, "list_facts")
    assert (kept["decision"], kept["decided_by"]) == ("added", "rules")
    assert (other["decision"], other["decided_by"]) == ("added", "model")
    assert len(listed["facts"]) == 3
