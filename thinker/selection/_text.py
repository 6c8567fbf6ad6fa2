"""Words, stems and concepts: the text side of lexical tool matching. Pure, no I/O.

A message and a tool are compared as bags of *terms*. A term is a word stem ("reminders" → "remind") or a
concept tag ("#remind") that a small hand-written lexicon attaches to common synonyms, so that "alarm" in a
message meets "reminder" in a tool name without either text containing the other's word. The lexicon is
general English for a personal assistant's domains (mail, calendar, reminders, files, search, code, ...) and
the verbs people use for the actions tools perform (create, delete, update, list, ...); it names no tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[^\W_]+")

STOP_WORDS = frozenset(
    str.split(
        """
    a an the and or but if then else of to in on at by for with from into onto about as is are was were be been
    being am do does did doing have has had having i me my mine myself you your yours we us our they them their he
    him his she her it its this that these those there here what which who whom whose when where why how can could
    would should will shall may might must please pls thanks thank hi hello hey just also too very so some any all
    each no not yes ok okay want wanna need needs like let lets got go going gonna up out over under again one two
    more most other such only own same than s t don doesn didn won isn aren now today tomorrow help assistant able
    possible sure really maybe kind well
        """
    )
)
"""Words that say nothing about which tool is wanted. Action verbs (get, make, tell) are deliberately absent."""

# Words kept whole: stripping their "s" would merge them with an unrelated word ("news" → "new").
_NO_STEM = frozenset({"news", "status", "analytics", "series", "sms", "gmail", "always", "settings", "https"})

CONCEPTS: Mapping[str, str] = {
    # Things a personal assistant's tools act on.
    "email": "email e-mail mail gmail inbox mailbox",
    "event": "event meeting appointment calendar invite invitation rsvp agenda",
    "remind": "remind reminder alarm alert todo to-do",
    "recurring": "recurring daily weekly hourly monthly nightly routine repeat repeating cron every",
    "image": "image photo picture pic pics wallpaper gif illustration",
    "video": "video youtube clip trailer",
    "news": "news headline headlines",
    "local": "restaurant cafe coffee bar shop store pharmacy hotel nearby near gym hospital dentist bakery supermarket",
    "weather": "weather forecast temperature rain sunny snow",
    "price": "price prices stock stocks exchange currency rate cost",
    "file": "file files document doc docs pdf spreadsheet csv docx",
    "folder": "folder directory dir",
    "password": "password passwords passcode credential credentials login secret vault 1password",
    "otp": "otp 2fa totp authenticator verification",
    "code": "code script python program calculate compute plot chart graph",
    "shell": "shell command terminal bash",
    "browser": "browser website webpage page site",
    "url": "url link",
    "chat": "chat telegram dm group channel",
    "contact": "contact contacts",
    "memory": "remember memory memorize recall forget",
    "repo": "repository repo repositories github",
    "issue": "issue bug ticket",
    "pull": "pr pull merge",
    "flag": "flag toggle rollout",
    "analytics": "analytics metrics signups pageviews retention dashboard insight",
    "error": "error errors exception exceptions crash crashes",
    # What tools do to them: the first word of most tool names.
    "create": "create add new make set setup schedule book put plan arrange organize register open start compose draft",
    "delete": "delete remove cancel clear erase trash drop forget",
    "update": "update change edit modify move reschedule rename postpone shift correct fix adjust replace",
    "list": "list show upcoming check see view display overview",
    "search": "search find look lookup locate query",
    "read": "read open view show content",
    "send": "send text message tell notify ping",
    "reply": "reply respond answer",
    "forward": "forward",
    "complete": "done complete finish finished completed tick",
    "get": "get fetch retrieve download grab pull obtain",
    "run": "run execute calculate compute evaluate",
}
"""Concept → the words that evoke it (one space-separated string each, read once at import)."""

SYNONYM_WEIGHT = 0.8
"""A concept matched through a synonym counts a little less than the word itself."""


def words(text: str) -> list[str]:
    """Lower-case words; `snake_case` and `camelCase` names split into their parts."""
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(r"\1 \2", text))]


def stem(word: str) -> str:
    """A light English stemmer: plurals, -ing, -ed, -er and a final -e go, so word families meet.

    Deliberately cruder than Porter: it only has to make a message's word and a tool's word land on the same
    string ("reminders", "reminder", "remind" → "remind"; "scheduled", "schedule" → "schedul").
    """
    if len(word) <= 3 or word in _NO_STEM or not word.isascii() or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed", "er"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            # "running" → "runn" → "run", but "calling" keeps its "ll".
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _concept_index(concepts: Mapping[str, str]) -> dict[str, frozenset[str]]:
    index: dict[str, set[str]] = {}
    for concept, evoking in concepts.items():
        for word in evoking.split():
            index.setdefault(stem(word), set()).add("#" + concept)
    return {key: frozenset(value) for key, value in index.items()}


_CONCEPT_INDEX = _concept_index(CONCEPTS)


def stems(text: str) -> list[str]:
    """The stems of a text's words, stop words left out."""
    return [stem(w) for w in words(text) if w not in STOP_WORDS]


def terms(text: str) -> dict[str, float]:
    """Term → weight for one text: each stem (1.0) and each concept it evokes (`SYNONYM_WEIGHT`)."""
    return expand(stems(text))


def expand(stemmed: Iterable[str], *, concepts: bool = True) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in stemmed:
        out[item] = 1.0
        for concept in _CONCEPT_INDEX.get(item, ()) if concepts else ():
            out[concept] = max(out.get(concept, 0.0), SYNONYM_WEIGHT)
    return out


def name_words(name: str, mcp: str | None) -> list[str]:
    """A tool name's words without its MCP prefix: (`gmail_create_event`, "gmail") → ["create", "event"]."""
    if mcp and name.startswith(mcp + "_"):
        name = name[len(mcp) + 1 :]
    return words(name)
