"""The claim parser and the update rules (claims.py, decisions.py): pure, no database.

The examples are grammar, not the benchmark's sequences: each states one way a language says who a fact is
about, which attribute, which value, and whether it announces a change.
"""

from __future__ import annotations

import pytest

from memorizer_mcp.claims import key_match, keys, parse, query_terms, subjects_compatible
from memorizer_mcp.decisions import Candidate, Judgement, ValueSimilarity, decide, judge
from memorizer_mcp.provenance import trust, weakest

# -- parsing -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "key", "value"),
    [
        ("The user lives in Oslo.", "en", "|residence", ("oslo",)),
        ("Relocated to Porto last spring", "en", "|residence", ("porto",)),
        ("Der Nutzer ist nach Graz gezogen.", "de", "|residence", ("graz",)),
        ("Die Nutzerin wohnt jetzt in Linz.", "de", "|residence", ("linz",)),
        ("L'utilisatrice vit à Lille.", "fr", "|residence", ("lille",)),
        ("La usuaria se mudó a Bilbao.", "es", "|residence", ("bilbao",)),
        ("A utilizadora mora em Évora.", "pt", "|residence", ("evora",)),
        ("L'utente abita a Genova.", "it", "|residence", ("genova",)),
        ("Ik woon in Delft.", "nl", "|residence", ("delft",)),
        ("Works for Acme as a welder.", "en", "|employer", ("acme",)),
        ("Er arbeitet als Koch.", "de", "|title", ("koch",)),
        ("The user's brother is called Tiago.", "en", "brother|is", ("tiago",)),
        ("Mein Bruder heißt Paul.", "de", "bruder|is", ("paul",)),
        ("Le chien de l'utilisateur s'appelle Rex.", "fr", "chien|is", ("rex",)),
        ("Il gatto dell'utente si chiama Micio.", "it", "gatto|is", ("micio",)),
        ("The user's boss is Dr. Kim.", "en", "boss|is", ("kim",)),
        ("Marta is my manager.", "en", "boss|is", ("marta",)),
        ("The user is 52 years old.", "en", "|age", ("52",)),
        ("La usuaria tiene 33 años.", "es", "|age", ("33",)),
        ("Favourite dish: paella.", "en", "favourite dish|is", ("paella",)),
        ("Employer - Initech", "en", "|employer", ("initech",)),
        ("Olga is learning the harp.", "en", "olga|state", ("learning", "harp")),
        ("Mein Bruder ist krank.", "de", "bruder|state", ("krank",)),
        ("Olga is 40.", "en", "olga|is", ("40",)),
        ("Olga graduated and is now a vet.", "en", "olga|is-a", ("vet",)),
        ("My favourite band these days is Wet Leg.", "en", "favourite band|is", ("wet", "leg")),
        ("Olga's favourite season is autumn.", "en", "olga's favourite season|is", ("autumn",)),
    ],
)
def test_a_fact_is_read_as_subject_slot_and_value(text: str, language: str, key: str, value: tuple[str, ...]) -> None:
    parsed = parse(text)
    assert parsed.language == language
    claim = next(c for c in parsed.claims if c.key == key)
    assert claim.value == value


@pytest.mark.parametrize(
    ("text", "negated", "cue", "additive"),
    [
        ("The user no longer eats meat.", True, True, False),
        ("Der Nutzer trinkt keinen Kaffee mehr.", True, True, False),
        ("L'utilisateur n'aime plus le jazz.", True, True, False),
        ("The user hates olives.", True, False, False),
        ("The user can't stand olives.", True, False, False),
        ("The user now lives in Rome.", False, True, False),
        ("The user moved to New York.", False, True, False),
        ("The user also speaks Greek.", False, False, True),
        ("The user adopted a second dog.", False, False, True),
        ("The user reads the New Yorker.", False, False, False),
    ],
)
def test_polarity_change_cues_and_additions_are_recognised(text: str, negated: bool, cue: bool, additive: bool) -> None:
    parsed = parse(text)
    assert (parsed.negated, parsed.cue, parsed.additive) == (negated, cue, additive)


@pytest.mark.parametrize(
    ("text", "replaced"),
    [
        ("The user switched from Emacs to Helix.", ("emacs",)),
        ("The user sold the Vespa and bought a bike.", ("vespa",)),
        ("The user drinks water instead of soda.", ("soda",)),
        ("The meeting is on Tuesday, not Monday.", ("monday",)),
        ("The user prefers trains over planes.", ("plane",)),
        ("Den Fiat habe ich verkauft.", ("fiat",)),
        ("L'utilisateur boit du thé au lieu du café.", ("cafe",)),
    ],
)
def test_a_fact_names_the_value_it_replaces(text: str, replaced: tuple[str, ...]) -> None:
    assert replaced in parse(text).replaced


def test_the_subject_is_the_user_or_the_person_named() -> None:
    assert parse("Lives in Oslo").subject == ()
    assert parse("I live in Oslo").subject == ()
    assert parse("My sister Ana lives in Oslo").subject == ("sister", "ana")
    assert parse("Ana's husband is Pedro").subject == ("ana's", "spouse")
    assert parse("El hermano de Lucía vive en Cádiz").subject == ("lucia's", "hermano")
    assert parse("Priya left Glasgow; she lives in Dundee now.").subject == ("priya",)
    assert parse("Tom switched to the night shift").subject == ("tom",)
    assert parse("Sold the old piano").subject == ()
    assert subjects_compatible(("sister", "ana"), ("ana",))
    assert not subjects_compatible((), ("sister",))
    assert not subjects_compatible(("brother",), ("sister",))
    assert not subjects_compatible(("priya's", "brother"), ("priya",))


def test_keys_file_a_fact_under_each_attribute_it_states() -> None:
    assert keys(parse("The user works at Nokia as a tester.")) == ["|employer", "|title"]
    assert keys(parse("The user is vegetarian.")) == ["|is"]
    assert keys(parse("Went for a walk.")) == []


@pytest.mark.parametrize(
    ("query", "key", "score"),
    [
        ("Where is the user based?", "|residence", 1.0),
        ("Where does Ana live?", "ana|residence", 1.0),
        ("Where does Ana live?", "|residence", 0.0),
        ("Who is the user's manager?", "boss|is", 1.0),
        ("How old is the user?", "|age", 1.0),
        ("Wo arbeitet der Nutzer?", "|employer", 1.0),
        ("Who is the user's manager?", "|employer", 0.0),
        ("What is the user's favourite colour?", "favourite colour|is", 1.0),
        ("What is the user's favourite colour?", "|residence", 0.0),
        ("What are the user's dogs called?", "dog|is", 1.0),
        # what someone is like or doing is about them, not the answer to every question about them
        ("Who does Olga report to?", "olga|state", 0.5),
    ],
)
def test_a_question_matches_the_keys_of_the_facts_that_answer_it(query: str, key: str, score: float) -> None:
    assert key_match(key, query_terms(query)) == score


# -- judging -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "verdict"),
    [
        # one value at a time: a new value replaces, the same value is a duplicate, more detail supersedes
        ("The user lives in Oslo.", "The user moved to Bergen.", "update"),
        ("Der Nutzer wohnt in Ulm.", "Der Nutzer wohnt jetzt in Jena.", "update"),
        ("The user works at Nokia.", "The user joined Nokia.", "duplicate"),
        ("The user works at Nokia.", "The user works at Nokia in Espoo.", "update"),
        ("The user's brother is called Tiago.", "Correction: the user's brother is called Thiago.", "update"),
        ("The user is 52 years old.", "The user just turned 53.", "update"),
        ("Favourite dish: paella.", "Favourite dish: risotto.", "update"),
        # flips of polarity, and facts that name what they replace
        ("The user eats meat.", "The user no longer eats meat.", "update"),
        ("L'utilisateur aime le jazz.", "L'utilisateur n'aime plus le jazz.", "update"),
        ("The user loves olives.", "The user hates olives now.", "update"),
        ("The user plays squash.", "The user gave up squash for padel.", "update"),
        ("The user uses Emacs.", "The user switched from Emacs to Helix.", "update"),
        # same frame, one value changed: a number, or an announced change
        ("The user has 2 bikes.", "The user has 3 bikes.", "update"),
        ("The user swims on Mondays.", "The user swims on Fridays now.", "update"),
        # first person, inverted order, things that end, values that moved in a reworded sentence
        ("I ride a Vespa.", "My Vespa got stolen, so I walk now.", "update"),
        ("I'm 41.", "I turned 42 on Sunday.", "update"),
        ("Ich esse gerne Fisch.", "Fisch mag ich nicht mehr.", "update"),
        ("I adore operas.", "Operas bore me these days.", "update"),
        ("I go running on Mondays.", "Running moved to Thursdays for me.", "update"),
        ("Ik woon in Gouda.", "Ik woon sinds kort in Zwolle.", "update"),
        ("I live in Berlin.", "I switched to an iPhone.", "unrelated"),
        # things that can all be true at once
        ("The user likes jazz.", "The user likes opera.", "unrelated"),
        ("The user speaks Greek.", "The user also speaks Turkish.", "unrelated"),
        ("The user lives in Oslo.", "The user's sister lives in Bergen.", "unrelated"),
        ("The user's son is called Ben.", "The user's daughter is called Mia.", "unrelated"),
        ("The user's dog is called Rex.", "The user adopted a second dog called Bo.", "unrelated"),
        ("The user lives in Oslo.", "The user visited Bergen.", "unrelated"),
        ("The user prefers tea.", "The user prefers aisle seats.", "unrelated"),
    ],
)
def test_a_new_fact_is_judged_against_a_stored_one(old: str, new: str, verdict: str) -> None:
    assert judge(parse(new), parse(old)).verdict == verdict


@pytest.mark.parametrize(
    ("old", "new", "verdict"),
    [
        # someone "is" many things at once: a state, an activity, a feeling, a trait
        ("Olga is learning the harp.", "Olga is afraid of dogs.", "unrelated"),
        ("My cousin is shy.", "My cousin is training for a marathon.", "unrelated"),
        ("Die Schwester von Lena ist krank.", "Die Schwester von Lena ist schwanger.", "unrelated"),
        ("Le frère de Paul est timide.", "Le frère de Paul est fatigué.", "unrelated"),
        ("O avô do Rui é surdo.", "O avô do Rui é diabético.", "unrelated"),
        # ... but one named person, one number, and an attribute holds one value
        ("Olga is 40.", "Olga is 41.", "update"),
        ("My landlord is Mr. Hale.", "My landlord is Mrs. Byrne now.", "update"),
        ("Olga's favourite season is autumn.", "Olga's favourite season is spring.", "update"),
        ("La couleur préférée de Paul est le vert.", "La couleur préférée de Paul est le bleu.", "update"),
    ],
)
def test_a_person_is_many_things_at_once_an_attribute_one(old: str, new: str, verdict: str) -> None:
    assert judge(parse(new), parse(old)).verdict == verdict


def test_values_of_the_same_kind_come_from_the_embedder_when_words_do_not_tell() -> None:
    old, new = parse("The user prefers tea."), parse("The user prefers coffee.")
    assert judge(new, old).verdict == "unrelated"
    assert judge(new, old, lambda a, b: 0.62 if {a, b} == {"tea", "coffee"} else None).verdict == "update"
    assert judge(parse("The user prefers dark mode."), old, lambda a, b: 0.18).verdict == "unrelated"
    android, iphone = parse("I'm on Android."), parse("I switched to an iPhone.")
    assert judge(iphone, android).verdict == "unrelated"  # two names, nothing else in common: not enough
    assert judge(iphone, android, lambda a, b: 0.55).verdict == "update"


def test_values_in_other_languages_are_compared_as_written_by_the_value_encoder() -> None:
    old, new = parse("L'utilisateur préfère le thé."), parse("L'utilisateur préfère désormais le café.")
    asked: list[tuple[str, str]] = []
    assert judge(new, old, values=ValueSimilarity(lambda a, b: asked.append((a, b)))).verdict == "unrelated"
    assert asked == [("thé", "café")]  # the claims' values with their accents, not the folded words
    assert judge(new, old, values=ValueSimilarity(lambda a, b: 0.58)).verdict == "update"
    assert judge(new, old, values=ValueSimilarity(lambda a, b: 0.58, threshold=0.6)).verdict == "unrelated"
    job, lawyer = parse("El usuario es profesor."), parse("El usuario trabaja ahora como abogado.")
    assert judge(lawyer, job, values=ValueSimilarity(lambda a, b: 0.42)).verdict == "update"
    assert judge(lawyer, job, values=ValueSimilarity(lambda a, b: 0.27)).verdict == "unrelated"


def test_no_longer_liking_one_thing_replaces_no_other_dislike() -> None:
    peanuts = parse("L'utilisateur est allergique aux arachides.")
    cheese = parse("L'utilisateur n'aime plus le fromage.")
    assert judge(cheese, peanuts, values=ValueSimilarity(lambda a, b: 0.9)).verdict == "unrelated"
    liked = parse("L'utilisateur aime le fromage.")
    assert judge(cheese, liked, values=ValueSimilarity(lambda a, b: None)).verdict == "update"


# -- deciding ----------------------------------------------------------------------------------------------------


def candidate(fact_id: int, text: str, provenance: str = "owner", created_at: str = "2026-01-01 00:00:00") -> Candidate:
    return Candidate(fact_id, text, provenance, created_at, parse(text))


UPDATE = Judgement("update", "test")
SAME = Judgement("duplicate", "test")
NONE = Judgement("unrelated", "test")
NOW = "2026-06-01 00:00:00"


def test_an_update_supersedes_every_fact_it_updates() -> None:
    decision = decide(
        "owner", NOW, [(candidate(1, "a"), UPDATE), (candidate(2, "b"), NONE), (candidate(3, "c"), UPDATE)]
    )
    assert (decision.action, decision.supersede) == ("supersede", (1, 3))


def test_an_untrusted_statement_never_supersedes_the_owners_fact() -> None:
    decision = decide(
        "untrusted", NOW, [(candidate(1, "owner's"), UPDATE), (candidate(2, "mail's", "untrusted"), UPDATE)]
    )
    assert (decision.action, decision.target, decision.supersede) == ("history", 1, ())
    system = decide("system", NOW, [(candidate(1, "owner's"), UPDATE)])
    assert (system.action, system.target) == ("history", 1)
    peer = decide("untrusted", NOW, [(candidate(2, "mail's", "untrusted"), UPDATE)])
    assert (peer.action, peer.supersede) == ("supersede", (2,))


def test_a_fact_learned_before_the_stored_one_becomes_its_history() -> None:
    decision = decide(
        "owner", "2025-01-01 00:00:00", [(candidate(1, "later", created_at="2026-01-01 00:00:00"), UPDATE)]
    )
    assert (decision.action, decision.target) == ("history", 1)


def test_a_duplicate_merges_and_a_more_trusted_restatement_raises_the_stored_fact() -> None:
    merged = decide(
        "owner", NOW, [(candidate(1, "mail's", "untrusted"), SAME), (candidate(2, "old", "untrusted"), UPDATE)]
    )
    assert (merged.action, merged.target, merged.supersede, merged.raise_provenance) == ("merge", 1, (2,), True)
    same_level = decide("untrusted", NOW, [(candidate(1, "owner's"), SAME), (candidate(2, "owner's old"), UPDATE)])
    assert (same_level.action, same_level.supersede, same_level.raise_provenance) == ("merge", (2,), False)
    assert decide("owner", NOW, [(candidate(1, "x"), NONE)]).action == "add"


def test_provenance_classes_are_ordered_and_unknown_ones_are_untrusted() -> None:
    assert trust("owner") > trust("system") > trust("untrusted") == trust("admin") == 0
    assert weakest("owner", "untrusted") == "untrusted"
    assert weakest("system", "owner") == "system"
