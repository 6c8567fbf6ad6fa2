"""Fact extraction after a conversation goes quiet: which chats are due, the prompt, reading the answer.

Every message restarts the chat's idle timer (`FactExtractionScheduler.schedule`); five minutes without a
message make it due. Then `extract_facts` sends the utility model the last 10 turns (it needs at least 4
messages: two exchanges) with the facts already known, and keeps what the answer offers that is well-formed,
confident (>= 0.7), in one of the six categories, new, and among the 5 most confident. `extract_and_store`
hands each fact to a `store` callable (the Thinker's calls the hub's `memory_store_fact`).

The model call, the storage and the clock are injected; everything else here is pure.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NoReturn, get_args

from shared.contracts.memory import FACT_CATEGORIES, FactCategory
from shared.text import ELIDED, shorten
from shared.timeutil import Clock, as_utc, utc_now
from thinker.sessions.store import Turn
from thinker.sessions.utility_llm import TextCompletion

log = logging.getLogger(__name__)

_CATEGORIES: dict[str, FactCategory] = {name: name for name in get_args(FactCategory)}

MAX_FACT_CHARS = 500
"""A longer "fact" is a paragraph, not a fact: it is dropped."""
MAX_KNOWN_FACTS = 100
"""Known facts shown to the model for deduplication (the prompt must stay small for a small model)."""
MESSAGE_CHARS = 2_000
"""Each message of the conversation is clipped to this in the prompt."""


@dataclass(frozen=True)
class ExtractionConfig:
    enabled: bool = True
    idle: timedelta = timedelta(minutes=5)
    max_turns: int = 10
    min_messages: int = 4
    confidence_threshold: float = 0.7
    max_facts: int = 5


DEFAULT_CONFIG = ExtractionConfig()


@dataclass(frozen=True)
class ExtractedFact:
    fact: str
    category: FactCategory
    confidence: float


FACT_EXTRACTION_PROMPT = """\
You extract facts about the user from a conversation between the user and their personal AI assistant.

{{USER_IDENTITY}}

Facts already known (do not extract these again, nor anything that says the same in other words):
{{KNOWN_FACTS}}

Conversation:
{{CONVERSATION}}

Rules:
- Extract only NEW facts that are CLEAR and EXPLICIT in the conversation. Do not guess or infer loosely.
- Each fact must stand alone: name its subject ("The user ...", or the person's name) so it is understood
  without the conversation.
- Skip anything that overlaps a known fact. When the conversation contradicts a known fact, extract the new
  version with confidence 0.9 or more.
- Prefer durable facts. Prefer lasting contact details (email, phone, address) over passing remarks.
  Facts true only for a short time (today's plans, this week's weather) get confidence 0.5 to 0.6.
- Facts about the assistant, about tools or about search results are not facts about the user.
- Never extract passwords, API keys, tokens or other secrets.
- At most 5 facts. No new facts is a fine answer.

Categories:
- preference: likes, dislikes, how the user wants things done
- background: who the user is: work, home, history, languages
- pattern: habits and routines
- project: what the user is working on
- contact: people in the user's life and how to reach them
- decision: choices the user has made

Confidence: 0.9 or more when the user said it explicitly; 0.7 to 0.9 when it is strongly implied.

Answer with JSON only, in exactly this shape:
{"facts": [{"fact": "The user prefers green tea to coffee.", "category": "preference", "confidence": 0.95}]}
With no new facts: {"facts": []}"""

_PLACEHOLDER = re.compile(r"\{\{(USER_IDENTITY|KNOWN_FACTS|CONVERSATION)\}\}")
_FENCED = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


# --- the prompt ------------------------------------------------------------------------------------------------
def conversation_lines(turns: Sequence[Turn], max_turns: int = DEFAULT_CONFIG.max_turns) -> list[str]:
    """The last `max_turns` turns as `User: ...` / `Assistant: ...` lines, one per non-empty message."""
    lines: list[str] = []
    for turn in turns[-max_turns:] if max_turns > 0 else ():
        if turn.user.strip():
            lines.append(f"User: {shorten(turn.user.strip(), MESSAGE_CHARS, ELIDED)}")
        if turn.assistant.strip():
            lines.append(f"Assistant: {shorten(turn.assistant.strip(), MESSAGE_CHARS, ELIDED)}")
    return lines


def build_extraction_prompt(conversation: Sequence[str], known_facts: Sequence[str], user_identity: str | None) -> str:
    """`FACT_EXTRACTION_PROMPT` with its three placeholders filled in (in one pass: text from the conversation
    that happens to contain a placeholder is not expanded)."""
    identity = f"About the user: {user_identity.strip()}" if user_identity and user_identity.strip() else ""
    shown = [fact.strip() for fact in known_facts if fact.strip()][-MAX_KNOWN_FACTS:]
    values = {
        "USER_IDENTITY": identity or "The user's name is not known.",
        "KNOWN_FACTS": "\n".join(f"- {fact}" for fact in shown) if shown else "(none)",
        "CONVERSATION": "\n".join(conversation),
    }
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], FACT_EXTRACTION_PROMPT)


# --- reading the answer --------------------------------------------------------------------------------------------
def _candidates(answer: str) -> list[Any]:
    """JSON values the answer may mean, most likely first: the whole text, fenced blocks, embedded objects."""
    values: list[Any] = []
    texts = [answer.strip(), *(block.strip() for block in _FENCED.findall(answer))]
    for text in texts:
        try:
            values.append(json.loads(text))
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    # Prose around the JSON: try to decode from each opening brace or bracket.
    for match in re.finditer(r"[{\[]", answer):
        try:
            value, _ = decoder.raw_decode(answer, match.start())
        except ValueError:
            continue
        values.append(value)
    return values


def _fact_items(answer: str) -> list[Any] | None:
    for value in _candidates(answer):
        if isinstance(value, dict) and isinstance(value.get("facts"), list):
            return list(value["facts"])
        if isinstance(value, list) and all(isinstance(item, dict) for item in value):
            return value
    return None


def _confidence(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
        except ValueError:
            return None
    if not isinstance(value, int | float) or value != value:  # the second test rejects NaN
        return None
    number = float(value)
    if 1 < number <= 100:
        number /= 100  # a percentage given as a number
    return number if 0 <= number <= 1 else None


def _fact(item: object) -> ExtractedFact | None:
    if not isinstance(item, dict):
        return None
    text = item.get("fact", item.get("text"))
    raw_category = item.get("category")
    category = _CATEGORIES.get(raw_category.strip().lower()) if isinstance(raw_category, str) else None
    confidence = _confidence(item.get("confidence"))
    if not isinstance(text, str) or not text.strip() or len(text.strip()) > MAX_FACT_CHARS:
        return None
    if category is None or confidence is None:
        return None
    return ExtractedFact(" ".join(text.split()), category, confidence)


def parse_facts(answer: str) -> list[ExtractedFact] | None:
    """Every well-formed fact in a model's answer, or None when the answer holds no fact list at all.

    Accepted: `{"facts": [...]}` or a bare list, as the whole answer, in a code fence, or inside prose. A fact
    needs text (`fact`, or `text`), one of the six categories (any case) and a confidence in 0..1 (also "0.9",
    "90%" or 90). Malformed items are skipped.
    """
    items = _fact_items(answer)
    if items is None:
        return None
    return [fact for fact in map(_fact, items) if fact is not None]


def normalize_fact(text: str) -> str:
    """Text for comparing facts: case, accents' composition, punctuation and spacing do not matter."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split())


def select_facts(
    facts: Sequence[ExtractedFact],
    known_facts: Sequence[str],
    *,
    confidence_threshold: float = DEFAULT_CONFIG.confidence_threshold,
    max_facts: int = DEFAULT_CONFIG.max_facts,
) -> list[ExtractedFact]:
    """Confident facts that are not already known (nor repeated), the most confident `max_facts` of them."""
    seen = {normalize_fact(fact) for fact in known_facts}
    kept: list[ExtractedFact] = []
    for fact in facts:
        key = normalize_fact(fact.fact)
        if fact.confidence < confidence_threshold or not key or key in seen:
            continue
        seen.add(key)
        kept.append(fact)
    return sorted(kept, key=lambda fact: -fact.confidence)[: max(0, max_facts)]


# --- extraction ------------------------------------------------------------------------------------------------------
async def extract_facts(
    turns: Sequence[Turn],
    known_facts: Sequence[str],
    llm: TextCompletion,
    user_identity: str | None = None,
    *,
    config: ExtractionConfig = DEFAULT_CONFIG,
) -> list[ExtractedFact]:
    """New facts from the recent turns; [] without calling the model when there is too little conversation.

    Errors of `llm` propagate (the caller logs them); an answer with no readable fact list gives [].
    """
    conversation = conversation_lines(turns, config.max_turns)
    if len(conversation) < config.min_messages:
        return []
    answer = await llm(build_extraction_prompt(conversation, known_facts, user_identity))
    facts = parse_facts(answer)
    if facts is None:
        log.warning("fact extraction: the answer held no fact list", extra={"answer": shorten(answer, 300)})
        return []
    return select_facts(
        facts, known_facts, confidence_threshold=config.confidence_threshold, max_facts=config.max_facts
    )


FactStore = Callable[[ExtractedFact], Awaitable[object]]
"""Stores one fact (the Thinker's calls `memory_store_fact` through the hub); raises when it cannot."""


def derived_turn(turns: Sequence[Turn], max_turns: int = DEFAULT_CONFIG.max_turns) -> str | None:
    """The hub turns the facts are drawn from (the last `max_turns` exchanges), comma-separated, so the hub judges
    their taint together: facts from a chat that read a stranger's mail are stored as untrusted. None when one has
    no turn recorded (the hub never knew it): the hub then counts the facts as untrusted."""
    ids = [turn.hub_turn for turn in (turns[-max_turns:] if max_turns > 0 else ())]
    return ",".join(id_ for id_ in ids if id_) if ids and all(ids) else None


async def extract_and_store(
    turns: Sequence[Turn],
    known_facts: Sequence[str],
    llm: TextCompletion,
    store: FactStore,
    user_identity: str | None = None,
    *,
    config: ExtractionConfig = DEFAULT_CONFIG,
) -> list[ExtractedFact]:
    """`extract_facts`, then each fact to `store`; returns those stored. One refused fact does not stop the rest."""
    if not config.enabled:
        return []
    stored: list[ExtractedFact] = []
    for fact in await extract_facts(turns, known_facts, llm, user_identity, config=config):
        try:
            await store(fact)
        except Exception as exc:  # the store is the caller's seam: whatever it raises, the next fact still goes
            log.warning("fact not stored: %s", exc, extra={"fact": fact.fact, "category": fact.category})
            continue
        stored.append(fact)
    return stored


# --- when ---------------------------------------------------------------------------------------------------------------
class FactExtractionScheduler:
    """One idle timer per chat: `schedule` (re)starts it, `due` hands out the chats whose timer ran out.

    A due chat leaves the schedule, so it is extracted once per quiet spell; its next message schedules it again.
    """

    def __init__(self, idle: timedelta = DEFAULT_CONFIG.idle, clock: Clock = utc_now) -> None:
        self.idle = idle
        self._clock = clock
        self._due_at: dict[str, datetime] = {}

    def schedule(self, chat_id: str, now: datetime | None = None) -> datetime:
        """Restart the chat's timer; returns when it will be due."""
        due_at = as_utc(now or self._clock()) + self.idle
        self._due_at[chat_id] = due_at
        return due_at

    def cancel(self, chat_id: str) -> bool:
        """Forget the chat's timer (the session was cleared); True when there was one."""
        return self._due_at.pop(chat_id, None) is not None

    def due(self, now: datetime | None = None) -> list[str]:
        """Chats idle long enough, longest-waiting first; they are removed from the schedule."""
        moment = as_utc(now or self._clock())
        ready = sorted((at, chat) for chat, at in self._due_at.items() if at <= moment)
        for _, chat in ready:
            del self._due_at[chat]
        return [chat for _, chat in ready]

    def next_due(self) -> datetime | None:
        return min(self._due_at.values(), default=None)

    @property
    def pending(self) -> dict[str, datetime]:
        return dict(self._due_at)

    async def run_due(self, extract: Callable[[str], Awaitable[object]], now: datetime | None = None) -> list[str]:
        """Run `extract(chat_id)` for each due chat, one after another; a failure is logged, the rest still run."""
        done: list[str] = []
        for chat in self.due(now):
            try:
                await extract(chat)
            except Exception as exc:  # one chat's failure (model down, hub down) must not starve the others
                log.warning("fact extraction failed: %s", exc, extra={"chat_id": chat})
                continue
            done.append(chat)
        return done

    async def run_forever(
        self,
        extract: Callable[[str], Awaitable[object]],
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> NoReturn:
        """Sleep until the next chat is due, extract, repeat; cancel the task to stop it.

        No wake-up is needed when a chat is scheduled meanwhile: it is due at least `idle` later, and with an
        empty schedule the loop sleeps exactly `idle`. A rescheduled chat only makes the loop wake early.
        """
        while True:
            next_at = self.next_due()
            now = as_utc(self._clock())
            delay = self.idle.total_seconds() if next_at is None else max(0.0, (next_at - now).total_seconds())
            await sleep(delay)
            await self.run_due(extract)


__all__ = [
    "DEFAULT_CONFIG",
    "FACT_CATEGORIES",
    "FACT_EXTRACTION_PROMPT",
    "ExtractedFact",
    "ExtractionConfig",
    "FactCategory",
    "FactExtractionScheduler",
    "FactStore",
    "build_extraction_prompt",
    "conversation_lines",
    "extract_and_store",
    "extract_facts",
    "normalize_fact",
    "parse_facts",
    "select_facts",
]
