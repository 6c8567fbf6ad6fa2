"""One chat turn through the real hub, the Thinker it starts and a scripted LLM leaves one trace in
`logs/traces.jsonl`: every step in order, one trace id across both processes, and never the message's text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow

SECRET_TEXT = "my locker code is 4711-zebra"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("traces-stack")
    env = fake_llm_agent_env(workdir, llm.api_base, bindings=[{"channel": "*", "agentId": "annabelle"}])
    with start_hub(workdir, workdir / "home", ["guardian_mcp", "echo_mcp"], env=env) as running:
        yield running


def trace_lines(stack: RunningHub) -> list[dict[str, Any]]:
    path = stack.home / "logs" / "traces.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def chat(stack: RunningHub, text: str, headers: dict[str, str] | None = None) -> tuple[dict[str, Any], str]:
    with stack.client() as client:
        response = client.post("/message", json={"message": text, "chatId": "traced"}, headers=headers, timeout=120)
    assert response.status_code == 200, response.text
    return response.json(), response.headers["X-Trace-Id"]


def test_a_chat_turn_leaves_every_step_in_order_under_one_trace_id(stack: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply(Reply.tool("echo_echo", {"text": "zebra"}), "Echoed.")
    answer, trace_id = chat(stack, f"echo this: {SECRET_TEXT}")
    assert answer["success"] is True and answer["toolsUsed"] == ["echo_echo"]

    events = sorted((e for e in trace_lines(stack) if e["trace_id"] == trace_id), key=lambda e: e["ts"])
    steps = [(e["service"], e["event"]) for e in events]
    assert steps == [
        ("orchestrator", "message_received"),
        ("orchestrator", "agent_selected"),
        ("thinker", "tools_selected"),
        ("thinker", "llm_call"),
        ("orchestrator", "tool_call"),
        ("thinker", "tool_call"),
        ("thinker", "llm_call"),
        ("thinker", "turn_finished"),
        ("orchestrator", "reply"),
    ]
    by_step = {(e["service"], e["event"], e.get("step")): e for e in events}
    received = by_step["orchestrator", "message_received", None]
    assert received["channel"] == "http" and received["length"] == len(f"echo this: {SECRET_TEXT}")
    assert "echo_echo" in by_step["thinker", "tools_selected", None]["names"]
    first, second = by_step["thinker", "llm_call", 1], by_step["thinker", "llm_call", 2]
    assert first["outcome"] == "tool_calls" and second["outcome"] == "text" and first["model"] == "openai/fake"
    assert first["prompt_tokens"] > 0 and first["ms"] >= 0
    hub_call = by_step["orchestrator", "tool_call", None]
    assert hub_call["name"] == "echo_echo" and hub_call["mcp"] == "echo" and hub_call["success"] is True
    assert hub_call["scanned"] is False and hub_call["blocked"] is False
    reply = by_step["orchestrator", "reply", None]
    assert reply["kind"] == "answer" and reply["length"] == len("Echoed.") and reply["ms"] >= first["ms"]

    # The text (and the secret in it) is nowhere in the trace file; the tool's arguments are not either.
    raw = (stack.home / "logs" / "traces.jsonl").read_text()
    assert "zebra" not in raw and "4711" not in raw


def test_the_callers_trace_id_is_kept_and_trace_shows_the_turn(stack: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply("Hello there.")
    _, trace_id = chat(stack, "hello", headers={"X-Trace-Id": "caller-trace-0001"})
    assert trace_id == "caller-trace-0001"
    assert {e["event"] for e in trace_lines(stack) if e["trace_id"] == trace_id} >= {"message_received", "reply"}

    shown, command_trace = chat(stack, "/trace caller-trace")
    assert shown["command"] is True
    lines = shown["reply"].splitlines()
    assert lines[0].startswith("Trace caller-trace-0001:")
    assert [line.split()[2] for line in lines[1:]][:2] == ["message_received", "agent_selected"]
    assert any(
        e["event"] == "command" and e["name"] == "/trace" for e in trace_lines(stack) if e["trace_id"] == command_trace
    )


def test_tool_calls_without_a_trace_id_leave_nothing(stack: RunningHub) -> None:
    before = len(trace_lines(stack))
    assert stack.call("echo_echo", {"text": "untraced"})["success"] is True
    assert len(trace_lines(stack)) == before
