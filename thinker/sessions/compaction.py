"""Compaction: when a chat grows long, its older turns become a summary written by the utility model.

`should_compact` decides (all must hold: enabled, at least 8 turns, more than 20,000 characters of user and
assistant text, 2 minutes since the last compaction, and more turns than the 5 that are kept). `compact` asks
an injected `summarize(text)` for the summary of everything but the last 5 turns - the previous summary included,
so nothing summarised before is lost - and rewrites the file atomically as header + compaction entry + the kept
turns (with their tool chains). Any failure leaves the session as it was.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from shared.text import ELIDED, shorten
from shared.timeutil import as_utc
from thinker.sessions.errors import SessionWriteError
from thinker.sessions.store import Compaction, Session, SessionStore, Turn
from thinker.sessions.utility_llm import DEFAULT_TIMEOUT, TextCompletion

log = logging.getLogger(__name__)

SUMMARY_PROMPT = (
    "Summarize this conversation preserving key facts, decisions, pending tasks, and important context. "
    "Write in third person."
)
"""The system prompt of the summarising call (the original's wording)."""


@dataclass(frozen=True)
class CompactionConfig:
    enabled: bool = True
    threshold_chars: int = 20_000
    """User + assistant characters over all turns (about 5,000 tokens) above which a session is compacted."""
    keep_recent_turns: int = 5
    cooldown: timedelta = timedelta(minutes=2)
    min_turns: int = 8
    timeout_seconds: float = DEFAULT_TIMEOUT
    message_chars: int = 2_000
    """Each message is clipped to this many characters in the text to summarise."""
    max_input_chars: int = 48_000
    """The text to summarise is kept under this (oldest turns dropped first) so it fits a small model."""
    max_summary_chars: int = 6_000
    """A longer summary is clipped: it rides along in every system prompt of the chat."""


DEFAULT_CONFIG = CompactionConfig()


def should_compact(session: Session, now: datetime, config: CompactionConfig = DEFAULT_CONFIG) -> bool:
    """Whether `session` is due for compaction at `now` (pure)."""
    if not config.enabled:
        return False
    turns = len(session.turns)
    if turns < config.min_turns or turns <= config.keep_recent_turns:
        return False
    if session.compaction is not None and as_utc(now) - session.compaction.timestamp < config.cooldown:
        return False
    return session.chars > config.threshold_chars


def format_for_summary(
    previous_summary: str | None,
    turns: Sequence[Turn],
    *,
    message_chars: int = DEFAULT_CONFIG.message_chars,
    max_chars: int = DEFAULT_CONFIG.max_input_chars,
) -> str:
    """The text given to the summariser: the earlier summary, then the turns as `User:` / `Assistant:` lines."""
    blocks: list[str] = []
    for turn in turns:
        lines = [f"User: {shorten(turn.user, message_chars, ELIDED)}"]
        if turn.tools_used:
            lines.append(f"(tools used: {', '.join(turn.tools_used)})")
        lines.append(f"Assistant: {shorten(turn.assistant, message_chars, ELIDED)}")
        blocks.append("\n".join(lines))
    head = f"Summary of the conversation before this part:\n{previous_summary.strip()}\n\n" if previous_summary else ""
    # Over the limit, the oldest turns go first: the recent ones matter most for what comes next.
    budget = max_chars - len(head)
    kept: list[str] = []
    used = 0
    for block in reversed(blocks):
        if kept and used + len(block) > budget:
            break
        kept.append(block)
        used += len(block) + 2
    kept.reverse()
    omitted = len(blocks) - len(kept)
    note = f"({omitted} earlier exchanges omitted for length)\n\n" if omitted else ""
    return f"{head}Conversation:\n{note}" + "\n\n".join(kept)


async def compact(
    session: Session,
    summarize: TextCompletion,
    store: SessionStore,
    now: datetime,
    config: CompactionConfig = DEFAULT_CONFIG,
) -> Session | None:
    """Summarise all but the last `keep_recent_turns` turns and rewrite the file; the new session, or None.

    None means nothing changed: too few turns, the summariser failed, timed out or answered nothing, the chat
    changed meanwhile in a way that makes the summary wrong (cleared, compacted), or the file could not be
    written. Turns appended while the summariser ran are kept.
    """
    keep = max(0, config.keep_recent_turns)
    old = session.turns[: len(session.turns) - keep] if keep else session.turns
    if not old:
        return None
    text = format_for_summary(
        session.summary, old, message_chars=config.message_chars, max_chars=config.max_input_chars
    )
    try:
        async with asyncio.timeout(config.timeout_seconds):
            summary = shorten((await summarize(text)).strip(), config.max_summary_chars, ELIDED)
    except Exception as exc:  # any failure of the injected model call means: no compaction this time
        log.warning("compaction skipped: the summary failed", extra={"chat_id": session.chat_id, "error": repr(exc)})
        return None
    if not summary:
        log.warning("compaction skipped: the summary was empty", extra={"chat_id": session.chat_id})
        return None
    current = store.load(session.chat_id)
    unchanged = (
        current.header == session.header
        and current.compaction == session.compaction
        and current.turns[: len(session.turns)] == session.turns
    )
    if not unchanged:
        log.info("compaction skipped: the chat changed while it was summarised", extra={"chat_id": session.chat_id})
        return None
    previous = session.compaction.compacted_turns if session.compaction else 0
    compacted = Session(
        header=current.header,
        compaction=Compaction(summary=summary, compacted_turns=previous + len(old), timestamp=as_utc(now)),
        turns=current.turns[len(old) :],
    )
    try:
        store.rewrite(compacted)
    except SessionWriteError as exc:
        log.error("compaction not saved: %s", exc, extra={"chat_id": session.chat_id})
        return None
    log.info(
        "session compacted",
        extra={"chat_id": session.chat_id, "compacted_turns": len(old), "kept_turns": len(compacted.turns)},
    )
    return compacted


__all__ = [
    "DEFAULT_CONFIG",
    "SUMMARY_PROMPT",
    "CompactionConfig",
    "compact",
    "format_for_summary",
    "should_compact",
]
