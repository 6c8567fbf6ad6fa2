"""Fact extraction: the prompt, reading the model's answer however it is wrapped, filtering, storing."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from shared.text import ELIDED
from thinker.extraction import (
    FACT_CATEGORIES,
    FACT_EXTRACTION_PROMPT,
    MAX_KNOWN_FACTS,
    ExtractedFact,
    ExtractionConfig,
    build_extraction_prompt,
    conversation_lines,
    derived_turn,
    extract_and_store,
    extract_facts,
    normalize_fact,
    parse_facts,
    select_facts,
)
from thinker.sessions.errors import UtilityModelError
from thinker.sessions.store import Turn, make_turn

NOW = datetime(2026, 2, 11, 9, 0, tzinfo=UTC)


def chat(*pairs: tuple[str, str]) -> list[Turn]:
    return [make_turn(user, assistant, now=NOW) for user, assistant in pairs]


CONVERSATION = chat(
    ("My sister Ana moved to Porto last month.", "Porto is lovely! How is she settling in?"),
    ("Fine. I prefer green tea to coffee, by the way.", "Noted: green tea it is."),
)


def answer(*facts: tuple[str, str, object]) -> str:
    return json.dumps({"facts": [{"fact": f, "category": c, "confidence": p} for f, c, p in facts]})


class ScriptedLlm:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    async def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0)


# --- the prompt ----------------------------------------------------------------------------------------------------
def test_the_prompt_carries_identity_known_facts_and_the_conversation() -> None:
    prompt = build_extraction_prompt(
        conversation_lines(CONVERSATION), ["The user lives in Vilnius."], "Name: Tomas, email tomas@example.com"
    )
    assert "About the user: Name: Tomas, email tomas@example.com" in prompt
    assert "- The user lives in Vilnius." in prompt
    assert "User: My sister Ana moved to Porto last month.\nAssistant: Porto is lovely!" in prompt
    assert "{{" not in prompt
    assert prompt.startswith(FACT_EXTRACTION_PROMPT.split("{{")[0])
    for category in FACT_CATEGORIES:
        assert f"- {category}:" in prompt


def test_without_identity_or_known_facts_the_prompt_says_so() -> None:
    prompt = build_extraction_prompt(["User: hi"], [], None)
    assert "The user's name is not known." in prompt
    assert (
        "Facts already known (do not extract these again, nor anything that says the same in other words):\n(none)"
        in (prompt)
    )


def test_a_placeholder_typed_in_the_conversation_is_not_expanded() -> None:
    prompt = build_extraction_prompt(["User: print {{KNOWN_FACTS}} please"], ["secret-ish known fact"], None)
    assert "User: print {{KNOWN_FACTS}} please" in prompt
    assert prompt.count("secret-ish known fact") == 1


def test_only_the_last_ten_turns_and_the_latest_known_facts_go_in() -> None:
    turns = chat(*[(f"question {i}", f"answer {i}") for i in range(15)])
    lines = conversation_lines(turns)
    assert lines[0] == "User: question 5" and lines[-1] == "Assistant: answer 14" and len(lines) == 20
    known = [f"fact number {i}" for i in range(MAX_KNOWN_FACTS + 20)]
    prompt = build_extraction_prompt(lines, known, None)
    assert "- fact number 19\n" not in prompt and "- fact number 20\n" in prompt


def test_long_messages_are_clipped_and_empty_ones_left_out() -> None:
    lines = conversation_lines(chat(("x" * 5_000, ""), ("  ", "ok")))
    assert lines == [f"User: {'x' * (2_000 - len(ELIDED))}{ELIDED}", "Assistant: ok"]


# --- reading the answer ----------------------------------------------------------------------------------------------
TEA = ExtractedFact("The user prefers green tea to coffee.", "preference", 0.95)
ANA = ExtractedFact("The user's sister Ana lives in Porto.", "contact", 0.9)
BOTH = answer((TEA.fact, "preference", 0.95), (ANA.fact, "contact", 0.9))


@pytest.mark.parametrize(
    "text",
    [
        BOTH,
        f"```json\n{BOTH}\n```",
        f"```\n{BOTH}\n```",
        f"Here are the facts I found:\n{BOTH}\nLet me know if you need more.",
        f"Sure! {{not json}} and then: {BOTH}",
        json.dumps(
            [
                {"fact": TEA.fact, "category": "preference", "confidence": 0.95},
                {"fact": ANA.fact, "category": "contact", "confidence": 0.9},
            ]
        ),
        f"<think>the user mentioned tea</think>\n```JSON\n{BOTH}```",
    ],
    ids=["plain", "fenced json", "fenced", "prose around", "braces before", "bare list", "reasoning then fence"],
)
def test_the_fact_list_is_found_however_the_answer_wraps_it(text: str) -> None:
    assert parse_facts(text) == [TEA, ANA]


@pytest.mark.parametrize("text", ["", "no facts here", '{"answer": 42}', "[1, 2]", '{"facts": "none"}', "{broken"])
def test_an_answer_without_a_fact_list_is_none(text: str) -> None:
    assert parse_facts(text) is None


def test_an_empty_fact_list_is_an_empty_list() -> None:
    assert parse_facts('{"facts": []}') == []


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": 0.8}, 0.8),
        ({"text": "The user likes jazz.", "category": "Preference ", "confidence": "0.8"}, 0.8),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": "80%"}, 0.8),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": 80}, 0.8),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": 1}, 1.0),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": 0}, 0.0),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": True}, None),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": 150}, None),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": -0.5}, None),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": "high"}, None),
        ({"fact": "The user likes jazz.", "category": "preference", "confidence": float("nan")}, None),
        ({"fact": "The user likes jazz.", "category": "preference"}, None),
        ({"fact": "The user likes jazz.", "category": "error", "confidence": 0.9}, None),
        ({"fact": "The user likes jazz.", "category": None, "confidence": 0.9}, None),
        ({"fact": "   ", "category": "preference", "confidence": 0.9}, None),
        ({"fact": "x" * 501, "category": "preference", "confidence": 0.9}, None),
        ({"fact": ["a list"], "category": "preference", "confidence": 0.9}, None),
        ("just a string", None),
    ],
)
def test_each_fact_needs_text_a_known_category_and_a_confidence_between_0_and_1(
    item: object, expected: float | None
) -> None:
    facts = parse_facts(json.dumps({"facts": [item]}))
    assert facts is not None
    if expected is None:
        assert facts == []
    else:
        assert [fact.confidence for fact in facts] == [pytest.approx(expected)]
        assert facts[0].category == "preference" and facts[0].fact == "The user likes jazz."


def test_whitespace_inside_a_fact_is_tidied() -> None:
    facts = parse_facts(answer(("  The user\n likes   jazz. ", "preference", 0.9)))
    assert facts == [ExtractedFact("The user likes jazz.", "preference", 0.9)]


# --- filtering -------------------------------------------------------------------------------------------------------
def fact(text: str, confidence: float = 0.9, category: str = "preference") -> ExtractedFact:
    return ExtractedFact(text, category, confidence)  # type: ignore[arg-type]


@pytest.mark.parametrize(("confidence", "kept"), [(0.7, True), (0.6999, False), (0.55, False), (1.0, True)])
def test_the_confidence_threshold_is_inclusive(confidence: float, kept: bool) -> None:
    assert (select_facts([fact("The user likes jazz.", confidence)], []) != []) is kept


@pytest.mark.parametrize(
    "known",
    [
        "The user likes jazz.",
        "the user likes jazz",
        "THE USER LIKES JAZZ!",
        "  The   user likes jazz .",
        "The user likes jazz…",
    ],
)
def test_a_fact_already_known_in_other_case_spacing_or_punctuation_is_dropped(known: str) -> None:
    assert select_facts([fact("The user likes jazz.")], [known]) == []


def test_a_fact_only_similar_to_a_known_one_is_kept_for_the_memorizer_to_judge() -> None:
    assert select_facts([fact("The user likes modern jazz.")], ["The user likes jazz."]) != []


def test_a_fact_repeated_in_one_answer_is_kept_once() -> None:
    assert select_facts([fact("A.", 0.8), fact("a", 0.95)], []) == [fact("A.", 0.8)]


def test_at_most_five_facts_are_kept_the_most_confident_first() -> None:
    many = [fact(f"fact {i}", 0.7 + i * 0.01) for i in range(8)]
    kept = select_facts(many, [])
    assert [f.fact for f in kept] == ["fact 7", "fact 6", "fact 5", "fact 4", "fact 3"]


def test_normalize_fact() -> None:
    assert normalize_fact("  Ana's   e-mail: ANA@Example.com. ") == "ana s e mail ana example com"
    assert normalize_fact("Café") == normalize_fact("Cafe\u0301")


# --- extract_facts with a scripted model -----------------------------------------------------------------------------
async def test_extraction_returns_the_new_confident_facts() -> None:
    llm = ScriptedLlm(
        answer(
            (TEA.fact, "preference", 0.95),
            (ANA.fact, "contact", 0.9),
            ("The user is probably tired today.", "pattern", 0.5),
            ("The user lives in Vilnius.", "background", 0.9),
        )
    )
    facts = await extract_facts(CONVERSATION, ["The user lives in Vilnius."], llm, "Name: Tomas")
    assert facts == [TEA, ANA]
    (prompt,) = llm.prompts
    assert "User: Fine. I prefer green tea to coffee, by the way." in prompt
    assert "About the user: Name: Tomas" in prompt


@pytest.mark.parametrize(
    "turns",
    [
        [],
        chat(("hi", "hello")),
        chat(("hi", "hello"), ("one more", "")),
        chat(("", "a"), ("", "b"), ("c", "")),
    ],
    ids=["nothing", "one exchange", "three messages", "three non-empty of six"],
)
async def test_fewer_than_four_messages_are_not_sent_to_the_model(turns: list[Turn]) -> None:
    llm = ScriptedLlm()
    assert await extract_facts(turns, [], llm) == []
    assert llm.prompts == []


async def test_an_unreadable_answer_gives_no_facts_and_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert await extract_facts(CONVERSATION, [], ScriptedLlm("I could not find anything, sorry.")) == []
    assert "held no fact list" in caplog.text


async def test_a_failing_model_raises_to_the_caller() -> None:
    async def down(prompt: str) -> str:
        raise UtilityModelError("The utility model is down.")

    with pytest.raises(UtilityModelError):
        await extract_facts(CONVERSATION, [], down)


async def test_the_limits_come_from_the_config() -> None:
    llm = ScriptedLlm(answer(("A fact.", "decision", 0.6), ("B fact.", "decision", 0.65)))
    config = ExtractionConfig(confidence_threshold=0.6, max_facts=1, min_messages=2, max_turns=1)
    facts = await extract_facts(CONVERSATION, [], llm, config=config)
    assert facts == [fact("B fact.", 0.65, "decision")]
    assert "green tea" in llm.prompts[0] and "Ana" not in llm.prompts[0]  # only the last turn was sent


# --- storing -----------------------------------------------------------------------------------------------------------
async def test_each_fact_is_stored_and_one_refusal_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    stored: list[ExtractedFact] = []

    async def store(item: ExtractedFact) -> None:
        if item is TEA or item.fact == TEA.fact:
            raise RuntimeError("hub unavailable")
        stored.append(item)

    result = await extract_and_store(CONVERSATION, [], ScriptedLlm(BOTH), store)
    assert result == [ANA] and stored == [ANA]
    assert "fact not stored: hub unavailable" in caplog.text


async def test_disabled_extraction_neither_asks_nor_stores() -> None:
    llm = ScriptedLlm()

    async def store(item: ExtractedFact) -> None:
        raise AssertionError("must not be called")

    assert await extract_and_store(CONVERSATION, [], llm, store, config=ExtractionConfig(enabled=False)) == []
    assert llm.prompts == []


def test_extraction_names_every_hub_turn_it_draws_on_or_none_when_one_is_unknown() -> None:
    now = datetime(2026, 2, 11, tzinfo=UTC)
    turns = [make_turn(f"m{i}", f"a{i}", now=now, hub_turn=f"t{i}") for i in range(12)]
    assert derived_turn(turns, max_turns=3) == "t9,t10,t11"
    assert derived_turn([*turns, make_turn("direct", "ok", now=now)], max_turns=3) is None
    assert derived_turn([], max_turns=3) is None and derived_turn(turns, max_turns=0) is None
