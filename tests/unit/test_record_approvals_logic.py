"""Which changes of the owner's records the request names (orchestrator/approvals/records.py), and the words a turn
keeps (orchestrator/turns.py): plain function calls, an injected clock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.approvals.record_check import RecordCheck
from orchestrator.approvals.records import (
    made_id,
    names_record,
    record_fields,
    record_key,
    record_texts,
    unnamed_verdict,
)
from orchestrator.callers import Caller
from orchestrator.router import Route
from orchestrator.turns import EARLIER_MESSAGES, FOLLOW_UP_SECONDS, MAX_SAID_CHARS, TurnLedger
from shared.envelope import ErrorCode
from shared.manifest import MANIFEST_FILENAME, OwnerRecords, load_manifest

REPO = Path(__file__).resolve().parents[2]

SKILLS = OwnerRecords(
    kind="skill", change=["delete_skill"], idArgument="skill_id", read="get_skill", nameFields=["name", "description"]
)


@pytest.mark.parametrize(
    ("said", "texts"),
    [
        (["Delete the Morning Briefing"], ["Morning briefing", "Mail and calendar at 7"]),
        (["change Tom's e-mail to tom@new.example"], ["Tom", "tom@old.example", ""]),
        (["Cancel my dentist reminders"], ["Dentist", ""]),
        (["Eyddu áminningunni um tannlækninn"], ["Tannlæknir", ""]),  # an inflected stem
        (["Forget that I like window seats"], ["Prefers window seats on long flights"]),
        (["remove skill 12 please"], ["Something else entirely", ""]),
        (['[{"tool": "memory_delete_fact", "params": {"fact_id": 12}}]'], ["Lives in Berlin"]),
    ],
)
def test_a_request_names_a_record_by_its_name_its_words_or_its_kind_and_id(said: list[str], texts: list[str]) -> None:
    kind = "fact" if "fact_id" in said[0] else "skill"
    assert names_record(said, kind, 12, texts)


@pytest.mark.parametrize(
    ("said", "texts"),
    [
        (["Remind me to water the plants at six"], ["Pre-meeting Prep", "Gather notes before each meeting"]),
        (["Forget my gym schedule"], ["Favourite tea is a smoky lapsang souchong"]),
        (["Remind me at 12 to call mum"], ["Weekly review", ""]),  # a time, not an id of a skill
        (["remove fact 12"], ["Weekly review", ""]),  # another kind's id
        (["remove skill 123"], ["Weekly review", ""]),
        (["Set a reminder for the report"], ["Weekly reminder: water plants", ""]),  # one shared word of four
        ([], ["Weekly review", ""]),
        (["the and for you"], ["The owner and you", ""]),  # short words are shared by chance
    ],
)
def test_a_request_that_does_not_name_the_record_does_not(said: list[str], texts: list[str]) -> None:
    assert not names_record(said, "skill", 12, texts)


def test_the_hold_names_the_record_clipped_and_covers_the_rest_of_the_turn() -> None:
    texts = record_texts({"name": "Pre-meeting " + "x" * 200, "description": "Gather notes"}, SKILLS)
    assert texts[1] == "Gather notes"
    verdict = unnamed_verdict("memory_delete_skill", SKILLS, 7, texts)
    assert verdict.hold and verdict.per_turn
    assert "would delete the skill 'Pre-meeting xxx" in verdict.reason and "(skill 7)" in verdict.reason
    assert len(verdict.reason) < 300
    assert not names_record(["Remove the pre-meeting reminder"], "skill", 7, texts)  # one word of three
    assert names_record(["Remove the pre-meeting notes reminder"], "skill", 7, texts)


def test_a_record_that_could_not_be_read_is_named_by_its_id_alone() -> None:
    assert record_texts(None, SKILLS) == []
    assert unnamed_verdict("memory_update_skill", SKILLS, 7, []).reason.startswith(
        "memory_update_skill would change the skill 7,"
    )
    assert names_record(["fix skill 7"], "skill", 7, []) and not names_record(["fix it"], "skill", 7, [])


def test_a_hostile_id_is_neither_searched_whole_nor_shown_whole() -> None:
    huge = "9" * 100_000
    assert not names_record(["fix skill 9"], "skill", huge, [])
    reason = unnamed_verdict("memory_update_skill", SKILLS, huge, []).reason
    assert len(reason) < 300 and "…" in reason


def test_the_record_is_found_in_the_read_tools_answer_and_ids_compare_as_text() -> None:
    assert record_fields({"skill": {"name": "A"}}, SKILLS) == {"name": "A"}
    assert record_fields({"name": "B"}, SKILLS) == {"name": "B"}
    assert record_fields(None, SKILLS) is None
    assert record_key("memory", "skill", 12) == record_key("memory", "skill", " 12")


def test_a_record_stored_again_or_merged_into_is_not_the_turns_own() -> None:
    assert made_id({"skill_id": 3, "stored_at": "now"}, SKILLS) == 3
    assert made_id({"skill_id": 3, "already_existed": True}, SKILLS) is None
    assert made_id({"skill_id": 3, "decision": "merged"}, SKILLS) is None
    assert made_id({"skill_id": 3, "decision": "superseded"}, SKILLS) == 3
    assert made_id({"skill_id": 3, "overwritten": True}, SKILLS) is None  # a file written over
    assert made_id(None, SKILLS) is None


def test_a_chat_turn_keeps_the_owners_earlier_messages_of_the_same_chat_only() -> None:
    now = [0.0]
    ledger = TurnLedger(lambda: now[0])
    ledger.mint("a", said=["Remind me about the dentist"], conversation="telegram:1")
    ledger.mint("a", said=["unrelated, other chat"], conversation="telegram:2")
    ledger.mint("a", said=[], conversation="telegram:1")  # a stranger's message in the group: no words kept
    ledger.mint("b", said=["another agent"], conversation="telegram:1")
    now[0] = 60.0
    turn = ledger.mint("a", said=["Move it to nine"], conversation="telegram:1")
    assert turn.said == ("Move it to nine", "Remind me about the dentist")
    now[0] = 60.0 + FOLLOW_UP_SECONDS + 1
    assert ledger.mint("a", said=["And pause it"], conversation="telegram:1").said == ("And pause it",)


def test_a_turn_keeps_at_most_its_earlier_messages_and_each_text_bounded() -> None:
    ledger = TurnLedger(lambda: 0.0)
    for n in range(5):
        ledger.mint("a", said=[f"message {n}"], conversation="http:None")
    turn = ledger.mint("a", said=["x" * (MAX_SAID_CHARS * 3)], conversation="http:None")
    assert len(turn.said) == 1 + EARLIER_MESSAGES and len(turn.said[0]) == MAX_SAID_CHARS
    assert turn.said[1:] == ("message 4", "message 3")


def test_a_joined_turn_says_what_each_of_its_turns_said() -> None:
    ledger = TurnLedger(lambda: 0.0)
    first, second = ledger.mint("a", said=["one"]), ledger.mint("a", said=["two"])
    joined = ledger.get(f"{first.id},{second.id}", "a")
    assert joined is not None and joined.said == ("one", "two")


async def test_an_id_that_names_no_record_is_let_fail_by_itself_and_a_real_unnamed_one_waits() -> None:
    """The check reads the record through the hub: NOT_FOUND lets the call go on (it fails and changes nothing)."""
    manifest = load_manifest(REPO / "memorizer_mcp" / MANIFEST_FILENAME)
    route = Route("memory_delete_skill", "memory", "delete_skill", "", {})
    answers = {
        43147: {"success": False, "error": "Skill 43147 does not exist.", "errorCode": ErrorCode.NOT_FOUND},
        4: {"success": True, "data": {"skill": {"id": 4, "name": "Pre-meeting Prep", "description": ""}}},
    }

    calls: list[str] = []

    async def call(name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
        assert caller.kind == "system"
        calls.append(name)
        if name == "memory_compare_request":
            return {"success": True, "data": {"about": False}}
        return answers[arguments["skill_id"]]

    check = RecordCheck(call, lambda mcp: manifest if mcp == "memory" else None)
    turn = TurnLedger().mint("annabelle", said=["Remind me to water the plants at six"])
    made_up = await check.verdict(route.exposed, route, {"skill_id": 43147}, turn)
    assert not made_up.hold and calls == ["memory_get_skill"]
    real = await check.verdict(route.exposed, route, {"skill_id": 4}, turn)
    assert real.hold and "'Pre-meeting Prep'" in real.reason
