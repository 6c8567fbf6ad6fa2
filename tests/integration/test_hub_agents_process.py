"""Agents with the real hub and real Thinkers: agents.json's settings reach the model request, and a Thinker
never outlives a hub that was SIGKILLed (the next hub starts its own on the same port)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import RunningHub, free_port, start_hub

pytestmark = pytest.mark.slow

ENV = {"EMBEDDING_PROVIDER": "none", "OPENAI_API_KEY": "test", "GUARDIAN_FAIL_MODE": "open", "UTILITY_MODEL": "off"}


@pytest.fixture
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def write_agents(path: Path, **agent: Any) -> Path:
    path.write_text(json.dumps({"agents": [{"agentId": "annabelle", **agent}]}))
    return path


def chat(hub: RunningHub, text: str) -> dict[str, Any]:
    with hub.client() as client:
        response = client.post("/message", json={"message": text, "chatId": "t"}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def agent_state(hub: RunningHub) -> dict[str, Any]:
    with hub.client() as client:
        return client.get("/agents").json()["agents"][0]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "\nState:\tZ" not in status.read_text()


def test_the_agents_model_api_base_temperature_max_steps_and_prompt_reach_the_llm(
    tmp_path: Path, llm: FakeOpenAI
) -> None:
    config = write_agents(
        tmp_path / "agents.json",
        port=free_port(),
        model="openai/zed-model",
        apiBase=llm.api_base,
        temperature=0.25,
        maxSteps=3,
        systemPrompt="You are Zed, a terse test persona.",
        allowedTools=["echo_*"],
    )
    # A model that never stops calling tools: the turn must end at maxSteps.
    llm.set_handler(lambda _: Reply.tool("echo_echo", {"text": "again"}))
    with start_hub(tmp_path, tmp_path / "home", ["echo_mcp"], env={**ENV, "AGENTS_CONFIG": str(config)}) as hub:
        answer = chat(hub, "echo forever")
        requests = llm.requests
        assert len(requests) == 3, [r.body.get("tool_choice") for r in requests]
        assert {r.model for r in requests} == {"zed-model"}
        assert {r.body["temperature"] for r in requests} == {0.25}
        assert requests[-1].body.get("tool_choice") == "none"  # the last allowed call asks for words
        assert "You are Zed, a terse test persona." in requests[0].messages[0]["content"]
        assert answer["success"] is True and answer["toolsUsed"] == ["echo_echo"]


def test_a_thinker_exits_when_its_hub_is_killed_and_the_next_hub_starts_one_on_the_same_port(
    tmp_path: Path, llm: FakeOpenAI
) -> None:
    port = free_port()
    config = write_agents(tmp_path / "agents.json", port=port, model="openai/fake", apiBase=llm.api_base)
    env = {**ENV, "AGENTS_CONFIG": str(config)}
    llm.default = Reply.text("Hello.")
    home = tmp_path / "home"
    first = start_hub(tmp_path, home, ["echo_mcp"], env=env)
    try:
        assert chat(first, "hi")["reply"] == "Hello."
        thinker_pid = agent_state(first)["pid"]
        assert thinker_pid and alive(thinker_pid)
        first.process.send_signal(signal.SIGKILL)  # no chance to stop its children
        first.process.wait(timeout=10)
        deadline = time.monotonic() + 15
        while alive(thinker_pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(thinker_pid), "the Thinker outlived its hub"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(first.process.pid, signal.SIGKILL)  # the MCP children of the killed hub, if any are left
    with start_hub(tmp_path, home, ["echo_mcp"], env=env) as second:
        assert chat(second, "hi again")["reply"] == "Hello."
        state = agent_state(second)
        assert state["url"] == f"http://127.0.0.1:{port}" and state["pid"] not in (None, thinker_pid)
