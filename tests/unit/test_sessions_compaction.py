"""Compaction: when it triggers, what the summariser is given, the atomic rewrite, and every way it can fail."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from thinker.sessions.compaction import (
    SUMMARY_PROMPT,
    CompactionConfig,
    compact,
    format_for_summary,
    should_compact,
)
from thinker.sessions.errors import UtilityModelError
from thinker.sessions.messages import ChatMessage, assistant_message, tool_call, tool_message
from thinker.sessions.store import Compaction, Session, SessionStore, Turn, make_turn, new_session

START = datetime(2026, 2, 11, 9, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def turns(n: int, chars: int = 10, *, start: int = 0) -> tuple[Turn, ...]:
    """`n` turns, each with `chars` characters of user text plus `chars` of assistant text."""
    return tuple(
        make_turn(f"q{i}".ljust(chars, "."), f"a{i}".ljust(chars, "."), now=START + timedelta(minutes=i))
        for i in range(start, start + n)
    )


def session(n: int, chars: int = 10, compaction: Compaction | None = None) -> Session:
    return Session(new_session("chat", "annabelle", START).header, compaction, turns(n, chars))


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions", "annabelle", clock=FakeClock())


def fill(store: SessionStore, n: int, chars: int = 2_000) -> Session:
    for item in turns(n, chars):
        store.append_turn("chat", item)
    return store.load("chat")


class Summarizer:
    """A scripted summariser that records what it was asked."""

    def __init__(self, answer: str = "The user asked many questions.") -> None:
        self.answer = answer
        self.texts: list[str] = []

    async def __call__(self, text: str) -> str:
        self.texts.append(text)
        return self.answer


# --- the trigger ---------------------------------------------------------------------------------------------------
NOW = START + timedelta(hours=1)


@pytest.mark.parametrize(
    ("case", "subject", "config", "expected"),
    [
        ("8 turns over 20,000 characters", session(8, 1_251), CompactionConfig(), True),
        ("exactly 20,000 characters is not over", session(8, 1_250), CompactionConfig(), False),
        ("7 turns are too few however long", session(7, 5_000), CompactionConfig(), False),
        ("disabled", session(40, 5_000), CompactionConfig(enabled=False), False),
        ("a lower threshold", session(8, 100), CompactionConfig(threshold_chars=1_000), True),
        ("keeping as many turns as there are", session(8, 5_000), CompactionConfig(keep_recent_turns=8), False),
        ("no minimum", session(6, 5_000), CompactionConfig(min_turns=0), True),
        ("an empty session", session(0), CompactionConfig(min_turns=0), False),
        (
            "compacted 1:59 ago: cooling down",
            session(10, 5_000, Compaction("s", 5, NOW - timedelta(minutes=1, seconds=59))),
            CompactionConfig(),
            False,
        ),
        (
            "compacted 2:00 ago: due again",
            session(10, 5_000, Compaction("s", 5, NOW - timedelta(minutes=2))),
            CompactionConfig(),
            True,
        ),
    ],
)
def test_should_compact(case: str, subject: Session, config: CompactionConfig, expected: bool) -> None:
    assert should_compact(subject, NOW, config) is expected


def test_the_defaults_are_the_original_ones() -> None:
    config = CompactionConfig()
    assert (config.enabled, config.threshold_chars, config.keep_recent_turns, config.min_turns) == (
        True,
        20_000,
        5,
        8,
    )
    assert config.cooldown == timedelta(minutes=2) and config.timeout_seconds == 30
    assert SUMMARY_PROMPT == (
        "Summarize this conversation preserving key facts, decisions, pending tasks, and important context. "
        "Write in third person."
    )


# --- the text to summarise -------------------------------------------------------------------------------------------
def test_the_summary_input_has_the_earlier_summary_then_the_exchanges() -> None:
    used = make_turn("any mail?", "Two new ones.", now=START, tools_used=["gmail_list_emails"])
    text = format_for_summary("The user lives in Vilnius.", [make_turn("hi", "hello", now=START), used])
    assert text == (
        "Summary of the conversation before this part:\nThe user lives in Vilnius.\n\n"
        "Conversation:\n"
        "User: hi\nAssistant: hello\n\n"
        "User: any mail?\n(tools used: gmail_list_emails)\nAssistant: Two new ones."
    )


def test_long_messages_are_clipped_and_the_oldest_exchanges_dropped_to_fit() -> None:
    many = [make_turn(f"question {i} " + "x" * 500, "y" * 500, now=START) for i in range(20)]
    text = format_for_summary(None, many, message_chars=100, max_chars=1_500)
    assert len(text) <= 1_500 + 100
    assert "x" * 101 not in text and "[…]" in text
    assert "question 19" in text and "question 0 " not in text
    assert "earlier exchanges omitted for length" in text


def test_the_newest_exchange_is_kept_even_when_it_alone_is_over_the_limit() -> None:
    text = format_for_summary(None, [make_turn("a" * 900, "b", now=START)], message_chars=2_000, max_chars=100)
    assert "a" * 900 in text


# --- compaction with a scripted summariser ---------------------------------------------------------------------------
async def test_compaction_keeps_five_turns_and_writes_header_summary_and_kept_turns(store: SessionStore) -> None:
    chain: list[ChatMessage] = [
        assistant_message(None, [tool_call("c1", "gmail_list_emails", {})]),
        tool_message("c1", "[]", "gmail_list_emails"),
        assistant_message("No mail."),
    ]
    for item in turns(9, 2_000):
        store.append_turn("chat", item)
    with_tools = make_turn("mail?", "No mail.", now=START, tools_used=["gmail_list_emails"], messages=chain)
    before = store.append_turn("chat", with_tools)
    summarizer = Summarizer("The user asked nine numbered questions.")

    after = await compact(before, summarizer, store, NOW)

    assert after is not None
    assert after.compaction == Compaction("The user asked nine numbered questions.", 5, NOW)
    assert after.turns == before.turns[5:]
    assert after.turns[-1].messages == tuple(chain)  # tool chains of kept turns survive
    lines = [json.loads(line) for line in store.path_for("chat").read_text().splitlines()]
    assert [line["type"] for line in lines] == ["header", "compaction"] + ["turn"] * 5
    assert lines[0]["createdAt"] == "2026-02-11T09:00:00.000Z"  # the original header, not a new one
    assert lines[1] == {
        "type": "compaction",
        "summary": "The user asked nine numbered questions.",
        "compactedTurns": 5,
        "timestamp": "2026-02-11T10:00:00.000Z",
    }
    (text,) = summarizer.texts
    assert "User: q4" in text and "User: q5" not in text and "Summary of the conversation" not in text
    assert SessionStore(store.folder.parent, "annabelle").load("chat") == after
    assert not should_compact(after, NOW)


async def test_a_second_compaction_summarises_the_first_summary_too(store: SessionStore) -> None:
    first = await compact(fill(store, 10), Summarizer("First part: tea."), store, NOW)
    assert first is not None
    for item in turns(6, 2_000, start=10):
        store.append_turn("chat", item)
    summarizer = Summarizer("Tea, then coffee.")
    second = await compact(store.load("chat"), summarizer, store, NOW + timedelta(minutes=5))
    assert second is not None
    assert second.compaction == Compaction("Tea, then coffee.", 11, NOW + timedelta(minutes=5))
    assert len(second.turns) == 5
    assert summarizer.texts[0].startswith("Summary of the conversation before this part:\nFirst part: tea.")


async def test_keeping_no_turns_compacts_them_all(store: SessionStore) -> None:
    after = await compact(fill(store, 3), Summarizer(), store, NOW, CompactionConfig(keep_recent_turns=0))
    assert after is not None and after.turns == () and after.compaction is not None


async def test_a_long_summary_is_clipped(store: SessionStore) -> None:
    after = await compact(fill(store, 8), Summarizer("s" * 10_000), store, NOW, CompactionConfig(max_summary_chars=50))
    assert after is not None and after.summary is not None
    assert after.summary.startswith("s" * 40) and len(after.summary) == 50


async def test_turns_that_arrive_while_the_summary_is_written_are_kept(store: SessionStore) -> None:
    before = fill(store, 8)
    late = make_turn("a late question", "a late answer", now=NOW)

    async def summarize_slowly(text: str) -> str:
        store.append_turn("chat", late)  # another message was handled meanwhile
        return "Summary."

    after = await compact(before, summarize_slowly, store, NOW)
    assert after is not None
    assert after.turns == (*before.turns[3:], late)
    assert SessionStore(store.folder.parent, "annabelle").load("chat").turns[-1] == late


# --- failures leave the session as it was ------------------------------------------------------------------------------
def failing(exc: Exception) -> Callable[[str], Awaitable[str]]:
    async def summarize(text: str) -> str:
        raise exc

    return summarize


async def never_answers(text: str) -> str:
    await asyncio.Event().wait()
    return "unreachable"


async def empty_answer(text: str) -> str:
    return "   \n"


@pytest.mark.parametrize(
    ("summarize", "config"),
    [
        pytest.param(failing(UtilityModelError("down")), CompactionConfig(), id="the model is down"),
        pytest.param(failing(RuntimeError("bug")), CompactionConfig(), id="the summariser has a bug"),
        pytest.param(never_answers, CompactionConfig(timeout_seconds=0), id="the summariser times out"),
        pytest.param(empty_answer, CompactionConfig(), id="the summary is empty"),
    ],
)
async def test_a_failed_summary_leaves_the_session_untouched(
    store: SessionStore,
    summarize: Callable[[str], Awaitable[str]],
    config: CompactionConfig,
    caplog: pytest.LogCaptureFixture,
) -> None:
    before = fill(store, 10)
    raw = store.path_for("chat").read_bytes()
    assert await compact(before, summarize, store, NOW, config) is None
    assert store.path_for("chat").read_bytes() == raw
    assert store.load("chat") == before
    assert "compaction skipped" in caplog.text


async def test_too_few_turns_to_compact_do_not_call_the_summariser(store: SessionStore) -> None:
    summarizer = Summarizer()
    assert await compact(fill(store, 5), summarizer, store, NOW) is None
    assert summarizer.texts == []


async def test_a_chat_cleared_while_it_was_summarised_stays_cleared(store: SessionStore) -> None:
    before = fill(store, 8)

    async def summarize_while_cleared(text: str) -> str:
        store.clear("chat")
        return "Summary."

    assert await compact(before, summarize_while_cleared, store, NOW) is None
    assert not store.path_for("chat").exists()


async def test_a_chat_compacted_meanwhile_is_not_compacted_twice(store: SessionStore) -> None:
    before = fill(store, 8)

    async def summarize_while_compacted(text: str) -> str:
        current = store.load("chat")
        store.rewrite(replace(current, compaction=Compaction("other", 3, NOW), turns=current.turns[3:]))
        return "Summary."

    assert await compact(before, summarize_while_compacted, store, NOW) is None
    assert store.load("chat").summary == "other"


async def test_a_rewrite_that_fails_leaves_the_file_as_it_was(
    store: SessionStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    before = fill(store, 8)
    raw = store.path_for("chat").read_bytes()

    def refuse(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    assert await compact(before, Summarizer(), store, NOW) is None
    assert store.path_for("chat").read_bytes() == raw
    assert "compaction not saved" in caplog.text


# --- the litellm summariser against the fake OpenAI-compatible server ------------------------------------------------
