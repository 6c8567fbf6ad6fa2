"""Is a new fact the same as a stored one, an update of it, or something else? And what to do about it. Pure.

`judge(new, old, similarity)` compares two parsed facts (claims.py) about compatible subjects, in this order:

1. **Same statement**: the same meaningful words → duplicate; the same words with the opposite polarity
   ("likes sushi" / "no longer likes sushi") → update.
2. **Names the old value**: the new fact says what it replaces ("instead of Vim", "sold the Corolla",
   "switched from oat milk to", ", not 1985") and the stored fact holds those words → update.
3. **Same attribute** (a claim of each with the same subject and slot): a one-value slot (where someone lives or
   works, a job, a name, an age, what a thing "is") with a different value → update; a value that only adds
   detail → update (the new fact is more complete) or duplicate (the stored one is); a flipped polarity on the
   same value → update. Many-valued slots (what one likes, what the user is) change only with a change cue
   ("now", "no longer", "switched") and a value of the same kind; "prefers" is one value per kind (tea or coffee,
   window or aisle). "Also", "too", "a second" never replace anything.
4. **Same frame, one slot changed** (word alignment, for wording no pattern knows): a changed number, or a
   change cue with a value of the same kind → update; otherwise the pair is *related* but undecided.

"Of the same kind" means sharing a word, both numbers, both names (capitalised), or — when embeddings are on —
a cosine similarity of at least `SIMILAR_VALUES` between the words that differ in English facts (tea/coffee 0.61,
android/iphone 0.60, cat/coffee 0.41 with the multilingual encoder); for two claims' values in another language,
compared as written (`ValueSimilarity`), at least `MULTILINGUAL_SIMILAR_VALUES`. Both are cosines of the
multilingual Universal Sentence Encoder, the one encoder the Memorizer compares with.

`decide(...)` turns the judgements into one action with the provenance rule: a statement never supersedes a
fact of a more trusted provenance (owner > system > untrusted) nor a fact learned after it (an import of old
facts); it is then kept as history, superseded by the fact that stands.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from memorizer_mcp.claims import OWNER, Claim, ParsedFact, heads, stem, subjects_compatible
from memorizer_mcp.lexicon import NUMBER_WORDS
from memorizer_mcp.provenance import trust

SIMILAR_VALUES = 0.52
"""Cosine similarity (multilingual USE v3) of the words that differ in two English facts at which they count as
the same kind of thing: the middle of the gap between the unrelated pairs (at most 0.44) and the value pairs of
updates (0.60 and above) that the rules ask about on the tuned update set (benchmarks/memory_thresholds.py;
all-MiniLM-L6-v2, used before, had 0.45)."""
MULTILINGUAL_SIMILAR_VALUES = 0.40
"""The same for two claims' values as written, in any language: tea/coffee 0.61, thé/café 0.58,
profesor/abogado 0.42; unrelated values 0.05-0.34 (Berlin/iPhone 0.25, alérgico/abogado 0.27)."""

Verdict = Literal["duplicate", "update", "unrelated"]
Similarity = Callable[[str, str], float | None]
"""Cosine similarity of two short texts, or None without an embedder."""


def no_similarity(_a: str, _b: str) -> float | None:
    return None


@dataclass(frozen=True)
class ValueSimilarity:
    """Compares the values of two claims about the same attribute as written ("le thé", "le café"), with the
    threshold that belongs to the encoder behind it. Given, it replaces `similarity` for claim values: outside
    English, stemmed word spans read badly, and a value compared as written in its sentence's language reads
    well."""

    cosine: Similarity
    threshold: float = MULTILINGUAL_SIMILAR_VALUES


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    reason: str
    related: bool = False
    """The rules see a relation they could not settle: the utility model may decide it."""


UNRELATED = Judgement("unrelated", "nothing in common")


# -- comparing two facts -----------------------------------------------------------------------------------------


def _overlap(part: Sequence[str], whole: frozenset[str]) -> float:
    return sum(1 for word in part if word in whole) / len(part) if part else 0.0


@dataclass(frozen=True)
class SpanPair:
    old: tuple[str, ...]
    new: tuple[str, ...]


def _same_kind(
    pair: SpanPair,
    old: ParsedFact,
    new: ParsedFact,
    similarity: Similarity,
    threshold: float = SIMILAR_VALUES,
) -> bool:
    if set(pair.old) & set(pair.new):
        return True
    if _numeric(pair.old) and _numeric(pair.new):
        return True
    if all(w in old.names for w in pair.old) and all(w in new.names for w in pair.new):
        return True
    score = similarity(" ".join(pair.old), " ".join(pair.new))
    return score is not None and score >= threshold


def _values_alike(
    old: ParsedFact, new: ParsedFact, a: Claim, b: Claim, similarity: Similarity, values: ValueSimilarity | None
) -> bool:
    pair = SpanPair(a.value, b.value)
    if values is None:
        return _same_kind(pair, old, new, similarity)
    return _same_kind(pair, old, new, lambda _o, _n: values.cosine(a.value_text, b.value_text), values.threshold)


def _numeric_word(word: str) -> bool:
    return any(ch.isdigit() for ch in word) or word in NUMBER_WORDS


def _shaped(word: str, fact: ParsedFact) -> bool:
    """A name, a number or an address: a value whose kind its shape shows."""
    return word in fact.names or _numeric_word(word) or "@" in word


def _numeric(words: Sequence[str]) -> bool:
    return bool(words) and all(any(ch.isdigit() for ch in w) or w in NUMBER_WORDS for w in words)


def _value_relation(old: Claim, new: Claim) -> str:
    a, b = set(old.value), set(new.value)
    if a == b:
        return "same"
    if a and a < b:
        return "more"
    if b and b < a:
        return "less"
    return "other"


def _slots_match(old: Claim, new: Claim, cue: bool) -> bool:
    if not subjects_compatible(old.subject, new.subject):
        return False
    if old.slot == new.slot:
        return True
    # What the user "is" and their job are one attribute when the new fact announces a change ("the user is a
    # teacher" → "now works as a nurse", "est comptable" → "est devenu architecte").
    return cue and not old.subject and {old.slot, new.slot} == {"is", "title"}


def _claim_verdict(
    old: ParsedFact, new: ParsedFact, a: Claim, b: Claim, similarity: Similarity, values: ValueSimilarity | None
) -> str:
    """ "update", "same", "more", "less", "related" or "none" for one pair of claims about the same attribute."""
    relation = _value_relation(a, b)
    if old.negated != new.negated:
        return "update" if relation != "other" or not a.value or not b.value else "related"
    if relation in ("same", "more", "less"):
        return relation
    if new.additive:
        return "none"
    if a.slot == b.slot and (a.functional or b.functional):
        return "update"
    if a.slot == "prefer" or b.slot == "prefer":
        return "update" if _values_alike(old, new, a, b, similarity, values) else "none"
    if new.denied and new.cue:
        # "No longer likes cheese" ends liking cheese; it replaces no other value of a many-valued attribute
        # ("is allergic to peanuts", another dislike of the same kind).
        return "related"
    if (new.cue or b.cue) and _values_alike(old, new, a, b, similarity, values):
        return "update"
    return "related"


def _by_claims(
    old: ParsedFact, new: ParsedFact, similarity: Similarity, values: ValueSimilarity | None
) -> Judgement | None:
    verdicts = [
        _claim_verdict(old, new, a, b, similarity, values)
        for b in new.claims
        for a in old.claims
        if _slots_match(a, b, new.cue or b.cue)
    ]
    if not verdicts:
        return None
    if "update" in verdicts:
        return Judgement("update", "same attribute, new value")
    if any(v in ("same", "more", "less") for v in verdicts):
        old_words, new_words = old.content_set, new.content_set
        if new_words <= old_words or ("less" in verdicts and "more" not in verdicts):
            return Judgement("duplicate", "same attribute, same value")
        if old_words <= new_words or "more" in verdicts:
            return Judgement("update", "same value, more detail")
        return Judgement("unrelated", "same value, different details", related=True)
    if "related" in verdicts:
        return Judgement("unrelated", "same attribute, value of another kind", related=True)
    return UNRELATED


def _by_alignment(old: ParsedFact, new: ParsedFact, similarity: Similarity) -> Judgement:
    a, b = old.content, new.content
    a_set, b_set = old.content_set, new.content_set
    # A flip needs the same kind of statement: "hates cats" is not contradicted by "has three cats".
    flipped = old.negated != new.negated and (_markers(a_set) == _markers(b_set) or new.denied or old.denied)
    if not (b_set - _subject_words(old, new)):
        return UNRELATED  # it only names its subject: it says nothing to compare
    if b and b_set <= a_set:
        return Judgement("update", "opposite polarity") if flipped else Judgement("duplicate", "says less")
    if len(a) >= 2 and a_set <= b_set:
        return Judgement("update", "opposite polarity" if flipped else "same statement, more detail")
    shared = _words(a_set & b_set) - _subject_words(old, new)
    if flipped and shared and len(shared) >= len(_words(a_set | b_set)) // 2:
        return Judgement("update", "opposite polarity")
    changes = [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changes) != 1 or changes[0][0] != "replace":
        return _loose(old, new, shared, similarity)
    _, i1, i2, j1, j2 = changes[0]
    # The subject's own name ("Priya") is not a frame: two facts about Priya share it whatever they say.
    subject_words = _subject_words(old, new)
    frame = [w for w in (*a[:i1], *a[i2:]) if not w.startswith("<") and w not in subject_words]
    if not frame and not any(w.startswith("<") for w in (*a[:i1], *a[i2:])):
        return _loose(old, new, set(), similarity)
    pair = SpanPair(
        tuple(w for w in a[i1:i2] if not w.startswith("<")), tuple(w for w in b[j1:j2] if not w.startswith("<"))
    )
    rewritten = _markers(set(a[i1:i2])) - _markers(set(b[j1:j2])) and len(pair.new) > len(pair.old) + 1
    if not pair.old or not pair.new or rewritten:
        # the verb changed with the value ("goes hiking gladly" / "goes to Dr. Yilmaz"): another statement
        return UNRELATED
    if any(map(_numeric_word, pair.old)) and any(map(_numeric_word, pair.new)):
        return Judgement("update", "a number changed")  # "another cat, three cats now": a count, even when added to
    if new.additive:
        return Judgement("unrelated", "adds to it", related=True)
    if new.cue and (frame or _same_kind(pair, old, new, similarity)):
        return Judgement("update", "announced change in the same frame")
    return Judgement("unrelated", "same frame, another value", related=True)


def _markers(words: frozenset[str] | set[str]) -> set[str]:
    return {w for w in words if w.startswith("<")}


def _words(words: frozenset[str]) -> set[str]:
    return {w for w in words if not w.startswith("<")}


def _loose(old: ParsedFact, new: ParsedFact, shared: set[str], similarity: Similarity) -> Judgement:
    """An announced change whose wording moved more than one span: "I go swimming on Tuesdays" → "Swimming moved to
    Fridays"; "I'm on Android" → "I switched to an iPhone". The parts that differ must be of the same kind; with no
    word shared, both facts must be short (a bare value each) and similar by the embedder."""
    if not new.cue:
        return UNRELATED
    old_only = tuple(w for w in old.content if not w.startswith("<") and w not in shared)
    new_only = tuple(w for w in new.content if not w.startswith("<") and w not in shared)
    if not old_only or not new_only:
        return UNRELATED
    if shared and any(map(_numeric_word, old_only)) and any(map(_numeric_word, new_only)):
        return Judgement("update", "announced change of a number in the same frame")
    if new.additive:
        return Judgement("unrelated", "adds to it", related=True)
    if shared and any(_shaped(w, old) for w in old_only) and any(_shaped(w, new) for w in new_only):
        return Judgement("update", "announced change of a name in the same frame")
    pair = SpanPair(old_only, new_only)
    if shared and _same_kind(pair, old, new, similarity):
        return Judgement("update", "announced change to a value of the same kind")
    if not shared and len(old_only) <= 3 and len(new_only) <= 3:
        # Nothing in common but the announced change: only values the embedder finds alike ("Android" / "iPhone",
        # not "Berlin" / "iPhone") are taken as one replacing the other.
        score = similarity(" ".join(old_only), " ".join(new_only))
        if score is not None and score >= SIMILAR_VALUES:
            return Judgement("update", "announced change to a similar value")
    return Judgement("unrelated", "announced change, another kind of value", related=True)


def _about_the_same(a: ParsedFact, b: ParsedFact, a_subject: tuple[str, ...], b_subject: tuple[str, ...]) -> bool:
    """Whether `b` is about `a`'s subject or something of it the other names: "Swimming moved to Fridays" and "I go
    swimming on Tuesdays" (the user's swimming); "Priya changed her mobile number" and "Priya's mobile number is ...".
    """
    if subjects_compatible(a_subject, b_subject):
        return True
    owners_b = {w.removesuffix(OWNER) for w in b_subject if w.endswith(OWNER)}
    if not owners_b and not a_subject:
        # ... but a name in a fact about the user is someone else: "O Rui faz caminhadas" is not the user's.
        return bool(b_subject) and heads(b_subject) <= a.content_set and not heads(b_subject) & a.names
    return bool(owners_b) and owners_b == heads(a_subject) and heads(b_subject) <= a.content_set


def _subject_words(a: ParsedFact, b: ParsedFact) -> set[str]:
    """The words of the subject both facts are about ("Priya ...", "Priya ..."): any two facts about her share
    them, so they make no frame. (A subject one fact names inside the other, "swimming", still does.)"""
    if not subjects_compatible(a.subject, b.subject):
        return set()
    words = {w.removesuffix(OWNER) for w in (*a.subject, *b.subject)}
    return words | {stem(w) for w in words}


def judge(
    new: ParsedFact,
    old: ParsedFact,
    similarity: Similarity = no_similarity,
    values: ValueSimilarity | None = None,
) -> Judgement:
    """What `new` is to `old` (a stored fact): a duplicate, an update, or unrelated. `similarity` compares the
    words that differ; `values`, when given, compares two claims' values instead (see ValueSimilarity)."""
    if new.content and new.content_set == old.content_set and new.content_set - _subject_words(old, new):
        if new.negated != old.negated:
            return Judgement("update", "opposite polarity")
        return Judgement("duplicate", "same statement")
    # "Swimming moved to Fridays" is about the user's swimming ("I go swimming on Tuesdays"): a subject named in the
    # other fact about the user counts as the same.
    subjects = any(
        _about_the_same(old, new, a, b) or _about_the_same(new, old, b, a)
        for a in old.subjects or {old.subject}
        for b in new.subjects or {new.subject}
    )
    # "Stopped seeing Dr. Lee" (the user) replaces "the user's therapist is Dr. Lee" (the user's): both the user's;
    # "Priya cancelled PureGym" replaces "Priya's gym membership is at PureGym": both Priya's.
    owners_old = {w.removesuffix(OWNER) for w in old.subject if w.endswith(OWNER)}
    owners_new = {w.removesuffix(OWNER) for w in new.subject if w.endswith(OWNER)}
    if (
        subjects
        or (not new.subject and old.user_related)
        or (not old.subject and new.user_related)
        or (owners_old and owners_old == heads(new.subject))
        or (owners_new and owners_new == heads(old.subject))
    ):
        own = {w.removesuffix(OWNER) for w in new.subject}
        for span in new.replaced:
            words = [w for w in span if w not in own]  # "Jonas hat den Audi verkauft": the Audi, not Jonas
            if words and _overlap(words, old.content_set) >= 0.5:
                return Judgement("update", "names the old value")
    by_claims = _by_claims(old, new, similarity, values)
    if by_claims is not None and (by_claims.verdict != "unrelated" or not subjects):
        return by_claims
    if not subjects:
        return UNRELATED
    aligned = _by_alignment(old, new, similarity)
    if by_claims is not None and aligned.verdict == "unrelated":
        return by_claims
    return aligned


# -- deciding ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A current fact of the agent that the new one is compared with."""

    id: int
    text: str
    provenance: str
    created_at: str
    parsed: ParsedFact


Action = Literal["add", "merge", "supersede", "history"]


@dataclass(frozen=True)
class Decision:
    action: Action
    target: int | None = None
    """merge: the fact merged into; history: the fact that stands."""
    supersede: tuple[int, ...] = ()
    """Facts that stop being current (superseded by the new fact, or by `target` on a merge)."""
    raise_provenance: bool = False
    """merge: the new statement is more trusted than the stored one, which takes its provenance."""
    reason: str = ""


def decide(provenance: str, learned_at: str, judged: Sequence[tuple[Candidate, Judgement]]) -> Decision:
    """One action for the new fact, given its judgements against the current candidates.

    Duplicates merge (into the most trusted, then most recent); updates supersede the facts they update — unless
    one of them is more trusted than the new fact or was learned after it: then the new fact is kept only as
    history, superseded by that one. A more trusted statement of the same fact raises the stored fact's
    provenance ("the owner confirmed it").
    """
    level = trust(provenance)
    duplicates = [c for c, j in judged if j.verdict == "duplicate"]
    updates = [(c, j) for c, j in judged if j.verdict == "update"]
    if duplicates:
        target = max(duplicates, key=lambda c: (trust(c.provenance), c.created_at, c.id))
        holder = max(level, trust(target.provenance))
        stale = tuple(c.id for c, _ in updates if trust(c.provenance) <= holder and c.id != target.id)
        reason = next(j.reason for c, j in judged if c.id == target.id)
        return Decision("merge", target.id, stale, level > trust(target.provenance), reason)
    if updates:
        blockers = [c for c, _ in updates if trust(c.provenance) > level or c.created_at > learned_at]
        if blockers:
            stands = max(blockers, key=lambda c: (trust(c.provenance), c.created_at, c.id))
            why = "a more trusted fact stands" if trust(stands.provenance) > level else "a later fact stands"
            return Decision("history", stands.id, reason=why)
        reasons = "; ".join(dict.fromkeys(j.reason for _, j in updates))
        return Decision("supersede", supersede=tuple(c.id for c, _ in updates), reason=reasons)
    return Decision("add")
