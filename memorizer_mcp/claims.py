"""What a fact says, as structure: who it is about, which attribute, which value, and how it is said. Pure.

`parse(text)` reads a short fact in English, German, French, Spanish, Portuguese, Italian or Dutch and returns
a `ParsedFact`:

- **claims**: (subject, slot, value) triples found by the patterns of `lexicon.py` ("lives in" → residence,
  "heißt" → name, "travaille chez" → employer), or by the copula ("the user's manager is Sarah", "Home city:
  Denver", "Marcus is my manager now"). The subject is a tuple of words, `()` for the user ("the user", "I",
  "mein", "l'utilisateur", or nothing at all: "Moved to Lisbon"); relation words are folded ("husband" →
  spouse). A relation slot ("married Luis") becomes the related person's name ("spouse", name = luis).
- **content**: the fact's meaningful words in order, without function words, the words naming the user, change
  cues, negations and the old values it names; a pattern's words become one slot marker, so "lives in" and
  "moved to" compare equal.
- **negated** (the polarity: "no longer likes", "hates", "n'aime plus"), **cue** (it announces a change:
  "now", "actually", "moved", "seit"), **additive** (it adds rather than replaces: "also", "a second"), and
  **replaced** (old values it names: "instead of Vim", "sold the Corolla", ", not 1985").

The language is guessed per fact from the words it shares with each language's lexicon. `keys(parsed)` gives the
`subject|slot` strings stored in `fact_keys`, so facts about the same attribute find each other without a vector.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from memorizer_mcp.lexicon import (
    ARTICLES,
    FUNCTIONAL_SLOTS,
    HONORIFICS,
    LANGUAGES,
    NUMBER_WORDS,
    PEOPLE,
    POSSESSIVE_DETERMINERS,
    RELATION_SLOTS,
    THIRD_PERSON,
    THIRD_POSSESSIVE,
    Language,
    Pattern,
)

MAX_TOKENS = 200
"""Facts are short statements; only their beginning is parsed (the rest cannot change a decision much)."""
MAX_VALUE_TOKENS = 8

# A token: an e-mail address, a number with its separators (dates, times, phone numbers), a word (letters;
# apostrophes and hyphens split words: "l'utilisateur", "mudou-se", "don't"), or a punctuation mark that
# structures clauses. A hyphen or dash between spaces is a dash (note style: "Employer - Acme").
_TOKEN = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\d+(?:[:.,/-]\d+)*"
    r"|[^\W\d_]+"
    r"|['’](?=s\b)"
    r"|[;:,.!?()\[\]—–]"
    r"|(?<=\s)-(?=\s)"
)
_CLAUSE_END = frozenset({".", "!", "?", ";", "(", ")", "[", "]"})
_DASHES = frozenset({":", "-", "—", "–"})
_PRONOUNS_BEFORE_IS = frozenset({"it", "he", "she", "that", "what", "there", "who", "this", "here", "where"})
_ACCENTED = re.compile(r"[^\x00-\x7f]")
_LANGUAGE_ARTICLES = {
    "en": frozenset({"the", "a", "an"}),
    "de": frozenset({"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer"}),
    "fr": frozenset({"le", "la", "les", "l", "un", "une", "des"}),
    "es": frozenset({"el", "la", "los", "las", "un", "una", "unos", "unas"}),
    "pt": frozenset({"o", "os", "um", "uma"}),
    "it": frozenset({"il", "lo", "la", "i", "gli", "le", "l", "un", "uno", "una"}),
    "nl": frozenset({"de", "het", "een"}),
}
_POSSESSIVE = "'s"
_ABBREVIATIONS = frozenset(
    ["dr", "mr", "mrs", "ms", "prof", "st", "sr", "sra", "jr", "mme", "mlle", "dott", "sig", "dhr", "mevr", "hr"]
)


@dataclass(frozen=True)
class Token:
    text: str
    norm: str
    """Case-folded, accents kept."""
    fold: str
    """Case-folded, accents removed: what the lexicon is written in."""
    kind: str
    """word, number, punct or poss (an English possessive 's)."""
    capital: bool
    initial: bool
    """First word of its sentence, where a capital letter says nothing."""

    @property
    def word(self) -> bool:
        return self.kind in ("word", "number")

    @property
    def numeric(self) -> bool:
        return self.kind == "number" or self.fold in NUMBER_WORDS

    @property
    def name_like(self) -> bool:
        return self.capital and not self.initial


@dataclass(frozen=True)
class Claim:
    subject: tuple[str, ...]
    slot: str
    value: tuple[str, ...]
    """Folded content words of the value, honorifics and cues dropped."""
    value_text: str
    """The value as written (for embedding), e.g. "Dr. Weber"."""
    negated: bool = False
    cue: bool = False
    name_like: bool = False
    numeric: bool = False

    @property
    def key(self) -> str:
        return f"{' '.join(self.subject)}|{self.slot}"

    @property
    def functional(self) -> bool:
        if self.slot in FUNCTIONAL_SLOTS:
            return True
        if self.slot == "prefer" and self.subject:
            return True  # "mon plat préféré": the subject names what kind of thing is preferred
        # Anything but the user "is" one thing at a time: a favourite colour, a flight's day, a sister's name.
        # ("is a ...", slot is-a, is a kind: a sister can be a doctor and a runner; what someone is like or doing,
        # slot state, is many things at once.)
        return self.slot == "is" and bool(self.subject)


@dataclass(frozen=True)
class ParsedFact:
    language: str
    claims: tuple[Claim, ...]
    content: tuple[str, ...]
    subject: tuple[str, ...]
    """Who the fact is about: () the user (also when it cannot be told), else a person's words."""
    negated: bool = False
    cue: bool = False
    additive: bool = False
    replaced: tuple[tuple[str, ...], ...] = ()
    replaced_text: tuple[str, ...] = ()
    names: frozenset[str] = frozenset()
    """Folded words written as names (capitalised mid-sentence): "Berlin", "Spotify"."""
    subjects: frozenset[tuple[str, ...]] = frozenset()
    """Everyone its clauses speak about ("Our third child was born ..., so we have three kids"): any may match."""
    denied: bool = False
    """Its polarity comes from a negation word ("no longer", "kein", "ne ... plus"), not only from a verb."""
    user_related: bool = True
    """About the user or something of theirs ("the user's therapist"), not about someone unrelated."""
    read: bool = True
    """The lexicon knows at least one of its words: False for a fact in a language it has no words for
    ("Иван переехал в Томск"), whose claims, if any, are guesses (decisions.py leaves it to attributes.py)."""

    @property
    def content_set(self) -> frozenset[str]:
        return frozenset(self.content)


# -- tokens and language -----------------------------------------------------------------------------------------


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokenize(text: str) -> list[Token]:
    text = unicodedata.normalize("NFKC", text)
    tokens: list[Token] = []
    sentence_start = True
    for match in _TOKEN.finditer(text):
        raw = match.group()
        if raw in ("'", "’"):
            previous = tokens[-1].norm if tokens else ""
            if tokens and tokens[-1].kind == "word" and previous not in _PRONOUNS_BEFORE_IS:
                tokens.append(Token(_POSSESSIVE, _POSSESSIVE, _POSSESSIVE, "poss", False, False))
            continue
        if raw == "." and tokens and tokens[-1].fold in _ABBREVIATIONS:
            continue  # "Dr. Weber": the period ends the title, not the sentence
        if raw in _CLAUSE_END or raw in _DASHES or raw == ",":
            tokens.append(Token(raw, raw, raw, "punct", False, False))
            sentence_start = sentence_start or raw in (".", "!", "?", "(")
            continue
        kind = "number" if raw[0].isdigit() else "word"
        norm = raw.casefold()
        # Any capital letter marks a name ("iPhone", "eBay"); one at the start of a sentence says nothing.
        capital = any(ch.isupper() for ch in raw)
        tokens.append(
            Token(raw, norm, fold(raw), kind, capital, sentence_start and not any(ch.isupper() for ch in raw[1:]))
        )
        sentence_start = False
        if len(tokens) >= MAX_TOKENS:
            break
    return _drop_possessive_s(tokens)


def _drop_possessive_s(tokens: list[Token]) -> list[Token]:
    """The "s" after a possessive apostrophe ("user's" → user, 's) is part of the marker, not a word."""
    out: list[Token] = []
    skip = False
    for index, token in enumerate(tokens):
        if skip:
            skip = False
            if token.norm == "s":
                continue
        out.append(token)
        if token.kind == "poss" and index + 1 < len(tokens):
            skip = True
    return out


def _in(token: Token, words: frozenset[str]) -> bool:
    return token.fold in words or token.norm in words


def _phrase_at(tokens: Sequence[Token], start: int, phrase: Sequence[str]) -> bool:
    return _phrase_end(tokens, start, phrase) is not None


def _phrase_end(
    tokens: Sequence[Token], start: int, phrase: Sequence[str], skip: frozenset[str] = frozenset()
) -> int | None:
    """Where `phrase` ends if it starts at `start`; words in `skip` may sit between its words ("arbeitet jetzt
    bei", "travaille maintenant chez"), a skipped word with one more after it ("werkt sinds juni bij")."""
    position = start
    for i, word in enumerate(phrase):
        skipped = 0
        while i > 0 and position < len(tokens) and not _word_matches(tokens[position], word):
            if _in(tokens[position], skip):
                skipped = 1
            elif skipped == 1 and tokens[position].word:
                skipped = 2  # the time after "sinds", "seit", "depuis": one word
            else:
                break
            position += 1
        if position >= len(tokens) or not _word_matches(tokens[position], word):
            return None
        position += 1
    return position


def _word_matches(token: Token, word: str) -> bool:
    if not token.word:
        return False
    return token.norm == word if _ACCENTED.search(word) else token.fold == word


_USER_PRONOUNS = frozenset(["i", "we", "ich", "wir", "je", "nous", "yo", "nosotros", "eu", "io", "noi", "ik", "wij"])


@dataclass(frozen=True)
class _Index:
    """A language's patterns by first word, so matching a token tries only the patterns that can start there."""

    vocabulary: frozenset[str]
    skip: frozenset[str]
    """Words that may sit inside a pattern without breaking it: the language's change cues."""
    by_first: dict[str, tuple[Pattern, ...]]
    star_first: tuple[Pattern, ...]


def _build_index(language: Language) -> _Index:
    by_first: dict[str, list[Pattern]] = {}
    star_first: list[Pattern] = []
    for pattern in language.patterns:
        if pattern.words[0] == "*":
            star_first.append(pattern)
        else:
            by_first.setdefault(pattern.words[0], []).append(pattern)
    vocabulary = (
        language.function_words
        | language.user_words
        | language.negations
        | language.cues
        | language.copulas
        | {
            w
            for phrase in (*language.replace_forward, *language.replace_backward, *language.cue_phrases)
            for w in phrase
        }
    )
    skip = language.cues | (language.user_words - POSSESSIVE_DETERMINERS)
    return _Index(vocabulary, skip, {word: tuple(ps) for word, ps in by_first.items()}, tuple(star_first))


_INDEXES: dict[str, _Index] = {language.code: _build_index(language) for language in LANGUAGES}


def _candidates(token: Token, index: _Index) -> tuple[Pattern, ...]:
    if not token.word:
        return ()
    first = index.by_first.get(token.fold, ())
    if token.norm != token.fold:
        first = first + index.by_first.get(token.norm, ())
    return first + index.star_first if index.star_first and token.kind == "number" else first


_LETTERS = {"de": set("äöüß"), "pt": set("ãõ"), "es": set("ñ"), "it": set("òù"), "fr": set("œêëîï")}
"""Letters that, on their own, point at one language (a tie-breaker between short facts)."""


def _lexicon_score(tokens: Sequence[Token], language: Language) -> int:
    """How well the tokens fit a language's lexicon: its words, its own letters, and its patterns (counted
    double)."""
    index = _INDEXES[language.code]
    score = sum(1 for token in tokens if token.word and _in(token, index.vocabulary))
    score += sum(1 for token in tokens if token.word and set(token.norm) & _LETTERS.get(language.code, set()))
    score += 2 * sum(
        1
        for position, token in enumerate(tokens)
        for pattern in _candidates(token, index)
        if _pattern_at(tokens, position, pattern, index.skip)
    )
    return score


def _best_language(tokens: Sequence[Token]) -> tuple[Language, int]:
    best, best_score = LANGUAGES[0], -1
    for language in LANGUAGES:
        score = _lexicon_score(tokens, language)
        if score > best_score:
            best, best_score = language, score
    return best, best_score


def guess_language(tokens: Sequence[Token]) -> Language:
    """The language whose lexicon the fact's words fit best (pattern matches count double); English on a tie."""
    return _best_language(tokens)[0]


# -- matching ----------------------------------------------------------------------------------------------------


@dataclass
class _Match:
    pattern: Pattern
    start: int
    end: int
    """Exclusive end of the pattern's words (after the value for a `*` pattern)."""
    value: tuple[int, int] | None = None
    """Where the value sits inside a `*` pattern."""

    def words(self) -> range | list[int]:
        """Positions of the pattern's own words (a `*` value excluded)."""
        if self.value is None:
            return range(self.start, self.end)
        return [i for i in range(self.start, self.end) if not self.value[0] <= i < self.value[1]]


def _pattern_at(
    tokens: Sequence[Token], start: int, pattern: Pattern, skip: frozenset[str] = frozenset()
) -> _Match | None:
    words = pattern.words
    if "*" not in words:
        end = _phrase_end(tokens, start, words, skip)
        return None if end is None else _Match(pattern, start, end)
    star = words.index("*")
    before, after = words[:star], words[star + 1 :]
    value_start = _phrase_end(tokens, start, before, skip) if before else start
    if value_start is None:
        return None
    # A leading `*` ("* years old") takes one number; an inner one ("nach * gezogen") a few words.
    longest = 1 if star == 0 else MAX_VALUE_TOKENS
    for value_end in range(value_start + 1, min(value_start + longest, len(tokens)) + 1):
        if not tokens[value_end - 1].word or (star == 0 and not tokens[value_start].numeric):
            return None
        if _phrase_at(tokens, value_end, after):
            return _Match(pattern, start, value_end + len(after), (value_start, value_end))
    return None


def _find_patterns(tokens: Sequence[Token], language: Language) -> list[_Match]:
    """Non-overlapping pattern matches, earliest first, the longest at each position."""
    index = _INDEXES[language.code]
    found: list[_Match] = []
    position = 0
    while position < len(tokens):
        best: _Match | None = None
        for pattern in _candidates(tokens[position], index):
            match = _pattern_at(tokens, position, pattern, index.skip)
            if match and (best is None or match.end > best.end):
                best = match
        if best is None:
            position += 1
            continue
        found.append(best)
        position = best.end
    return found


def _find_phrases(tokens: Sequence[Token], phrases: Iterable[Sequence[str]]) -> list[tuple[int, int]]:
    spans = []
    for start in range(len(tokens)):
        for phrase in phrases:
            if _phrase_at(tokens, start, phrase):
                spans.append((start, start + len(phrase)))
    return spans


# -- parsing -----------------------------------------------------------------------------------------------------

_MODIFIERS = frozenset({"home", "first", "current", "main", "full", "given"})
_PRONOUN = "<pronoun>"
OWNER = "'s"
"""Marks a subject word as the owner of what follows: ("priya's", "brother") is Priya's brother, not Priya."""
_GENITIVE = frozenset(
    ["of", "von", "de", "del", "di", "da", "do", "dos", "das", "du", "van", "della", "dello", "degli", "delle", "dei"]
)
"""Stands for "whoever the fact named before" until the fact is read to its end."""
"""Words before an attribute noun that only qualify it: "home city", "first name"."""
_INDEFINITE = frozenset(
    ["a", "an", "ein", "eine", "einen", "einem", "einer", "un", "une", "uno", "una", "um", "uma", "een"]
)


@dataclass
class _Clause:
    tokens: list[Token]
    language: Language
    user_owned: bool = False
    used: set[int] = field(default_factory=set)
    """Token positions already read as a pattern, a copula, a replaced value or a negation that names one."""
    set_aside: list[list[Token]] = field(default_factory=list)
    cue_phrase: bool = False
    cue_positions: set[int] = field(default_factory=set)
    """Where its cue phrases stand: inside a subject they end nothing ("her favourite show these days is ...")."""
    opening_names: set[str] = field(default_factory=set)
    """Names found opening the clause ("Priya grows tomatoes"), capitalised only because they come first."""
    """The clause holds a change cue of several words ("these days")."""
    """Values the clause sets aside besides those it replaces ("over email")."""


def _clauses(tokens: list[Token], language: Language) -> list[_Clause]:
    clauses: list[_Clause] = []
    current: list[Token] = []
    for token in tokens:
        if token.kind == "punct" and token.text in _CLAUSE_END:
            if current:
                clauses.append(_Clause(current, language))
            current = []
            continue
        current.append(token)
    if current:
        clauses.append(_Clause(current, language))
    out = []
    for clause in clauses:
        # "of the user", "des Nutzers": what they follow is the user's; the phrase itself says nothing more.
        spans = _find_phrases(clause.tokens, language.user_owner)
        if spans:
            drop = {i for start, end in spans for i in range(start, end)}
            clause.tokens = [t for i, t in enumerate(clause.tokens) if i not in drop]
            clause.user_owned = True
        out.extend(_split_leading_note(clause))
    for clause in out:
        for start, end in _find_phrases(clause.tokens, language.cue_phrases):
            clause.used.update(range(start, end))
            clause.cue_positions.update(range(start, end))
            clause.cue_phrase = True
    return out


def _split_leading_note(clause: _Clause) -> list[_Clause]:
    """ "Correction: the user's sister ..." — a colon after nothing but cue words only introduces the clause."""
    language = clause.language
    for index, token in enumerate(clause.tokens):
        if token.kind == "punct" and token.text in _DASHES:
            head = [t for t in clause.tokens[:index] if t.word]
            if head and all(_cue(t, language) or _skippable(t, language) for t in head):
                rest = _Clause(clause.tokens[index + 1 :], language, clause.user_owned)
                return [_Clause(clause.tokens[:index], language), rest] if rest.tokens else [clause]
            break
    return [clause]


def _skippable(token: Token, language: Language) -> bool:
    return _in(token, language.function_words) or _in(token, language.user_words) or token.kind == "poss"


def _is_user_word(token: Token, language: Language) -> bool:
    return _in(token, language.user_words)


def _cue(token: Token, language: Language) -> bool:
    # A capital letter mid-sentence makes a cue word part of a name: "New York", "Neue Zürcher Zeitung".
    return token.word and _in(token, language.cues) and not token.name_like


def _content(token: Token, language: Language) -> bool:
    """A word that carries meaning: not a function word, not the user, not a cue, negation or addition."""
    if not token.word:
        return False
    if token.kind == "number":
        return True
    return not (
        _in(token, language.function_words)
        or _is_user_word(token, language)
        or _cue(token, language)
        or _in(token, language.negations)
        or _in(token, language.additive)
    )


def _region_start(clause: _Clause, end: int) -> int:
    """Where the words before position `end` begin: after the last punctuation mark, coordinating word or token
    already read (a replaced value: "sold the Corolla and bought a Tesla")."""
    tokens = clause.tokens
    start = end
    while start > 0:
        before = tokens[start - 1]
        read = start - 1 in clause.used and start - 1 not in clause.cue_positions
        if before.kind == "punct" or read or _in(before, clause.language.conjunctions):
            break
        start -= 1
    return start


def _subject(clause: _Clause, start: int, end: int, *, nearest: bool = False) -> tuple[str, ...]:
    """The subject named by tokens[start:end] (the words before a pattern or a copula); () is the user.

    `nearest`: the noun right before the pattern, whoever acts ("I play in a band called ..." is about the band).
    """
    language = clause.language
    region = [
        t for i, t in enumerate(clause.tokens[start:end], start) if t.kind != "punct" and i not in clause.cue_positions
    ]
    words_here = [t for t in region if t.word]
    if not words_here and start > 0 and _in(clause.tokens[start - 1], language.conjunctions) and not nearest:
        # "Jonas hat umgeschult und arbeitet jetzt als ...": the subject of the first half carries over.
        return _named_first(clause)
    if words_here and not nearest:
        if words_here[0].fold in THIRD_PERSON:
            return (_PRONOUN,)  # "she is settling in Dundee": whoever the fact named first
        if _in(words_here[0], language.connectors) and not any(
            _is_user_word(t, language) or t.kind == "poss" for t in region
        ):
            # "Da settembre vivo a ...", "Seit dem Frühjahr lebe ich ...": a time, not a subject; a name after it
            # ("Since her surgery Priya avoids ...") or the clause's opening name ("Camille a quitté Orange pour ...").
            names = [t for t in words_here if t.name_like and _content(t, language)]
            return (names[-1].fold,) if names else _named_first(clause)
    owner: list[Token] = []
    pronoun_owner = any(t.fold in THIRD_POSSESSIVE for t in region)
    possessive = max((i for i, t in enumerate(region) if t.kind == "poss"), default=-1)
    if possessive >= 0:
        # "Ana's husband" is about Ana's husband; "my partner's name" about the partner; "the user's" about no one else.
        owner = [t for t in region[:possessive] if _content(t, language)]
        region = region[possessive + 1 :]
    genitive = next(
        (
            i
            for i, t in enumerate(region)
            if i > 0 and t.fold in _GENITIVE and any(_content(x, language) for x in region[i + 1 :])
        ),
        -1,
    )
    if genitive > 0 and not nearest:
        # "El hermano de Lucía", "die Schwester von Jonas": the owner follows.
        owner = [*owner, *(t for t in region[genitive + 1 :] if _content(t, language))]
        region = region[:genitive]
    user = max((i for i, t in enumerate(region) if _is_user_word(t, language)), default=-1)
    if user >= 0 and region[user].fold not in POSSESSIVE_DETERMINERS and possessive < 0 and not nearest:
        # "I can't get into ...", "Wir sind letzten Monat nach ... gezogen": after the user come verbs, not a subject.
        return ()
    cut = max((i for i, t in enumerate(region) if _is_user_word(t, language) or t.fold in ARTICLES), default=-1)
    words = [t for t in region[cut + 1 :] if _content(t, language)]
    if not words and cut >= 0:
        words = [t for t in region[:cut] if _content(t, language)]
    names = tuple(language.relations.get(t.fold, t.fold) for t in words)
    if not names:
        # "my nephew's" + "name is": nothing after the possessive, so the owner is the subject ("her son's name":
        # the son of whoever the fact named first).
        named = tuple(language.relations.get(t.fold, t.fold) for t in owner if _content(t, language))
        return (_PRONOUN + OWNER, *named) if pronoun_owner and named else named
    owners = tuple(t.fold + OWNER for t in owner if _content(t, language))
    if pronoun_owner and not owners:
        owners = (_PRONOUN + OWNER,)  # "her son": the son of whoever the fact named first
    return (*owners, *names)


def _value(clause: _Clause, start: int, stop: int | None = None) -> tuple[list[Token], int]:
    """The value's tokens from `start`: leading function words skipped, then up to a connector or punctuation
    (or exactly up to `stop`). Returns them and the position after the value."""
    language = clause.language
    tokens = clause.tokens
    end = len(tokens) if stop is None else stop
    position = start
    picked: list[Token] = []
    while position < end and len(picked) < MAX_VALUE_TOKENS:
        token = tokens[position]
        if token.kind == "punct":
            if picked or token.text != ",":
                break
        elif position in clause.used and stop is None:
            if picked:
                break
        elif picked and stop is None and _in(token, language.connectors) and not token.name_like:
            break
        elif picked or _content(token, language) or token.name_like:
            picked.append(token)
        position += 1
    return picked, position


def _claim(
    subject: tuple[str, ...], slot: str, picked: Sequence[Token], language: Language, *, cue: bool = False
) -> Claim:
    words = [t for t in picked if _content(t, language) and t.fold not in HONORIFICS]
    if slot == "age":
        words = [t for t in words if t.numeric][:1]
    if slot in RELATION_SLOTS:
        # "Ana married Luis": Ana's spouse is Luis.
        subject, slot = (*(w if w.endswith(OWNER) else w + OWNER for w in subject), slot), "is"
    elif slot == "name" and subject:
        # Someone else's name is what they are: "the sister is Anna" = "the sister is called Anna".
        slot = "is"
    named = any(t.kind == "word" for t in words) and all(t.name_like or t.kind == "number" for t in words)
    numeric = bool(words) and all(t.numeric for t in words)
    value_text = " ".join(t.text for t in picked)
    return Claim(subject, slot, tuple(_word(t) for t in words), value_text, cue=cue, name_like=named, numeric=numeric)


def _pattern_claims(clause: _Clause, matches: list[_Match]) -> list[Claim]:
    language = clause.language
    claims: list[Claim] = []
    for match in matches:
        clause.used.update(match.words())
        pattern = match.pattern
        region = _region_start(clause, match.start)
        context: list[Token] = []
        if pattern.adverb or _user_follows(clause, match.end):
            # "Der Nutzer trinkt am liebsten Kaffee": the verb before the adverb belongs to what is preferred.
            # "Sushi mag ich nicht mehr": the user comes after the verb; what came first is the value.
            subject = () if _user_follows(clause, match.end) else _named_first(clause)
            context = [
                t for t in clause.tokens[region : match.start] if _content(t, language) and t.fold not in subject
            ]
        elif any(_is_user_word(t, language) for t in clause.tokens[match.start : match.end]):
            subject = ()  # "lebe ich in", "werk ik bij": the user stands inside the pattern
        else:
            subject = _subject(clause, region, match.start, nearest=pattern.slot == "name")
        if pattern.fixed is not None:
            claim = _claim(subject, pattern.slot, [], language, cue=pattern.cue)
            claims.append(Claim(claim.subject, claim.slot, pattern.fixed, pattern.fixed[0], cue=pattern.cue))
            continue
        if match.value is not None:
            picked, _ = _value(clause, *match.value)
            after = match.end
        else:
            picked, after = _value(clause, match.end)
        claim = _claim(subject, pattern.slot, [*context, *picked], language, cue=pattern.cue)
        claims.append(claim)
        claims.extend(_secondary(clause, claim, after))
        if pattern.slot == "prefer":
            _dispreferred(clause, after)
    return claims


def _dispreferred(clause: _Clause, position: int) -> None:
    """ "prefers phone calls over email": email is what is not preferred — a value the fact sets aside."""
    for phrase in clause.language.comparatives:
        end = _phrase_end(clause.tokens, position, phrase)
        if end is not None:
            picked, stop = _value(clause, end)
            if picked:
                clause.used.update(range(position, stop))
                clause.set_aside.append(picked)
            return


def _user_follows(clause: _Clause, position: int) -> bool:
    """The word right after a pattern is the user as subject ("..., mag ich", "heb ik"): the order is inverted."""
    tokens = clause.tokens
    return (
        position < len(tokens)
        and _is_user_word(tokens[position], clause.language)
        and tokens[position].fold not in POSSESSIVE_DETERMINERS
    )


def _secondary(clause: _Clause, claim: Claim, position: int) -> list[Claim]:
    """A job inside an employer claim and the reverse: "joined Stripe as a staff engineer", "a nurse at Mercy"."""
    language = clause.language
    tokens = clause.tokens
    if position >= len(tokens) or not tokens[position].word:
        return []
    word = tokens[position]
    if claim.slot == "employer" and _in(word, language.title_prepositions):
        picked, _ = _value(clause, position + 1)
        return [_claim(claim.subject, "title", picked, language, cue=claim.cue)] if picked else []
    if claim.slot in ("title", "is", "is-a") and _in(word, language.employer_prepositions):
        picked, _ = _value(clause, position + 1)
        if picked and picked[0].name_like:
            return [_claim(claim.subject, "employer", picked, language, cue=claim.cue)]
    return []


def _copula_claim(clause: _Clause) -> list[Claim]:
    """`X is Y` (also "X: Y", "X - Y"), read when no pattern matched the clause."""
    language = clause.language
    tokens = clause.tokens
    for index, token in enumerate(tokens):
        is_copula = (token.word and _in(token, language.copulas)) or (token.kind == "punct" and token.text in _DASHES)
        if not is_copula or index == 0:
            continue
        start = _region_start(clause, index)
        left = tokens[start:index]
        carried = start > 0 and token.word and _in(tokens[start - 1], language.conjunctions)
        if not any(t.word for t in left) and not carried:
            # "Priya graduated and is now a trainee solicitor": after "and" the subject of the first half carries
            # over (_subject); with nothing before it at all, the copula has no subject.
            continue
        if not token.word and (
            sum(1 for t in left if t.word) > 4
            or any(t.fold in THIRD_PERSON or _is_user_word(t, language) for t in left if t.word)
        ):
            continue  # "Upgraded to a Pixel 8 - goodbye iPhone", "Priya told me: ...": a sentence, not "Employer - Acme"
        clause.used.add(index)
        if not any(_content(t, language) for t in left):
            inverted = _inverted_copula(clause, index + 1)
            if inverted is not None:
                return [inverted]
        right, after = _value(clause, index + 1)
        indefinite = any(t.fold in _INDEFINITE for t in tokens[index + 1 : index + 3])
        if _owned_by_user(tokens[index + 1 :], language) and not _owned_by_user(left, language):
            # "Marcus is my manager now", "Ramen ist mein Lieblingsessen": the user's attribute is on the right.
            subject = _subject(clause, index + 1, after)
            return [_attribute_claim(subject, [t for t in left if t.word], language, indefinite=False)]
        subject = _subject(clause, start, index)
        person = _someone(subject, tokens[:index], language)
        claim = _attribute_claim(subject, right, language, indefinite=indefinite, person=person)
        return [claim, *_secondary(clause, claim, after)]
    return []


def _inverted_copula(clause: _Clause, start: int) -> Claim | None:
    """ "Mittlerweile ist Ramen mein Lieblingsessen" (verb second): the value, then the user's attribute."""
    language = clause.language
    tokens = clause.tokens
    mine = next(
        (i for i in range(start, len(tokens)) if tokens[i].word and tokens[i].fold in POSSESSIVE_DETERMINERS), None
    )
    if mine is None or mine == start:
        return None
    value = [t for t in tokens[start:mine] if t.word]
    subject = _subject(clause, mine, _value(clause, mine)[1])
    return _attribute_claim(subject, value, language, indefinite=False)


def _owned_by_user(tokens: Sequence[Token], language: Language) -> bool:
    words = [t for t in tokens if t.word or t.kind == "poss"][:3]
    return bool(words) and (_is_user_word(words[0], language) or any(t.kind == "poss" for t in words))


def _someone(subject: tuple[str, ...], region: Sequence[Token], language: Language) -> bool:
    """Whether `subject` (read from the tokens `region`) is a person rather than an attribute of one: a noun for a
    person ("my older sister", "le mari de Camille") or a name. A capital marks a name, except in German, which
    capitalises every noun: there a name is a capitalised word with no article before it ("Jonas ist ...")."""
    own = [w for w in subject if not w.endswith(OWNER)]
    if not own:
        return False
    if own == [_PRONOUN] or any(w in PEOPLE for w in own):
        return True  # "she", "he" (_THIRD_PERSON) stand for someone
    words = [t for t in region if t.word]
    for word in own:
        at = next((i for i, t in enumerate(words) if t.fold == word), None)
        if at is None or not words[at].capital:
            return False
        if language.code == "de" and at > 0 and words[at - 1].fold in _LANGUAGE_ARTICLES["de"]:
            return False
    return True


def _resolved(claim: Claim, subject: tuple[str, ...]) -> Claim:
    return replace(claim, subject=subject, slot="is" if claim.slot == "state" and not subject else claim.slot)


def _attribute_claim(
    subject: tuple[str, ...],
    picked: Sequence[Token],
    language: Language,
    *,
    indefinite: bool,
    person: bool = False,
) -> Claim:
    """`subject is value`: an attribute noun ending the subject names the slot ("employer", "name", "home").
    `person`: the subject is someone (see `_someone`), whom the value describes."""
    if subject:
        slot = language.attributes.get(subject[-1]) or LANGUAGES[0].attributes.get(subject[-1])
        if slot is not None:
            owner = tuple(word.removesuffix(OWNER) for word in subject[:-1] if word not in _MODIFIERS)
            return _claim(owner, slot, picked, language)
        if indefinite:
            # "the sister is a doctor" says what kind, not which: she can also be a runner.
            return _claim(subject, "is-a", picked, language)
    claim = _claim(subject, "is", picked, language)
    if not subject and len(claim.value) == 1 and claim.numeric:
        # "I'm 29", "Der Nutzer ist 41": a bare number the user is, is an age.
        return _claim((), "age", picked, language)
    if person and not (claim.name_like or claim.numeric):
        # Someone is many things at once: "Priya is learning the ukulele" and "Priya is scared of thunderstorms"
        # (states, activities, feelings, traits) are not two values of one attribute. Only a named person or a
        # number is one ("my manager is Marcus", "Priya is 34"), like any attribute's value ("her birthday is ...").
        return replace(claim, slot="state")
    return claim


def _replaced(clause: _Clause) -> list[list[Token]]:
    """Old values the clause names: "instead of X", "sold the X", "switched from X to Y", ", not X"."""
    language = clause.language
    tokens = clause.tokens
    spans: list[list[Token]] = []
    for start, end in sorted(_find_phrases(tokens, language.replace_forward), key=lambda span: span[0] - span[1]):
        if start in clause.used:
            continue  # "traded in" already read, not "traded" again
        picked, stop = _value(clause, end)
        if picked:
            clause.used.update(range(start, stop))
            spans.append(picked)
    for start, end in _find_phrases(tokens, language.replace_backward):
        region = _region_start(clause, start)
        before = [t for t in tokens[region:start] if _content(t, language)]
        if before:
            clause.used.update(range(region, end))
            spans.append(before)
    for index, token in enumerate(tokens):
        # ", not 1985" / ", nicht Rot": a negation right after a comma names the value it corrects.
        if index > 0 and tokens[index - 1].text == "," and _in(token, language.negations):
            picked, stop = _value(clause, index + 1)
            if picked:
                clause.used.update(range(index, stop))
                spans.append(picked)
    spans.extend(_from_to(clause))
    return spans


_FROM = {"en": "from", "de": "von", "fr": "de", "es": "de", "pt": "de", "it": "da", "nl": "van"}
_TO = {
    "en": frozenset({"to"}),
    "de": frozenset({"zu", "nach", "auf"}),
    "fr": frozenset({"a", "au", "pour"}),
    "es": frozenset({"a", "al"}),
    "pt": frozenset({"para"}),
    "it": frozenset({"a", "al"}),
    "nl": frozenset({"naar"}),
}


def _from_to(clause: _Clause) -> list[list[Token]]:
    """ "switched from Vim to VS Code": with a change announced in the clause, what follows "from" is the old value."""
    language = clause.language
    tokens = clause.tokens
    if not any(_cue(t, language) for t in tokens) and not any(m.pattern.cue for m in _find_patterns(tokens, language)):
        return []
    spans = []
    for index, token in enumerate(tokens):
        if token.fold != _FROM[language.code]:
            continue
        stop = next((j for j in range(index + 1, len(tokens)) if tokens[j].fold in _TO[language.code]), None)
        if stop is None or stop == index + 1:
            continue
        picked = [t for t in tokens[index + 1 : stop] if _content(t, language)]
        if picked:
            clause.used.update(range(index, stop + 1))
            spans.append(picked)
    return spans


def _fact_subject(clause: _Clause, claims: Sequence[Claim]) -> tuple[str, ...]:
    if claims:
        return claims[0].subject
    return _named_first(clause)


def _named_first(clause: _Clause) -> tuple[str, ...]:
    """The clause's subject when it opens with a name: "Tom switched to Commerzbank", "Camille a peur du noir". A
    capitalised first word followed by an article or a preposition is a verb ("Sold the Civic", "Upgraded to a
    Pixel"): no subject, the user."""
    language = clause.language
    words = [t for t in clause.tokens if t.word]
    if words and words[0].fold in ARTICLES:
        if language.code not in ("pt", "it"):
            return ()  # "Den Golf habe ich verkauft": an article makes it a thing, not a person
        words = words[1:]  # "O Rui faz caminhadas", "la Giulia"
    if len(words) < 2 or not words[0].capital or not _content(words[0], language):
        return ()
    starts_replacement = any(_phrase_at(clause.tokens, 0, p) for p in language.replace_forward)
    second = words[1]
    if starts_replacement or second.fold in _LANGUAGE_ARTICLES[language.code] or _in(second, language.connectors):
        return ()
    clause.opening_names.add(words[0].fold)
    return (words[0].fold,)


@lru_cache(maxsize=8192)
def parse(text: str) -> ParsedFact:
    tokens = tokenize(text)
    language, fit = _best_language(tokens)
    claims: list[Claim] = []
    content: list[str] = []
    replaced: list[tuple[str, ...]] = []
    replaced_text: list[str] = []
    negations = denials = 0
    cue = additive = False
    subject: tuple[str, ...] | None = None
    antecedent: tuple[str, ...] | None = None
    stated = False
    user_related = False
    clause_subjects: list[tuple[str, ...] | None] = []
    clauses = _clauses(tokens, language)
    for clause in clauses:
        for span in _replaced(clause):
            words = tuple(_word(t) for t in span if _content(t, language))
            if words:
                replaced.append(words)
                replaced_text.append(" ".join(t.text for t in span))
        # A pattern overlapping a replaced value is not read; change cues inside it ("woon sinds kort in") do not count.
        matches = [m for m in _find_patterns(clause.tokens, language) if not clause.used & {m.start, m.end - 1}]
        clause_claims = _pattern_claims(clause, matches) if matches else _copula_claim(clause)
        claims.extend(clause_claims)
        for span in clause.set_aside:
            words = tuple(_word(t) for t in span if _content(t, language))
            if words:
                replaced.append(words)
                replaced_text.append(" ".join(t.text for t in span))
        user_related = (
            user_related
            or clause.user_owned
            or any(_is_user_word(t, language) or t.kind == "poss" for t in clause.tokens)
        )
        clause_subject = _fact_subject(clause, clause_claims) if any(t.word for t in clause.tokens) else None
        clause_subjects.append(clause_subject)
        if clause_subject and clause_subject != (_PRONOUN,) and antecedent is None:
            antecedent = clause_subject
        if clause_claims and not stated:
            subject, stated = clause_subject, True  # the first clause that states something says whom it is about
        elif subject is None:
            subject = clause_subject
        cue = cue or clause.cue_phrase
        markers = {m.start: m.pattern for m in matches}
        for index, token in enumerate(clause.tokens):
            marker = markers.get(index)
            if marker is not None:
                content.append(f"<{marker.slot}>")
                negations += marker.polarity < 0
                cue = cue or marker.cue
            if _cue(token, language):
                cue = True
            if index in clause.used:
                continue
            if token.word and _in(token, language.negations):
                negations += 1
                denials += 1
            elif _cue(token, language):
                pass
            elif token.word and _in(token, language.additive):
                additive = True
            elif _content(token, language):
                content.append(_word(token))
    # "Priya left Glasgow; she is settling in Dundee": a pronoun stands for the first one named (with no one named,
    # for the user, who "is" many things in slot is).
    claims = [_resolved(c, _resolve(c.subject, antecedent)) for c in claims]
    if subject is not None:
        subject = _resolve(subject, antecedent)
    return ParsedFact(
        language=language.code,
        claims=tuple(claims),
        content=tuple(content),
        subject=subject or (),
        negated=negations % 2 == 1,
        denied=denials % 2 == 1,
        subjects=frozenset(
            _resolve(x, antecedent) for x in (*clause_subjects, *(c.subject for c in claims)) if x is not None
        )
        # "..., so we have three kids now": the user speaks of themselves somewhere in it.
        | ({()} if any(t.fold in _USER_PRONOUNS for t in tokens if t.word) else set()),
        cue=cue,
        additive=additive,
        replaced=tuple(replaced),
        replaced_text=tuple(replaced_text),
        names=frozenset(t.fold for t in tokens if t.word and t.name_like).union(*(c.opening_names for c in clauses)),
        user_related=user_related or not subject,
        read=fit > 0,
    )


def _resolve(subject: tuple[str, ...], antecedent: tuple[str, ...] | None) -> tuple[str, ...]:
    """Pronouns replaced by the first one the fact named ("she" → Priya, "her son" → Priya's son); the user when
    there was none."""
    if subject == (_PRONOUN,):
        return antecedent or ()
    if subject and subject[0] == _PRONOUN + OWNER:
        owner = tuple(w + OWNER for w in antecedent or () if not w.endswith(OWNER))
        return (*owner, *subject[1:])
    return subject


def keys(parsed: ParsedFact) -> list[str]:
    """The `subject|slot` keys under which the fact is filed (distinct, in order)."""
    return list(dict.fromkeys(claim.key for claim in parsed.claims))


def _owners_and_heads(subject: tuple[str, ...]) -> tuple[set[str], set[str]]:
    owners = {stem(w.removesuffix(OWNER)) for w in subject if w.endswith(OWNER)}
    return owners, {stem(w) for w in subject if not w.endswith(OWNER)}


def heads(subject: tuple[str, ...]) -> set[str]:
    """The words naming the subject itself, without its owner ("ana's husband" → husband)."""
    return _owners_and_heads(subject)[1]


def subjects_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """The same person or thing: both the user; or the same owner and one's name words within the other's ("my
    sister Ana" and "Ana"). Someone's relative is not that someone: "Priya's brother" is not "Priya"."""
    if not a or not b:
        return a == b
    owners_a, heads_a = _owners_and_heads(a)
    owners_b, heads_b = _owners_and_heads(b)
    return owners_a == owners_b and (heads_a <= heads_b or heads_b <= heads_a)


# -- questions ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryTerms:
    """What a search text asks about, read with the same lexicon as facts."""

    words: tuple[str, ...]
    """Its meaningful words as written (function words, the user's name for themselves and cues dropped)."""
    slots: frozenset[str]
    """Slots its words point at: "live" → residence, "job" → title, "called" → name."""
    subjects: frozenset[str]
    """Folded words that may name a fact's subject: "manager" → boss, "ana"."""
    about_user: bool


def _slot_words(language: Language) -> dict[str, frozenset[str]]:
    words: dict[str, set[str]] = {}
    skip = language.copulas | language.function_words | language.user_words
    for pattern in language.patterns:
        for word in pattern.words:
            if word != "*" and word not in skip and word not in language.connectors:
                words.setdefault(word, set()).add(pattern.slot)
    for noun, slot in language.attributes.items():
        words.setdefault(noun, set()).add(slot)
    return {word: frozenset(slots) for word, slots in words.items()}


_SLOT_WORDS: dict[str, dict[str, frozenset[str]]] = {language.code: _slot_words(language) for language in LANGUAGES}


@lru_cache(maxsize=1024)
def query_terms(text: str) -> QueryTerms:
    tokens = tokenize(text)
    language = guess_language(tokens)
    slot_words = _SLOT_WORDS[language.code]
    slots: set[str] = set()
    subjects: set[str] = set()
    words: list[str] = []
    about_user = False
    for token in tokens:
        if not token.word:
            continue
        if _is_user_word(token, language):
            about_user = True
        found = slot_words.get(token.fold) or slot_words.get(token.norm)
        if found:
            slots.update(found)
        if _content(token, language):
            words.append(token.text)
            relation = language.relations.get(token.fold, token.fold)
            if relation in RELATION_SLOTS:
                slots.add("is")
            if not found or relation in RELATION_SLOTS or token.fold in language.attributes:
                subjects.add(relation)
    for slot in list(slots):
        if slot in RELATION_SLOTS:
            slots.discard(slot)
            subjects.add(slot)
            slots.add("is")
    return QueryTerms(tuple(words), frozenset(slots), frozenset(subjects), about_user or not subjects)


def _word(token: Token) -> str:
    """A token as facts are compared: folded, a plural "s" dropped unless it is a name ("Lucas" is not "Luca")."""
    return token.fold if token.capital else stem(token.fold)


def stem(word: str) -> str:
    """A plural's "s" does not change who is meant: "cats" asks about "cat"."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def key_match(key: str, terms: QueryTerms) -> float:
    """How well a fact filed under `key` ("sister|is", "|residence") answers the query: 1 when its subject and
    slot are what the query asks about, 0.5 for its subject alone, 0 otherwise."""
    subject_text, _, slot = key.partition("|")
    subject = subject_text.split()
    if subject:
        if not {stem(w.removesuffix(OWNER)) for w in subject} <= {stem(w) for w in terms.subjects}:
            return 0.0
        return 1.0 if slot in terms.slots or slot in ("is", "is-a") else 0.5
    if not terms.about_user:
        return 0.0
    if slot in terms.slots:
        return 1.0
    # What the user "is" may be their job: "I'm a teacher" answers "What is the user's job?" in part.
    return 0.5 if slot == "is" and "title" in terms.slots else 0.0
