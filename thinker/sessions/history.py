"""The conversation history sent to the model, built from a session in four steps:

1. candidates: the session's last 30 messages;
2. `select_relevant_history`: the last 6 messages always (from the start of the turn the sixth is in), plus older user/assistant pairs whose cosine
   similarity to the current message is at least 0.45, most similar first, up to 20 messages in all, in
   chronological order; without an embedder (or when it fails) simply the last 20;
3. `repair_history`: the tool-call chain made valid again (see its docstring for the rules);
4. `truncate_tool_results`: tool results older than the last 2 shortened to "[<tool>: truncated, was N chars]",
   with the record ids they held (`results.kept_ids`).

Steps 2-4 are pure functions over `ChatMessage` lists and never modify their input. `build_history` is the one
place that does I/O: it asks the embedder for vectors.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from shared.embeddings.base import Embedder, EmbeddingError
from thinker.sessions.messages import (
    AssistantMessage,
    ChatMessage,
    ToolCall,
    ToolMessage,
    assistant_message,
    text_of,
    tool_message,
)
from thinker.sessions.results import kept_ids

log = logging.getLogger(__name__)

CANDIDATE_MESSAGES = 30
RECENT_MESSAGES = 6
MAX_HISTORY_MESSAGES = 20
RELEVANCE_THRESHOLD = 0.45
KEEP_TOOL_RESULTS = 2
SYNTHETIC_TOOL_RESULT = json.dumps({"error": "Tool result unavailable (recovered from broken history)"})
"""The content given to a tool call whose result was lost (a crash between the call and the result)."""
PAIR_TEXT_CHARS = 1_000
"""Characters of each side of a pair that are embedded: enough for the topic, cheap to embed."""


# --- step 2: relevance -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HistoryPair:
    """An older exchange eligible for selection: a user message and the assistant's final text answer."""

    index: int
    """Position of the user message in the message list."""
    user: ChatMessage
    assistant: AssistantMessage

    @property
    def text(self) -> str:
        """What is embedded to score the pair."""
        return f"{text_of(self.user)[:PAIR_TEXT_CHARS]}\n{text_of(self.assistant)[:PAIR_TEXT_CHARS]}"


def tail_start(messages: Sequence[ChatMessage], recent: int) -> int:
    """Where the tail that is always sent begins: `recent` messages from the end, moved back to the user message
    that starts the turn the cut falls in, so the tail may be longer than `recent` but never starts mid-turn.

    A cut inside a turn kept its tool results and lost the request they answer (repair then drops the orphaned
    results): asked "add bananas to it too", the 1.5B model saw only "The file shopping.txt has been created",
    because the turn before had five tool results, and answered that it could not find the file.
    """
    if recent <= 0:
        return len(messages)
    cut = max(0, len(messages) - recent)
    while cut > 0 and messages[cut]["role"] != "user":
        cut -= 1
    return cut


def older_pairs(messages: Sequence[ChatMessage], recent: int = RECENT_MESSAGES) -> list[HistoryPair]:
    """The user/assistant pairs before the tail of the last `recent` messages (`tail_start`), oldest first.

    A pair is a user message and the last assistant text before the next user message; tool calls and results
    in between are left out (an old exchange matters for what was said, and its tool output would be
    truncated anyway). A user message with no text answer (a torn turn) makes no pair.
    """
    cut = tail_start(messages, recent)
    pairs: list[HistoryPair] = []
    start: int | None = None
    answer: AssistantMessage | None = None
    for index, message in enumerate(messages[:cut]):
        if message["role"] == "user":
            if start is not None and answer is not None:
                pairs.append(HistoryPair(start, messages[start], answer))
            start, answer = index, None
        elif message["role"] == "assistant" and start is not None and text_of(message):
            answer = assistant_message(message["content"])
    if start is not None and answer is not None:
        pairs.append(HistoryPair(start, messages[start], answer))
    return pairs


def select_relevant_history(
    messages: Sequence[ChatMessage],
    scores: Sequence[float] | None,
    *,
    recent: int = RECENT_MESSAGES,
    max_messages: int = MAX_HISTORY_MESSAGES,
    threshold: float = RELEVANCE_THRESHOLD,
) -> list[ChatMessage]:
    """The messages to send: the last `recent` (whole turns, `tail_start`), plus the best-scoring older pairs,
    chronological.

    `scores` are the cosine similarities of `older_pairs(messages, recent)` to the current message, in the
    same order; None means no embeddings, and then the result is the last `max_messages` messages (whole turns).
    """
    if scores is None:
        return list(messages[tail_start(messages, max_messages) :])
    tail = list(messages[tail_start(messages, recent) :])
    pairs = older_pairs(messages, recent)
    if len(scores) != len(pairs):
        raise ValueError(f"got {len(scores)} scores for {len(pairs)} older pairs")
    budget = max(0, max_messages - len(tail)) // 2
    # Most similar first; between equal scores the more recent pair wins.
    ranked = sorted(
        ((score, pair) for pair, score in zip(pairs, scores, strict=True) if score >= threshold),
        key=lambda scored: (-scored[0], -scored[1].index),
    )
    chosen = sorted((pair for _, pair in ranked[:budget]), key=lambda pair: pair.index)
    older: list[ChatMessage] = [message for pair in chosen for message in (pair.user, pair.assistant)]
    return older + tail


def cosine_scores(query: np.ndarray, rows: np.ndarray) -> list[float]:
    """Cosine similarity of each row to `query`; embedder rows are unit length, so a dot product suffices."""
    if len(rows) == 0:
        return []
    return [float(value) for value in rows @ query]


# --- step 3: repair ----------------------------------------------------------------------------------------------
def _tool_calls(message: ChatMessage) -> list[ToolCall]:
    if message["role"] != "assistant":
        return []
    return list(message.get("tool_calls") or [])


def repair_history(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The history with a valid tool-call chain, which providers insist on; the input is not modified.

    Every tool result must answer a call of the assistant message just before its run of tool results, and
    every such call must get exactly one result:

    - rule 1, leading orphans: tool results before any assistant tool call are dropped;
    - rule 2, missing results: a call without a result gets a synthetic one (`SYNTHETIC_TOOL_RESULT`), placed
      with the others right after the calling message, so the chain is valid even when the history was cut
      between a call and its result or the process died mid-turn;
    - rule 3, orphaned results: a result whose `tool_call_id` is not among those calls, or that repeats a
      result already given, is dropped.

    Results come out in the order of the calls. An assistant message whose `tool_calls` list is empty loses the
    key (the API refuses an empty list), and one left with neither text nor calls is dropped.
    """
    out: list[ChatMessage] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message["role"] == "tool":
            continue  # rules 1 and 3: a result not directly after its call (results after a call are taken below)
        calls = _tool_calls(message)
        if message["role"] != "assistant" or not calls:
            if message["role"] == "assistant" and "tool_calls" in message:
                if not text_of(message):
                    continue
                message = assistant_message(message["content"])
            out.append(message)
            continue
        out.append(message)
        results: dict[str, ToolMessage] = {}
        while index < len(messages):
            result = messages[index]
            if result["role"] != "tool":
                break
            index += 1
            call_id = result["tool_call_id"]
            if any(call["id"] == call_id for call in calls) and call_id not in results:
                results[call_id] = result
        seen: set[str] = set()
        for call in calls:
            if call["id"] in seen:
                continue  # the same id twice in one message: one result answers both
            seen.add(call["id"])
            out.append(
                results.get(call["id"]) or tool_message(call["id"], SYNTHETIC_TOOL_RESULT, call["function"]["name"])
            )
    return out


# --- step 4: truncation ------------------------------------------------------------------------------------------
def _tool_names(messages: Sequence[ChatMessage]) -> dict[str, str]:
    return {call["id"]: call["function"]["name"] for message in messages for call in _tool_calls(message)}


def truncate_tool_results(messages: Sequence[ChatMessage], keep_last: int = KEEP_TOOL_RESULTS) -> list[ChatMessage]:
    """Older tool results replaced by `[<tool>: truncated, was N chars]` (plus `; its ids: {"ids": [...]}` when the
    result held record ids); the last `keep_last` stay whole.

    A result already shorter than its replacement is left alone (shortening it would save nothing). The tool
    name comes from the result's `name`, else from the call it answers, else "tool".
    """
    positions = [i for i, message in enumerate(messages) if message["role"] == "tool"]
    older = set(positions[: max(0, len(positions) - keep_last)])
    names = _tool_names(messages)
    out: list[ChatMessage] = []
    for i, message in enumerate(messages):
        if i in older and message["role"] == "tool":
            content = message["content"]
            name = message.get("name") or names.get(message["tool_call_id"]) or "tool"
            note = f"[{name}: truncated, was {len(content)} chars]"
            ids = kept_ids(content)
            if ids:
                # The record ids stay: without them a follow-up naming one ("reply to msg18") was refused as an id
                # nobody gave, though an earlier turn's tool had returned it.
                note = f"[{name}: truncated, was {len(content)} chars; its ids: {json.dumps({'ids': ids})}]"
            if len(note) < len(content):
                out.append(tool_message(message["tool_call_id"], note, message.get("name")))
                continue
        out.append(message)
    return out


# --- the pipeline ------------------------------------------------------------------------------------------------
async def relevance_scores(
    pairs: Sequence[HistoryPair], current_message: str, embedder: Embedder | None
) -> list[float] | None:
    """Cosine similarity of each pair to the current message; None without an embedder or when it fails."""
    if embedder is None:
        return None
    if not pairs:
        return []
    try:
        vectors = await embedder.embed([current_message, *(pair.text for pair in pairs)])
    except EmbeddingError as exc:
        log.warning("history selection without embeddings: %s", exc)
        return None
    return cosine_scores(vectors[0], vectors[1:])


async def build_history(
    messages: Sequence[ChatMessage],
    current_message: str,
    embedder: Embedder | None,
    *,
    candidates: int = CANDIDATE_MESSAGES,
    threshold: float = RELEVANCE_THRESHOLD,
    keep_tool_results: int = KEEP_TOOL_RESULTS,
) -> list[ChatMessage]:
    """The history for the model from a session's messages (`Session.messages()`), all four steps."""
    pool = list(messages[-candidates:]) if candidates > 0 else []
    scores = await relevance_scores(older_pairs(pool), current_message, embedder)
    selected = select_relevant_history(pool, scores, threshold=threshold)
    return truncate_tool_results(repair_history(selected), keep_last=keep_tool_results)


__all__ = [
    "CANDIDATE_MESSAGES",
    "KEEP_TOOL_RESULTS",
    "MAX_HISTORY_MESSAGES",
    "RECENT_MESSAGES",
    "RELEVANCE_THRESHOLD",
    "SYNTHETIC_TOOL_RESULT",
    "HistoryPair",
    "build_history",
    "cosine_scores",
    "older_pairs",
    "relevance_scores",
    "repair_history",
    "select_relevant_history",
    "truncate_tool_results",
]
