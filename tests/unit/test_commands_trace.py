"""/trace reads traces.jsonl and its rotated copies; /logs reads into a just-rotated log's previous copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.commands.logs import (
    events_of,
    find_trace,
    format_trace,
    parse_trace_event,
    read_problems,
    summarize_traces,
)
from orchestrator.commands.registry import run_command
from tests.fakes.command_context import fake_context


def event(trace_id: str, step: str, second: int, /, service: str = "orchestrator", **fields: object) -> str:
    ts = f"2026-03-01T10:00:{second:02d}.000000+00:00"
    return json.dumps({"ts": ts, "trace_id": trace_id, "service": service, "event": step, **fields})


def write(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))


@pytest.mark.parametrize("text", ["not json", "[]", json.dumps({"event": "x"}), json.dumps({"trace_id": "t"}), ""])
def test_lines_that_are_not_trace_events_are_skipped(text: str) -> None:
    assert parse_trace_event(text) is None


def test_an_event_keeps_its_own_fields_and_its_duration() -> None:
    parsed = parse_trace_event(event("t1", "tool_call", 1, name="echo_echo", success=True, errorCode=None, ms=2.5))
    assert parsed is not None and parsed.ms == 2.5
    assert parsed.fields == (("name", "echo_echo"), ("success", "true"))


def test_a_traces_events_come_in_time_order_and_the_summaries_newest_last() -> None:
    events = [
        e
        for line in (event("b", "reply", 9), event("a", "message_received", 1), event("b", "message_received", 5))
        if (e := parse_trace_event(line)) is not None
    ]
    assert [e.event for e in events_of(events, "b")] == ["message_received", "reply"]
    summaries = summarize_traces(events, 5)
    assert [(s.trace_id, s.events, s.last.event) for s in summaries] == [
        ("a", 1, "message_received"),
        ("b", 2, "reply"),
    ]
    assert [s.trace_id for s in summarize_traces(events, 1)] == ["b"]


def test_a_trace_is_found_by_prefix_across_a_rotation(tmp_path: Path) -> None:
    write(
        tmp_path / "traces.jsonl.1",
        [event("old0000", "reply", 0), event("abcd1234", "message_received", 1), event("abcd1234", "llm_call", 2)],
    )
    write(tmp_path / "traces.jsonl", [event("abcd1234", "reply", 3, length=12, ms=2000), event("zz990000", "x", 4)])
    trace_id, events, candidates = find_trace(tmp_path, "abcd")
    assert trace_id == "abcd1234" and candidates == []
    assert [e.event for e in events] == ["message_received", "llm_call", "reply"]
    text = format_trace("abcd1234", events)
    assert text.splitlines()[0].startswith("Trace abcd1234: 3 event(s)")
    assert "+2000ms" in text.splitlines()[3] and "reply (2000 ms) length=12" in text


def test_an_ambiguous_prefix_lists_the_candidates(tmp_path: Path) -> None:
    write(tmp_path / "traces.jsonl", [event("abcd1111", "x", 1), event("abcd2222", "x", 2)])
    assert find_trace(tmp_path, "abcd") == (None, [], ["abcd1111", "abcd2222"])


async def test_the_trace_command_lists_shows_and_refuses(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write(
        logs / "traces.jsonl",
        [
            event("feed0001", "message_received", 1, channel="telegram", chat="42", length=5),
            event("feed0001", "tools_selected", 2, service="thinker", count=3),
            event("feed0001", "reply", 3, kind="answer", ms=1500),
        ],
    )
    ctx = fake_context(tmp_path)
    listing = await run_command("/trace", ctx)
    assert listing is not None and "feed0001" in listing.text and "channel=telegram" in listing.text
    assert "→ reply 1500 ms (3 events)" in listing.text
    shown = await run_command("/trace feed0001", ctx)
    assert shown is not None
    assert [line.split()[2] for line in shown.text.splitlines()[1:]] == ["message_received", "tools_selected", "reply"]
    missing = await run_command("/trace beef9999", ctx)
    assert missing is not None and missing.text.startswith("No trace beef9999")
    wrong = await run_command("/trace ab", ctx)
    assert wrong is not None and "is not a trace id" in wrong.text and "Usage: /trace" in wrong.text


async def test_the_trace_command_says_when_there_are_no_traces(tmp_path: Path) -> None:
    reply = await run_command("/trace", fake_context(tmp_path))
    assert reply is not None and reply.text.startswith("No traces in") and "TRACES_ENABLED" in reply.text


def test_logs_reads_the_previous_copy_of_a_log_that_was_just_rotated(tmp_path: Path) -> None:
    def problem(message: str, second: int) -> str:
        ts = f"2026-03-01T10:00:{second:02d}+00:00"
        return json.dumps({"ts": ts, "level": "ERROR", "service": "orchestrator", "logger": "x", "msg": message})

    write(tmp_path / "orchestrator.log.1", [problem("before the rotation", 1)])
    write(tmp_path / "orchestrator.log", [problem("after the rotation", 2)])
    entries, files = read_problems(tmp_path, 10)
    assert files == 1 and [e.message for e in entries] == ["before the rotation", "after the rotation"]
