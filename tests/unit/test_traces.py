"""shared/traces.py: trace ids in context, one JSON line per event, nothing outside a trace or when disabled."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared import traces
from shared.traces import (
    TRACE_HEADER,
    configure_traces,
    continue_trace,
    current_trace,
    new_trace_id,
    trace_event,
    trace_headers,
    traced,
    valid_trace_id,
)


@pytest.fixture
def logs(tmp_path: Path) -> Iterator[Path]:
    configure_traces("test-service", tmp_path, enabled=True, max_bytes=1_000_000, backups=2)
    yield tmp_path
    configure_traces("test-service", tmp_path, enabled=False, max_bytes=1_000_000, backups=2)


def lines(logs: Path) -> list[dict[str, object]]:
    path = logs / "traces.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_an_event_inside_a_trace_is_one_json_line_with_the_common_fields(logs: Path) -> None:
    with traced("abc123") as trace_id:
        trace_event("tool_call", name="echo_echo", success=True, ms=1.5)
    assert trace_id == "abc123"
    [entry] = lines(logs)
    assert entry["trace_id"] == "abc123" and entry["service"] == "test-service" and entry["event"] == "tool_call"
    assert entry["name"] == "echo_echo" and entry["success"] is True and entry["ms"] == 1.5
    assert str(entry["ts"]).endswith("+00:00")


def test_nothing_is_written_outside_a_trace_or_with_tracing_off(logs: Path) -> None:
    trace_event("tool_call", name="polled")
    with continue_trace(None):
        trace_event("tool_call", name="untraced call")
    configure_traces("test-service", logs, enabled=False, max_bytes=1_000_000, backups=2)
    with traced("abc123"):
        trace_event("tool_call", name="disabled")
    assert lines(logs) == []


def test_a_trace_is_set_for_its_block_only_and_new_ids_differ() -> None:
    assert current_trace() is None and trace_headers() == {}
    with traced() as outer:
        assert current_trace() == outer and trace_headers() == {TRACE_HEADER: outer}
        with continue_trace("inner-1") as inner:
            assert inner == "inner-1" and current_trace() == "inner-1"
        assert current_trace() == outer
    assert current_trace() is None
    assert len({new_trace_id() for _ in range(100)}) == 100


async def test_tasks_started_inside_a_trace_carry_it(logs: Path) -> None:
    async def background() -> None:
        trace_event("llm_call", model="m")

    with traced("parent"):
        task = asyncio.ensure_future(background())
    await task
    assert [e["trace_id"] for e in lines(logs)] == ["parent"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("0123456789abcdef", "0123456789abcdef"),
        ("req-42:a_b.c", "req-42:a_b.c"),
        (None, None),
        ("", None),
        ("has space", None),
        ("x" * 65, None),
        ('inject"\nline', None),
        ("-leading-dash", None),
    ],
)
def test_only_plain_short_ids_are_taken_from_headers(given: str | None, expected: str | None) -> None:
    assert valid_trace_id(given) == expected


def test_a_trace_file_that_cannot_be_written_never_fails_the_request(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    configure_traces("svc", tmp_path, enabled=True, max_bytes=1_000_000, backups=1)
    assert traces._writer is not None
    traces._writer.file.path = blocker / "traces.jsonl"  # its folder is a file: every write fails
    try:
        with traced("t1"):
            trace_event("reply", length=3)
            trace_event("reply", length=4)
    finally:
        configure_traces("svc", tmp_path, enabled=False, max_bytes=1_000_000, backups=1)
