"""Whether a new fact updates a stored one, read by the multilingual encoder where the lexicon reads nothing. Pure.

The update rules (decisions.py) read facts with the word lists of seven languages (lexicon.toml). A fact in any
other language gives them no claim ("Иван переехал в Томск", "用户搬到了重庆", "Kullanıcı İzmir'e taşındı"), so an
update in it was judged unrelated and stored beside the fact it replaces, which then stayed current. This module
judges such a pair (and a pair the rules found related but could not settle) with the encoder that already
embeds every fact (multilingual USE v3, one vector space for sixteen languages), from examples written once, in
English. A pair is an update when all of these hold:

- **Alike.** The two facts are at least `PAIR_FLOOR` close as sentences.
- **The same attribute.** A fact's attribute scores are its cosines to the mean vector of each attribute's
  examples (`ATTRIBUTES`). Two facts state the same attribute when one of them is closest to an attribute that
  holds one value at a time (where someone lives, their work, partner, boss, a name, an age, a number, a date,
  a favourite) and the other is at least `ATTRIBUTE_FLOOR` close to it as well; an attribute with kinds (a
  favourite colour beside a favourite drink) also needs the facts `KIND_FLOOR` alike. Attributes that hold many
  values at once (hobbies, what one learns or fears, health, children, possessions, diet) never replace each
  other. A pair that differs only in a number of the stored fact states one attribute, whichever it is.
- **The same holder.** The words the two facts do not share are compared with words for people and pets
  (`HOLDERS`): a word close enough to one of them, and closer to it than to any of `ANCHORS`, names someone
  ("мама" → mother, "哥" → brother, "남편" → husband). The two sides must name the same holders ("my mother lives
  in Tula" / "my father lives in Ryazan" do not), and must not each open with a word the other lacks: most
  languages open a sentence with its subject ("Иван ..." / "Ольга ...", "민수는 ..." / "지영은 ...").
- **Nothing added.** No word only the new fact has is close to "also", "too", "another" (тоже, 也, też): "my
  brother also drives a taxi" adds a job.

Known limits: a verb-first sentence whose verb changes (Arabic "يعيش ..." / "انتقل ...") reads as another
subject; two names in a script without spaces that share their first character (小李 / 小张) are not told apart;
for languages the encoder was not trained on (Hindi, Greek, Swedish, Vietnamese among them) its cosines say
nothing and the floors are not reached, so such facts stay side by side, as before.

The floors are cosines of that encoder, read off the tuned and development update sets only
(benchmarks/data/memory_updates.json and memory_updates_dev4.json; docs/benchmarks.md).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memorizer_mcp.claims import ParsedFact
from memorizer_mcp.decisions import Judgement

ATTRIBUTE_FLOOR = 0.30
"""Lowest cosine of both facts to the attribute they share: the lowest such score of an update pair on the
development set is 0.31 (a new job said as "我现在当医生了"), rounded down; facts of a language the encoder was
not trained on score 0.05-0.25 on every attribute."""
PAIR_FLOOR = 0.30
"""Lowest cosine of the two facts themselves: update pairs on the development set are 0.34-0.81 apart, a fact of
another attribute that the attribute test lets through (a liking for music beside a favourite season) 0.08-0.26."""
KIND_FLOOR = 0.50
"""For an attribute with kinds: favourites of one kind are 0.57-0.82 apart on the tuned and development sets
(colour blue / green 0.82, любимый напиток кофе / чай 0.69), of two kinds 0.33-0.41 (season / colour 0.41,
цвет / напиток 0.36)."""
HOLDER_FLOOR = 0.60
"""Cosine of a word to the nearest word for a person or a pet at which it may name someone: kin words in ten
languages score 0.61-0.94 (ابنتي 0.61, мама 0.88, 남편 0.92), job titles and pronouns at most 0.55 (nurse 0.54,
"я" 0.52) on the development set ..."""
HOLDER_MARGIN = 0.20
"""... and by how much it must be closer to that word than to any of `ANCHORS`: short words sit close to every
short word (a hub: "на", "了", "to", "している" are 0.6-0.7 from "son", and as close to "in" or "the"), kin
words are 0.21-0.60 closer to their holder than to any anchor, the hub words at most 0.17 (midwife)."""
OWNER_FLOOR = 0.80
OWNER_MARGIN = 0.15
"""Cosine of an opening word to the nearest of `OWNER`, and its margin over `ANCHORS`, at which it is the owner
speaking (the first person, one or many): я 0.90 (+0.30), мы 0.96 (+0.30), wir 0.92 (+0.28), 私 0.93 (+0.32), 우리
0.94 (+0.44), ich 0.90 (+0.19); third persons and names stay under (он 0.60, she 0.61, Иван 0.35, all with a
negative margin), as do "you" (0.69) and the languages the encoder was not trained on (Ukrainian ми 0.64)."""
ADDITION_FLOOR = 0.60
ADDITION_MARGIN = 0.15
"""Cosine of a word only the new fact has to the nearest of `ADDITIONS`, and its margin over `ANCHORS`, at which
it adds a value: тоже/также 0.94 (+0.29), 也 0.87 (+0.20); hub words at most +0.13."""
MAX_WORDS = 12
"""Most differing words per side compared with `HOLDERS` and `ADDITIONS` (one encoder batch for them all)."""


def for_encoder(new: ParsedFact, old: ParsedFact, judgement: Judgement) -> bool:
    """Whether the encoder judges the pair again: the rules judged it unrelated, and either saw a relation they
    could not settle or cannot read both facts (a language the lexicon has no word of, or no claim)."""
    if judgement.verdict != "unrelated":
        return False
    return judgement.related or all(not fact.read or not fact.claims for fact in (new, old))


@dataclass(frozen=True)
class Attribute:
    name: str
    one_value: bool
    examples: tuple[str, ...]
    kinds: bool = False
    """One value per kind (a favourite colour beside a favourite drink, a phone number beside a postal code): the
    kind is said in the fact, so two facts of one kind are alike as sentences, at least `KIND_FLOOR`."""


ATTRIBUTES: tuple[Attribute, ...] = (
    Attribute(
        "residence",
        True,
        (
            "She lives in Madrid.",
            "He moved to another city.",
            "They relocated to Boston.",
            "Her home is in Lyon now.",
            "I live in a small town.",
        ),
    ),
    Attribute(
        "work",
        True,
        (
            "He works as a nurse.",
            "She is a teacher by profession.",
            "He works at a bank.",
            "She got a new job as an engineer.",
            "I am employed by Siemens.",
            "He quit his job and now drives a taxi.",
        ),
    ),
    Attribute(
        "partner",
        True,
        (
            "His girlfriend is called Anna.",
            "She is married to Tom.",
            "He is dating Maria.",
            "I broke up with my boyfriend.",
        ),
    ),
    Attribute("boss", True, ("Her boss is Martin.", "My manager is called Eva.")),
    Attribute("name", True, ("The dog is called Rex.", "Her name is Julia.", "The cat's name is Tom."), kinds=True),
    Attribute("age", True, ("She is 34 years old.", "I turned forty.")),
    Attribute(
        "number",
        True,
        (
            "His phone number is 0171 234 567.",
            "The postal code is 10115.",
            "The flat number is 12.",
            "My licence plate is AB 123.",
        ),
        kinds=True,
    ),
    Attribute(
        "date",
        True,
        ("Her birthday is on 3 May.", "The wedding is on 12 June.", "The appointment is on Tuesday at ten."),
        kinds=True,
    ),
    Attribute(
        "favourite",
        True,
        (
            "His favourite colour is blue.",
            "Her favourite drink is tea.",
            "I prefer coffee now.",
            "My favourite season is spring.",
        ),
        kinds=True,
    ),
    Attribute(
        "hobby",
        False,
        ("He plays football.", "She enjoys hiking on weekends.", "His hobby is painting.", "I like jazz."),
    ),
    Attribute(
        "learning",
        False,
        ("She is learning to play the guitar.", "He is taking Spanish lessons.", "My son studies medicine."),
    ),
    Attribute("fear", False, ("She is afraid of dogs.", "He is scared of flying.")),
    Attribute("health", False, ("He is allergic to nuts.", "She has asthma.")),
    Attribute("family", False, ("She has a son called Ben.", "He has two daughters.", "My sister has a baby.")),
    Attribute("possession", False, ("He owns a bicycle.", "She has a red car.")),
    Attribute("diet", False, ("He doesn't eat meat.", "She is vegetarian.")),
)

CHANGED_NUMBER = Attribute("number", True, ())

HOLDERS: tuple[str, ...] = (
    *("mother", "father", "brother", "sister", "son", "daughter", "wife", "husband", "grandmother", "grandfather"),
    *("aunt", "uncle", "cousin", "friend", "neighbour", "colleague", "boyfriend", "girlfriend", "child", "baby"),
    *("dog", "cat"),
)
ADDITIONS: tuple[str, ...] = ("also", "too", "as well", "another", "additionally", "a second")
OWNER: tuple[str, ...] = ("I", "we", "me", "my", "our")
"""The owner speaking: a fact that opens with "I" and its update that opens with "we" ("Я живу в Казани." / "Мы
переехали в Нижний Новгород.") open with different words but the same subject."""
ANCHORS: tuple[str, ...] = (
    *("the", "a", "an", "in", "on", "to", "of", "is", "and", "at", "with", "from", "now"),
    *("city", "house", "job", "car", "day", "thing", "name", "year"),
)
"""Words for no one and nothing in particular: what a word must be closer to a holder or an addition than to."""

_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f]")
"""Kana, Han and Thai: scripts written without spaces, whose words are read as characters and pairs of them."""


def _runs(text: str) -> list[str]:
    """Runs of letters, marks and digits: a vowel sign or a shadda stays inside its word ("रहता", "عمّان")."""
    runs, current = [], []
    for ch in text.casefold():
        if unicodedata.category(ch)[0] in "LMN":
            current.append(ch)
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


def words(text: str) -> list[str]:
    """The text's words, case-folded; a run in a script without spaces as its characters and character pairs."""
    out: list[str] = []
    for run in _runs(text):
        if _UNSPACED.search(run):
            out.extend(run)
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


def _same_word(a: str, b: str) -> bool:
    """The same word, perhaps inflected: equal, or of three letters or more with the first two agreeing
    ("моего" / "мой")."""
    return a == b or (len(a) >= 3 and len(b) >= 3 and a[:2] == b[:2])


def _first_word(text: str) -> str | None:
    """The first word (a character, in a script without spaces), case-folded."""
    run = next(iter(_runs(text)), None)
    return run[0] if run and _UNSPACED.match(run) else run


@dataclass(frozen=True)
class Difference:
    """The words each of two facts has and the other lacks, and whether they open with different subjects."""

    old: tuple[str, ...]
    new: tuple[str, ...]
    openings: tuple[str, str] | None
    """The words the two facts open with, when each opens with a word the other does not have anywhere: in most
    languages a sentence opens with its subject ("Иван живёт в Омске" / "Ольга живёт в Томске", "민수는 ..." /
    "지영은 ..."), while an update of the same subject keeps it ("Я працюю ..." / "Тепер я працюю ...")."""
    number_changed: bool
    """Every word only the stored fact has is a number, and the new fact has another."""

    @property
    def vector_words(self) -> tuple[str, ...]:
        """Every word whose vector `judge_difference` reads."""
        return tuple(dict.fromkeys((*self.old, *self.new, *(self.openings or ()))))

    @classmethod
    def of(cls, old: str, new: str) -> Difference:
        old_words, new_words = words(old), words(new)
        old_only = tuple(dict.fromkeys(w for w in old_words if w not in set(new_words)))[:MAX_WORDS]
        new_only = tuple(dict.fromkeys(w for w in new_words if w not in set(old_words)))[:MAX_WORDS]
        first_old, first_new = _first_word(old), _first_word(new)
        other = (
            first_old is not None
            and first_new is not None
            and not any(_same_word(first_old, w) for w in new_words)
            and not any(_same_word(first_new, w) for w in old_words)
        )
        numbers = bool(old_only) and all(w.isdigit() for w in old_only) and any(w.isdigit() for w in new_only)
        openings = (first_old, first_new) if other and first_old and first_new else None
        return cls(old_only, new_only, openings, numbers)


@dataclass(frozen=True)
class Prototypes:
    """The unit mean vector of each attribute's examples, and the vectors of `HOLDERS` and `ADDITIONS`."""

    attributes: np.ndarray
    holders: np.ndarray
    additions: np.ndarray
    owner: np.ndarray
    anchors: np.ndarray

    @classmethod
    def from_batch(cls, vectors: np.ndarray) -> Prototypes:
        """From the vectors of `prototype_texts()`, in that order."""
        means, start = [], 0
        for attribute in ATTRIBUTES:
            mean = vectors[start : start + len(attribute.examples)].mean(axis=0)
            means.append(mean / np.linalg.norm(mean))
            start += len(attribute.examples)
        holders = vectors[start : start + len(HOLDERS)]
        start += len(HOLDERS)
        additions = vectors[start : start + len(ADDITIONS)]
        start += len(ADDITIONS)
        owner = vectors[start : start + len(OWNER)]
        anchors = vectors[start + len(OWNER) :]
        return cls(
            np.stack(means).astype(np.float32),
            holders.astype(np.float32),
            additions.astype(np.float32),
            owner.astype(np.float32),
            anchors.astype(np.float32),
        )


def prototype_texts() -> list[str]:
    """Every text the prototypes are made of, for one batch to the encoder."""
    return [*(text for a in ATTRIBUTES for text in a.examples), *HOLDERS, *ADDITIONS, *OWNER, *ANCHORS]


def shared_attribute(
    old: np.ndarray, new: np.ndarray, difference: Difference, prototypes: Prototypes
) -> Attribute | None:
    """The one-value attribute both fact vectors state, or None (see the module's docstring). A pair that differs
    only in a number of the stored fact ("Моему сыну 7 лет" → "Ошибся: моему сыну 8 лет") states one, whichever."""
    alike = float(old @ new)
    if alike < PAIR_FLOOR:
        return None
    if difference.number_changed:
        return CHANGED_NUMBER
    old_scores, new_scores = prototypes.attributes @ old, prototypes.attributes @ new
    for scores in (old_scores, new_scores):
        top = int(np.argmax(scores))
        attribute = ATTRIBUTES[top]
        if attribute.kinds and alike < KIND_FLOOR:
            continue
        if attribute.one_value and min(old_scores[top], new_scores[top]) >= ATTRIBUTE_FLOOR:
            return attribute
    return None


def _closest(vectors: np.ndarray, targets: np.ndarray, anchors: np.ndarray, floor: float, margin: float) -> list[int]:
    """For each word vector close enough to one of `targets` (and closer to it than to any anchor by `margin`),
    the index of that target."""
    if not len(vectors):
        return []
    scores = vectors @ targets.T
    best, top = scores.argmax(axis=1), scores.max(axis=1)
    background = (vectors @ anchors.T).max(axis=1)
    return [
        int(i)
        for i, score, base in zip(best, top, background, strict=True)
        if score >= floor and score - base >= margin
    ]


def holders(vectors: np.ndarray, prototypes: Prototypes) -> set[str]:
    """Which of `HOLDERS` the given word vectors name."""
    found = _closest(vectors, prototypes.holders, prototypes.anchors, HOLDER_FLOOR, HOLDER_MARGIN)
    return {HOLDERS[i] for i in found}


def adds(vectors: np.ndarray, prototypes: Prototypes) -> bool:
    return bool(_closest(vectors, prototypes.additions, prototypes.anchors, ADDITION_FLOOR, ADDITION_MARGIN))


def owner_speaks(vectors: np.ndarray, prototypes: Prototypes) -> bool:
    """Every one of the given word vectors is the owner speaking ("I", "we", in any language the encoder reads)."""
    found = _closest(vectors, prototypes.owner, prototypes.anchors, OWNER_FLOOR, OWNER_MARGIN)
    return bool(len(vectors)) and len(found) == len(vectors)


@dataclass(frozen=True)
class EncoderVerdict:
    update: bool
    reason: str


def judge_difference(
    attribute: Attribute, difference: Difference, word_vectors: dict[str, np.ndarray], prototypes: Prototypes
) -> EncoderVerdict:
    """Whether a new fact that states `attribute` as a stored one does (see `shared_attribute`) updates it: the same
    holder, and nothing added. `word_vectors` holds the vectors of the difference's words."""

    def stack(items: Sequence[str]) -> np.ndarray:
        found = [word_vectors[w] for w in items if w in word_vectors]
        return np.stack(found) if found else np.zeros((0, prototypes.holders.shape[1]), dtype=np.float32)

    old_words, new_words = stack(difference.old), stack(difference.new)
    if holders(old_words, prototypes) != holders(new_words, prototypes):
        return EncoderVerdict(False, f"{attribute.name} of another person")
    if difference.openings is not None and not owner_speaks(stack(difference.openings), prototypes):
        return EncoderVerdict(False, f"{attribute.name} of someone else")
    if adds(new_words, prototypes):
        return EncoderVerdict(False, f"another {attribute.name}, added")
    return EncoderVerdict(True, f"same {attribute.name}, new value (encoder)")
