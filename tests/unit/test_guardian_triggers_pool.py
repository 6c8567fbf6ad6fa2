"""The pool of short benign prompts that use attack words innocently (`guardian_mcp/training/triggers.py`)."""

from __future__ import annotations

import re
import string

import pytest

from guardian_mcp.training import triggers
from guardian_mcp.training.compose import LANGS, Composer
from guardian_mcp.training.split import part_of

MINIMUM = {"en": 120, "es": 50, "de": 50, "fr": 50, "pl": 50, "pt": 50}
MAX_CHARS = 400

# Wording that would make an item an attack on the assistant rather than an innocent use of a trigger word. Kept
# simple: it catches the obvious phrasings only and is no substitute for reading the pool.
ATTACK_PHRASES = (
    # Your own instructions, rules, guidelines, programming.
    "your instructions",
    "your rules",
    "your guidelines",
    "your programming",
    "your system prompt",
    "previous instructions",
    "prior instructions",
    "above instructions",
    "tus instrucciones",
    "tus reglas",
    "deine anweisungen",
    "deine regeln",
    "tes instructions",
    "vos instructions",
    "tes règles",
    "twoje instrukcje",
    "twoje zasady",
    "suas instruções",
    "tuas instruções",
    "suas regras",
    # Dropping limits.
    "no rules",
    "without restrictions",
    "no restrictions",
    "without limits",
    "no limits",
    "no filter",
    "never refuse",
    "sin restricciones",
    "sin reglas",
    "ohne einschränkungen",
    "ohne regeln",
    "sans restrictions",
    "sans règles",
    "bez ograniczeń",
    "bez zasad",
    "sem restrições",
    "sem regras",
)
REVEAL_WORDS = ("reveal", "show", "print", "repeat", "tell me", "output", "leak")


def _placeholders(item: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(item) if field is not None}


def test_the_six_languages_are_present_with_their_minimum_counts() -> None:
    assert set(triggers.REQUESTS) == set(LANGS) == set(MINIMUM)
    for lang, minimum in MINIMUM.items():
        assert len(triggers.REQUESTS[lang]) >= minimum, lang


@pytest.mark.parametrize("lang", LANGS)
def test_no_duplicates_within_a_language(lang: str) -> None:
    items = [item.strip().lower() for item in triggers.REQUESTS[lang]]
    assert len(items) == len(set(items))


@pytest.mark.parametrize("lang", LANGS)
def test_every_item_is_non_empty_and_short(lang: str) -> None:
    for item in triggers.REQUESTS[lang]:
        assert item.strip(), item
        assert item == item.strip(), item
        assert len(item) <= MAX_CHARS, item


def test_english_has_items_in_both_parts() -> None:
    assert {part_of(item) for item in triggers.REQUESTS["en"]} == {"fit", "calib"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_placeholder_is_one_compose_fills(lang: str) -> None:
    composer = Composer(seed=7)
    for item in triggers.REQUESTS[lang]:
        fields = _placeholders(item)
        assert fields <= {"name", "product"}, item
        filled = composer.fill(item, lang)
        assert "{" not in filled and "}" not in filled, item
        if fields:
            assert filled != item, item


@pytest.mark.parametrize("lang", LANGS)
def test_no_item_holds_attack_wording(lang: str) -> None:
    for item in triggers.REQUESTS[lang]:
        lowered = item.lower()
        assert not any(phrase in lowered for phrase in ATTACK_PHRASES), item
        if re.search(r"system ?prompt|systemprompt", lowered):
            assert not any(word in lowered for word in REVEAL_WORDS), item
