"""The owner's chat messages about instructions, security, AI and personas (`guardian_mcp/training/owner.py`),
composed through `compose.Composer` as training composes them."""

from __future__ import annotations

import pytest

from guardian_mcp.training import attacks, owner
from guardian_mcp.training.compose import LANGS, Composer, draw
from guardian_mcp.training.quoted import pick
from guardian_mcp.training.split import Pools, part_of

POOLS = {
    "TALK": owner.TALK,
    "PERSONAS": owner.PERSONAS,
    "PASTE_ASK": owner.PASTE_ASK,
    "PASTED": owner.PASTED,
    "DROP_RULES": owner.DROP_RULES,
    "HARMFUL_ASKS": owner.HARMFUL_ASKS,
}
# Wording of a jailbreak: a benign persona request must hold none of it, or the two labels contradict.
JAILBREAK_WORDS = ("no rules", "never refuse", "restriction", "policy", "filter", "guideline", "uncensored")


@pytest.mark.parametrize("name", POOLS)
def test_every_pool_has_english_items_in_both_parts_and_every_training_language(name: str) -> None:
    # A language without items of a part falls back to English items of that part, so English must hold both.
    pool = POOLS[name]
    assert set(pool) == set(LANGS)
    assert {part_of(item) for item in pool["en"]} == {"fit", "calib"}


def test_persona_requests_and_pasted_messages_hold_no_jailbreak_wording_and_address_no_assistant() -> None:
    for items in owner.PERSONAS.values():
        for item in items:
            assert not any(word in item.lower() for word in JAILBREAK_WORDS), item
    for items in owner.PASTED.values():
        for item in items:
            assert "assistant" not in item.lower() and " AI" not in item, item


def test_owner_records_are_hard_benign_chat_and_persona_records_are_chat_jailbreaks() -> None:
    composer = Composer(8)
    talk = [composer.record("owner", part) for part in ("fit", "calib") for _ in range(60)]
    assert {(r["kind"], r["label"], r["surface"], r["hard"]) for r in talk} == {("benign", "benign", "chat", True)}
    jailbreaks = [composer.record("persona", part) for part in ("fit", "calib") for _ in range(30)]
    assert {(r["kind"], r["label"], r["surface"]) for r in jailbreaks} == {("jailbreak", "injection", "chat")}
    drops = [item for items in owner.DROP_RULES.values() for item in items] + attacks.JAILBREAK_RULES
    for record in jailbreaks:
        assert "hard" not in record
        assert any(drop in str(record["text"]) for drop in drops)


@pytest.mark.parametrize("lang", LANGS)
def test_a_record_uses_only_its_parts_items(lang: str) -> None:
    # The split rule of compose.py: calibration texts share no authored sentence with fitted ones.
    composer = Composer(9)
    for part in ("fit", "calib"):
        for pool in POOLS.values():
            for _ in range(20):
                assert part_of(pick(composer.rng, Pools(part, lang), pool)) == part


def test_the_new_kinds_leave_the_earlier_kinds_records_unchanged() -> None:
    # They come last in COUNTS, so a recomposition adds records and changes none of the earlier ones.
    earlier = {"direct": 20, "indirect": 20, "jailbreak": 20, "benign": 60, "quoted": 10, "ordered": 10}
    before = {str(r["text"]) for r in draw(Composer(10), earlier)}
    after = draw(Composer(10), {**earlier, "owner": 40, "persona": 10})
    assert before <= {str(r["text"]) for r in after}
    assert len(after) == len(before) + 50
