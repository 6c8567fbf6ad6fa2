"""Fact extraction from one exchange: the prompt and the reading of the answer. Pure.

The model is asked for at most three clear, explicit, standalone facts about the user as JSON
`{"facts": [{"fact", "category", "confidence"}]}`. Kept: known categories, confidence ≥ 0.7, non-empty text, at
most three. (Secrets and duplicates are handled by the store path every fact goes through.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memorizer_mcp.llm import Message, parse_json_object
from shared.contracts.memory import FACT_CATEGORIES
from shared.text import ELIDED, shorten

MIN_EXCHANGE_CHARS = 50
"""Shorter exchanges ("thanks" / "you're welcome") are not worth a model call."""
CONFIDENCE_THRESHOLD = 0.7
MAX_FACTS = 3
MAX_PROMPT_CHARS = 12_000
"""Each side of the exchange is clipped to half of this: a model call costs per token, and facts sit early."""

SYSTEM_PROMPT = """You pick out durable facts about the user from one exchange between the user and their assistant.

Categories:
- preference: what the user likes, dislikes or wants done a certain way
- background: who the user is (home, work, family, skills, languages)
- pattern: habits and routines the user describes
- project: work or personal projects the user is busy with
- contact: people the user names, with their relation to the user
- decision: choices the user has made

Rules:
- Only what the user states or clearly confirms; no guesses, no facts about the assistant.
- Each fact must make sense on its own, without the conversation (write "The user's sister is Ana", not "She is Ana").
- Skip small talk, one-off requests and anything that is only true today.
- Never include passwords, keys, tokens or card numbers.
- At most 3 facts. confidence: 0.9 or more when stated outright, 0.7-0.9 when strongly implied.

Answer with one JSON object and nothing else:
{"facts": [{"fact": "...", "category": "preference", "confidence": 0.9}]}
With nothing worth keeping, answer {"facts": []}."""


@dataclass(frozen=True)
class ExtractedFact:
    fact: str
    category: str
    confidence: float


def long_enough(user_message: str, agent_response: str) -> bool:
    return len(user_message) + len(agent_response) >= MIN_EXCHANGE_CHARS


def build_messages(user_message: str, agent_response: str) -> list[Message]:
    half = MAX_PROMPT_CHARS // 2
    exchange = f"User: {shorten(user_message, half, ELIDED)}\n\nAssistant: {shorten(agent_response, half, ELIDED)}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": exchange}]


def _fact(item: Any) -> ExtractedFact | None:
    if not isinstance(item, dict):
        return None
    text, category, confidence = item.get("fact"), item.get("category"), item.get("confidence")
    if not isinstance(text, str) or not text.strip() or category not in FACT_CATEGORIES:
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return None
    if not CONFIDENCE_THRESHOLD <= float(confidence) <= 1.0:
        return None
    return ExtractedFact(text.strip(), str(category), float(confidence))


def parse_answer(answer: str) -> list[ExtractedFact] | None:
    """The facts worth storing, or None when the answer is not the JSON asked for."""
    data = parse_json_object(answer)
    if data is None or not isinstance(data.get("facts"), list):
        return None
    facts = [fact for fact in map(_fact, data["facts"]) if fact is not None]
    return facts[:MAX_FACTS]
