"""Facts that stop being true, through the Memorizer's tools (in-process MCP client, fake embedder).

A new fact about the same attribute supersedes the old one, which is kept as history with valid_until and
superseded_by; a duplicate merges; what a caller does not vouch for is untrusted and never overrides the
owner's own statements; deleting a fact deletes its history for real.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from memorizer_mcp import server as memorizer
from memorizer_mcp.server import server
from tests.fakes.embedder import FakeEmbedder
from tests.unit.test_memorizer_tools import db_rows, ok, refused

OWNER = {"provenance": "owner", "source_type": "owner"}


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> FakeEmbedder:
    fake = FakeEmbedder()
    monkeypatch.setattr(memorizer.seams, "embedder_factory", lambda settings: fake)
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    return fake


async def facts_of(client: Client, **arguments: Any) -> list[str]:
    listed = await ok(client, "list_facts", **arguments)
    return [fact["fact"] for fact in listed["facts"]]


async def test_a_move_supersedes_the_old_home_which_stays_visible_as_history(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        berlin = await ok(client, "store_fact", fact="The user lives in Berlin", category="background", **OWNER)
        await ok(client, "store_fact", fact="The user plays the cello", category="background", **OWNER)
        lisbon = await ok(client, "store_fact", fact="The user moved to Lisbon", category="background", **OWNER)
        assert berlin["decision"] == "added"
        assert lisbon["decision"] == "superseded"
        assert lisbon["superseded"] == [{"id": berlin["fact_id"], "fact": "The user lives in Berlin"}]
        found = await ok(client, "retrieve_memories", query="Where does the user live?", include_conversations=False)
        assert "The user lives in Berlin" not in [f["fact"] for f in found["facts"]]
        assert found["facts"][0]["fact"] == "The user moved to Lisbon"
        history = await ok(
            client, "retrieve_memories", query="Berlin Lisbon", include_conversations=False, include_history=True
        )
        old = next(f for f in history["facts"] if f["id"] == berlin["fact_id"])
        assert old["superseded_by"] == lisbon["fact_id"] and old["valid_until"] is not None
        assert history["facts"][-1] == old  # current facts first
        assert await facts_of(client) == ["The user moved to Lisbon", "The user plays the cello"]
        everything = await facts_of(client, include_history=True)
        assert everything[-1] == "The user lives in Berlin"
        stats = await ok(client, "get_memory_stats")
        assert (stats["fact_count"], stats["superseded_fact_count"]) == (2, 1)
        assert stats["facts_by_provenance"] == {"owner": 2}


async def test_the_same_fact_in_other_words_is_merged_not_stored_twice(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        first = await ok(client, "store_fact", fact="The user works at Nokia", category="background")
        again = await ok(client, "store_fact", fact="The user joined Nokia", category="project")
        assert (again["decision"], again["fact_id"]) == ("merged", first["fact_id"])
        assert "merged" in again["message"]
    assert db_rows(annabelle_home, "SELECT COUNT(*) FROM facts") == [(1,)]


async def test_a_statement_nobody_vouches_for_cannot_override_the_owners_fact(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        owner = await ok(client, "store_fact", fact="The user lives in Berlin", category="background", **OWNER)
        # No provenance given: untrusted (e.g. text taken from an e-mail).
        claim = await ok(client, "store_fact", fact="The user moved to Paris", category="background")
        assert claim["decision"] == "kept_as_history"
        assert claim["superseded_by"] == {"id": owner["fact_id"], "fact": "The user lives in Berlin"}
        assert await facts_of(client) == ["The user lives in Berlin"]
        history = await ok(client, "list_facts", include_history=True)
        kept = history["facts"][-1]
        assert (kept["fact"], kept["provenance"], kept["superseded_by"]) == (
            "The user moved to Paris",
            "untrusted",
            owner["fact_id"],
        )
        # The owner saying it is another matter.
        moved = await ok(client, "store_fact", fact="The user moved to Paris", category="background", **OWNER)
        assert moved["decision"] == "superseded"
        assert await facts_of(client) == ["The user moved to Paris"]


async def test_untrusted_facts_update_each_other_and_the_owner_confirming_one_raises_it(
    embedder: FakeEmbedder,
) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="The user works at Initech", category="background", source_type="email")
        newer = await ok(client, "store_fact", fact="The user now works at Globex", category="background")
        assert newer["decision"] == "superseded"
        confirmed = await ok(client, "store_fact", fact="The user now works at Globex", category="background", **OWNER)
        assert confirmed["decision"] == "merged" and "owner" in confirmed["message"]
        listed = await ok(client, "list_facts")
        assert [(f["fact"], f["provenance"], f["source_type"]) for f in listed["facts"]] == [
            ("The user now works at Globex", "owner", "owner")
        ]


async def test_update_fact_cannot_rewrite_a_more_trusted_fact(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        fact = await ok(client, "store_fact", fact="The user is allergic to cats", category="background", **OWNER)
        error = await refused(
            client, "update_fact", "NOT_ALLOWED", fact_id=fact["fact_id"], fact="The user is not allergic to cats"
        )
        assert "owner" in error and "store_fact" in error
        await ok(
            client,
            "update_fact",
            fact_id=fact["fact_id"],
            fact="The user is allergic to cats and dogs",
            provenance="owner",
        )
        assert await facts_of(client) == ["The user is allergic to cats and dogs"]


async def test_deleting_a_fact_deletes_its_history_for_real(embedder: FakeEmbedder, annabelle_home: Path) -> None:
    async with Client(server) as client:
        for text in ("The user lives in Berlin", "The user moved to Munich", "The user moved to Lisbon"):
            await ok(client, "store_fact", fact=text, category="background", **OWNER)
        other = await ok(client, "store_fact", fact="The user plays the cello", category="background", **OWNER)
        current = await ok(client, "list_facts", category="background")
        lisbon = next(f["id"] for f in current["facts"] if "Lisbon" in f["fact"])
        deleted = await ok(client, "delete_fact", fact_id=lisbon)
        assert (deleted["deleted_fact"], deleted["history_deleted"]) == ("The user moved to Lisbon", 2)
        assert await facts_of(client, include_history=True) == ["The user plays the cello"]
        found = await ok(client, "retrieve_memories", query="Berlin Munich Lisbon", include_history=True)
        assert [f["fact"] for f in found["facts"]] == ["The user plays the cello"]
    assert db_rows(annabelle_home, "SELECT id FROM facts") == [(other["fact_id"],)]
    assert db_rows(annabelle_home, "SELECT DISTINCT fact_id FROM fact_vectors") == [(other["fact_id"],)]
    assert db_rows(annabelle_home, "SELECT DISTINCT fact_id FROM fact_keys") == []  # "plays the cello" has no key
    assert db_rows(annabelle_home, "SELECT COUNT(*) FROM facts_fts WHERE facts_fts MATCH 'berlin'") == [(0,)]


async def test_deleting_an_old_version_keeps_the_fact_that_replaced_it(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        berlin = await ok(client, "store_fact", fact="The user lives in Berlin", category="background", **OWNER)
        await ok(client, "store_fact", fact="The user moved to Lisbon", category="background", **OWNER)
        deleted = await ok(client, "delete_fact", fact_id=berlin["fact_id"])
        assert deleted["history_deleted"] == 0
        assert await facts_of(client, include_history=True) == ["The user moved to Lisbon"]


async def test_the_timeline_shows_when_a_fact_stopped_being_true(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="The user's manager is Sarah", category="contact", **OWNER)
        david = await ok(client, "store_fact", fact="The user's new manager is David", category="contact", **OWNER)
        timeline = await ok(client, "query_timeline", date_from="2000-01-01", categories=["facts"])
    superseded = [e for e in timeline["events"] if e["event_type"] == "superseded"]
    assert len(superseded) == 1
    assert superseded[0]["details"]["superseded_by"] == david["fact_id"]
    assert "Sarah" in superseded[0]["summary"]
    learned = [e["details"] for e in timeline["events"] if e["event_type"] == "created"]
    assert {d["provenance"] for d in learned} == {"owner"}


async def test_an_export_carries_validity_and_imports_back_with_its_history(
    embedder: FakeEmbedder, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        for text in ("The user lives in Berlin", "The user moved to Munich", "The user moved to Lisbon"):
            await ok(client, "store_fact", fact=text, category="background", **OWNER)
        exported = await ok(client, "export_memory", format="json", include_conversations=False)
        markdown = await ok(client, "export_memory", format="markdown", output_dir="md")
        imported = await ok(
            client, "import_memory", file_path="annabelle/facts/all-facts.json", agent_id="copy", provenance="owner"
        )
        copy = await ok(client, "list_facts", agent_id="copy", include_history=True)
        capped = await ok(client, "import_memory", file_path="annabelle/facts/all-facts.json", agent_id="mail")
        mail = await ok(client, "list_facts", agent_id="mail", include_history=True)
    facts = json.loads((Path(exported["export_path"]) / "facts" / "all-facts.json").read_text(encoding="utf-8"))
    by_text = {f["fact"]: f for f in facts}
    assert by_text["The user moved to Lisbon"]["valid_until"] is None
    assert by_text["The user lives in Berlin"]["superseded_by"] == by_text["The user moved to Munich"]["id"]
    assert {f["provenance"] for f in facts} == {"owner"}
    text = (Path(markdown["export_path"]) / "facts" / "background.md").read_text(encoding="utf-8")
    current, history = text.split("## No longer current")
    assert "Lisbon" in current and "Berlin" not in current
    assert "Berlin" in history and f"replaced by fact {by_text['The user moved to Munich']['id']}" in history
    assert (imported["facts_stored"], imported["history_stored"]) == (1, 2)
    chain = {f["fact"]: f for f in copy["facts"]}
    assert chain["The user moved to Lisbon"]["valid_until"] is None
    assert chain["The user moved to Munich"]["superseded_by"] == chain["The user moved to Lisbon"]["id"]
    assert chain["The user lives in Berlin"]["superseded_by"] == chain["The user moved to Munich"]["id"]
    # A file claiming the owner's word is only as trusted as whoever imports it.
    assert capped["history_stored"] == 2
    assert {f["provenance"] for f in mail["facts"]} == {"untrusted"}


async def test_a_question_finds_the_fact_about_its_attribute_without_shared_words(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        for text in ("The user keeps bees", "The user has relocated to Vancouver", "The user's mother is a judge"):
            await ok(client, "store_fact", fact=text, category="background", **OWNER)
        found = await ok(client, "retrieve_memories", query="Where is the user based?", limit=1)
    assert [f["fact"] for f in found["facts"]] == ["The user has relocated to Vancouver"]


async def test_a_fact_that_replaces_another_answers_the_questions_the_old_one_answered(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="The user's dentist is Dr. Rao", category="contact", **OWNER)
        for text in ("The user keeps bees", "The user's mother is a judge", "The user plays the cello"):
            await ok(client, "store_fact", fact=text, category="background", **OWNER)
        chen = await ok(
            client, "store_fact", fact="Stopped seeing Dr. Rao; now goes to Dr. Chen", category="contact", **OWNER
        )
        assert chen["decision"] == "superseded"
        found = await ok(client, "retrieve_memories", query="Who is the user's dentist?", limit=1)
    assert [f["fact"] for f in found["facts"]] == ["Stopped seeing Dr. Rao; now goes to Dr. Chen"]


async def test_a_question_matching_an_old_fact_is_answered_by_the_fact_that_replaced_it(embedder: FakeEmbedder) -> None:
    async with Client(server) as client:
        await ok(client, "store_fact", fact="I ride a Vespa to work", category="pattern", **OWNER)
        for text in ("The user keeps bees", "The user's mother is a judge"):
            await ok(client, "store_fact", fact=text, category="background", **OWNER)
        walk = await ok(client, "store_fact", fact="My Vespa got stolen, so I walk now", category="pattern", **OWNER)
        assert walk["decision"] == "superseded"
        found = await ok(
            client, "retrieve_memories", query="How does the user get to work?", include_conversations=False
        )
        history = await ok(
            client, "retrieve_memories", query="How does the user get to work?", include_history=True, limit=10
        )
    assert found["facts"][0]["fact"] == "My Vespa got stolen, so I walk now"
    assert all(f["valid_until"] is None for f in found["facts"])
    assert "I ride a Vespa to work" in [f["fact"] for f in history["facts"]]


async def test_an_update_in_another_language_is_recognised_by_the_multilingual_value_encoder(
    embedder: FakeEmbedder,
) -> None:
    # The values are compared by the real multilingual encoder (thé/café 0.58, profesor/abogado 0.42); values of
    # another kind (comptable/architecte 0.26) stay beside each other for the utility model to settle.
    async with Client(server) as client:
        tea = await ok(client, "store_fact", fact="L'utilisateur préfère le thé.", category="preference", **OWNER)
        await ok(client, "store_fact", fact="L'utilisateur joue du piano.", category="preference", **OWNER)
        coffee = await ok(
            client, "store_fact", fact="L'utilisateur préfère désormais le café.", category="preference", **OWNER
        )
        assert coffee["decision"] == "superseded"
        assert coffee["superseded"] == [{"id": tea["fact_id"], "fact": "L'utilisateur préfère le thé."}]
        teacher = await ok(client, "store_fact", fact="El usuario es profesor.", category="background", **OWNER)
        lawyer = await ok(
            client, "store_fact", fact="El usuario trabaja ahora como abogado.", category="background", **OWNER
        )
        assert lawyer["superseded"] == [{"id": teacher["fact_id"], "fact": "El usuario es profesor."}]
        assert await facts_of(client) == [
            "El usuario trabaja ahora como abogado.",
            "L'utilisateur préfère désormais le café.",
            "L'utilisateur joue du piano.",
        ]


async def test_without_embeddings_the_rules_decide_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memorizer.seams, "embedder_factory", lambda settings: None)
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")
    async with Client(server) as client:
        await ok(client, "store_fact", fact="L'utilisateur préfère le thé.", category="preference", **OWNER)
        coffee = await ok(
            client, "store_fact", fact="L'utilisateur préfère désormais le café.", category="preference", **OWNER
        )
        assert coffee["decision"] == "added"


@pytest.fixture
def encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real multilingual encoder for search, neighbours and every comparison, as configured by default."""
    from shared.embeddings.multilingual import MultilingualEmbedder

    monkeypatch.setattr(memorizer.seams, "embedder_factory", lambda settings: MultilingualEmbedder())
    monkeypatch.setenv("FACT_EXTRACTION_ENABLED", "false")


async def test_an_update_in_a_language_the_lexicon_does_not_read_is_recognised_by_the_encoder(encoder: None) -> None:
    # The rules have no word of Russian or Chinese: the encoder reads the attribute (where someone lives, their
    # job), who it is about and whether a value is added, and the move supersedes the old home.
    async with Client(server) as client:
        omsk = await ok(client, "store_fact", fact="Иван живёт в Омске.", category="contact", agent_id="ru", **OWNER)
        await ok(client, "store_fact", fact="Иван играет в шахматы.", category="contact", agent_id="ru", **OWNER)
        tomsk = await ok(
            client, "store_fact", fact="Иван переехал в Томск.", category="contact", agent_id="ru", **OWNER
        )
        assert tomsk["superseded"] == [{"id": omsk["fact_id"], "fact": "Иван живёт в Омске."}]
        nurse = await ok(client, "store_fact", fact="我是一名护士。", category="background", agent_id="zh", **OWNER)
        doctor = await ok(client, "store_fact", fact="我现在当医生了。", category="background", agent_id="zh", **OWNER)
        assert doctor["superseded"] == [{"id": nurse["fact_id"], "fact": "我是一名护士。"}]
        # A stranger's e-mail in the same language is kept only as history beside the owner's word.
        claim = await ok(
            client,
            "store_fact",
            fact="Иван переехал в Казань.",
            category="contact",
            agent_id="ru",
            provenance="untrusted",
            source_type="email",
        )
        assert claim["decision"] == "kept_as_history"
        found = await ok(client, "retrieve_memories", query="Где живёт Иван?", agent_id="ru", limit=3)
        assert found["facts"][0]["fact"] == "Иван переехал в Томск."
        assert "Иван живёт в Омске." not in [f["fact"] for f in found["facts"]]
        history = await ok(client, "list_facts", agent_id="ru", include_history=True)
        old = next(f for f in history["facts"] if f["fact"] == "Иван живёт в Омске.")
        assert old["superseded_by"] == tomsk["fact_id"] and old["valid_until"] is not None


async def test_the_encoder_keeps_facts_about_other_people_other_attributes_and_added_values(encoder: None) -> None:
    pairs = {
        "parents": ("Моя мама живёт в Туле.", "Мой папа живёт в Рязани."),
        "names": ("Иван живёт в Омске.", "Ольга живёт в Томске."),
        "siblings": ("我哥哥在上海工作。", "我姐姐在北京工作。"),
        "learning-and-fear": ("Саша учится играть на гитаре.", "Саша боится собак."),
        "second-job": ("Мой брат работает врачом.", "Мой брат также подрабатывает таксистом."),
    }
    async with Client(server) as client:
        for agent, (first, second) in pairs.items():
            await ok(client, "store_fact", fact=first, category="contact", agent_id=agent, **OWNER)
            stored = await ok(client, "store_fact", fact=second, category="contact", agent_id=agent, **OWNER)
            assert stored["decision"] == "added", agent
            assert sorted(await facts_of(client, agent_id=agent)) == sorted([first, second])


async def test_the_owner_saying_we_updates_what_the_owner_said_with_i(encoder: None) -> None:
    # "Я ..." then "Мы ...": each fact opens with a word the other lacks, which marks two people ("Иван ..." /
    # "Ольга ..."), except when both words are the owner speaking, one or many.
    async with Client(server) as client:
        kazan = await ok(client, "store_fact", fact="Я живу в Казани.", category="background", agent_id="ru", **OWNER)
        moved = await ok(
            client, "store_fact", fact="Мы переехали в Нижний Новгород.", category="background", agent_id="ru", **OWNER
        )
        assert moved["superseded"] == [{"id": kazan["fact_id"], "fact": "Я живу в Казани."}]
        # The owner's brother is someone else, whoever speaks.
        await ok(client, "store_fact", fact="Мы живём в Казани.", category="background", agent_id="ru2", **OWNER)
        brother = await ok(
            client, "store_fact", fact="Мой брат переехал в Пермь.", category="contact", agent_id="ru2", **OWNER
        )
        assert brother["decision"] == "added"
