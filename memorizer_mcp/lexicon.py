"""The words the claim parser knows, per language (English, German, French, Spanish, Portuguese, Italian, Dutch).

The words live in `lexicon.toml`, one table per language; this module reads it once and gives each table its
type. Words are written case-folded and without accents (the parser compares folded tokens), except the
Portuguese and Italian copulas "é" / "è", which would otherwise read as "e" (and). Phrases are space-separated
words; a `*` in a pattern marks where the value sits when it is not simply everything after the phrase (German
and Dutch put participles last: "ist nach * gezogen").

What is here is grammar, not examples: the ways each language says where someone lives or works, what they are
called, how old they are, whom they are with, what they like or prefer; negation; the words that announce a
change ("now", "no longer", "actually"), an addition ("also", "a second") or the old value ("instead of",
"sold", "quit"); and the function words that carry no content. A fact whose wording none of this covers is still
compared by its structure (see decisions.py).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Slots: what a claim is about. Functional slots hold one value at a time (a second value replaces the first);
# `like` holds many and flips only by polarity; `prefer` holds one value per domain; `is` is functional for
# anything but the user (the user "is" many things at once) — an attribute's value ("the sister's name", "the
# favourite colour") or a named person or number ("my manager is Marcus", "Priya is 34"); what someone else is
# like or doing (learning the cello, scared of flying) is `state`, which holds many.
FUNCTIONAL_SLOTS = frozenset({"residence", "employer", "workplace", "title", "name", "age", "origin"})
RELATION_SLOTS = frozenset({"spouse", "partner"})
"""Relations are stored as the related person's name: "married Luis" = subject (spouse), slot name."""


@dataclass(frozen=True)
class Pattern:
    words: tuple[str, ...]
    slot: str
    cue: bool = False
    """The pattern itself announces a change ("moved to", "became")."""
    polarity: int = 1
    """-1 for the negative sentiment verbs ("hates"), which mean `like` with the opposite polarity."""
    fixed: tuple[str, ...] | None = None
    """A value implied by the pattern ("unemployed" = employer none)."""
    adverb: bool = False
    """An adverb inside the clause ("isst gerne Fleisch"): the words before it are not the subject."""


@dataclass(frozen=True)
class Language:
    code: str
    function_words: frozenset[str]
    user_words: frozenset[str]
    user_owner: tuple[tuple[str, ...], ...]
    """Phrases meaning "of the user", which make what precedes them the user's: "des nutzers", "of the user"."""
    copulas: frozenset[str]
    negations: frozenset[str]
    cues: frozenset[str]
    additive: frozenset[str]
    replace_forward: tuple[tuple[str, ...], ...]
    """After these, the old value follows: "instead of X", "sold the X", "quit X"."""
    replace_backward: tuple[tuple[str, ...], ...]
    """Verb-final languages: the old value comes before ("den Golf habe ich verkauft")."""
    connectors: frozenset[str]
    """Words that end a value: "lives in Berlin with ..."."""
    patterns: tuple[Pattern, ...]
    attributes: dict[str, str] = field(default_factory=dict)
    """Attribute nouns that name a slot of their owner: "employer" → employer, "home" → residence."""
    relations: dict[str, str] = field(default_factory=dict)
    """Relation nouns folded to one name: husband/wife → spouse, boss/manager → boss."""
    employer_prepositions: frozenset[str] = frozenset()
    """"a nurse at Mercy Hospital": the preposition that introduces an employer inside a job value."""
    title_prepositions: frozenset[str] = frozenset()
    """"joined Stripe as a staff engineer": the word that introduces a job title after an employer."""
    conjunctions: frozenset[str] = frozenset()
    """Coordinating words: a subject is looked for after the last one ("left the council and started ...")."""
    comparatives: tuple[tuple[str, ...], ...] = ()
    """"prefers X over Y": what follows is the value not preferred."""
    cue_phrases: tuple[tuple[str, ...], ...] = ()
    """Change cues of several words ("these days", "en realidad"): read as one cue, never as a value."""
    people: frozenset[str] = frozenset()
    """Nouns that stand for a person (kin, partners, friends, neighbours, the people one deals with): "my sister is
    ..." describes someone, who is many things at once ("learning the cello", "scared of flying"), while "my
    birthday is ..." gives an attribute its one value."""


WORDS_FILE = Path(__file__).with_name("lexicon.toml")

_WORD_SETS = frozenset(
    {
        "function_words",
        "user_words",
        "copulas",
        "negations",
        "cues",
        "additive",
        "connectors",
        "employer_prepositions",
        "title_prepositions",
        "conjunctions",
        "people",
    }
)
_PHRASE_LISTS = frozenset({"user_owner", "replace_forward", "replace_backward", "comparatives", "cue_phrases"})


def _w(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p.split()) for p in text.split("|") if p.strip())


def _pattern(entry: dict[str, Any]) -> tuple[Pattern, ...]:
    """One `[[<code>.patterns]]` table: the same slot and flags for each of its phrases."""
    fixed = entry.get("fixed")
    return tuple(
        Pattern(
            words,
            entry["slot"],
            cue=entry.get("cue", False),
            polarity=entry.get("polarity", 1),
            fixed=tuple(fixed.split()) if fixed else None,
            adverb=entry.get("adverb", False),
        )
        for words in _phrases(entry["words"])
    )


def _language(code: str, table: dict[str, Any]) -> Language:
    return Language(
        code=code,
        patterns=tuple(pattern for entry in table["patterns"] for pattern in _pattern(entry)),
        attributes=dict(table.get("attributes", {})),
        relations=dict(table.get("relations", {})),
        **{name: _w(text) for name, text in table.items() if name in _WORD_SETS},
        **{name: _phrases(text) for name, text in table.items() if name in _PHRASE_LISTS},
    )


_TABLES = tomllib.loads(WORDS_FILE.read_text(encoding="utf-8"))

HONORIFICS = _w(_TABLES["honorifics"])
"""Dropped when values are compared: "Dr. Weber" and "Weber" name the same person."""

NUMBER_WORDS = _w(_TABLES["number_words"])
ARTICLES = _w(_TABLES["articles"])
POSSESSIVE_DETERMINERS = _w(_TABLES["possessive_determiners"])
"""User words that introduce something of the user's ("my sister"), unlike those that are the user ("I", "ich")."""
THIRD_PERSON = _w(_TABLES["third_person"])
THIRD_POSSESSIVE = _w(_TABLES["third_possessive"])

LANGUAGES: tuple[Language, ...] = tuple(
    _language(code, table) for code, table in _TABLES.items() if isinstance(table, dict)
)
"""In the file's order, which is the order of preference when a text fits two languages equally well."""

PEOPLE: frozenset[str] = frozenset().union(*(language.people for language in LANGUAGES))
"""Every language's nouns for a person: the language of a short fact is a guess, and a relation folds to English
("Ehemann" → spouse)."""
