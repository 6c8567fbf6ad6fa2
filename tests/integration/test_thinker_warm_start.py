"""`THINKER_WARM_START`: the hub starts the default agent's Thinker once it is ready, before any message, so the
first message does not wait for a Thinker to start; off, the Thinker waits for the first message."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow


def agent(hub: RunningHub) -> dict[str, object]:
    with hub.client() as client:
        return client.get("/agents").json()["agents"][0]


def wait_for_state(hub: RunningHub, state: str, timeout: float = 90) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while (described := agent(hub))["state"] != state:
        assert time.monotonic() < deadline, f"the Thinker is {described['state']!r}, not {state!r}"
        time.sleep(0.2)
    return described


def test_a_ready_hub_starts_the_default_thinker_before_any_message(tmp_path: Path, llm: FakeOpenAI) -> None:
    env = {**fake_llm_agent_env(tmp_path, llm.api_base), "THINKER_WARM_START": "true"}
    with start_hub(tmp_path, tmp_path / "home", ["echo_mcp"], env=env) as hub:
        running = wait_for_state(hub, "running")
        assert running["pid"] is not None
        assert llm.requests == []  # started and warming, no model call
        llm.reply("Hello!")
        with hub.client() as client:
            answer = client.post("/message", json={"message": "hi"}, timeout=60).json()
        assert answer["reply"] == "Hello!"
        assert agent(hub)["pid"] == running["pid"]  # the message used the Thinker started ahead of it
    assert "thinker warm start" in hub.log()


def test_without_warm_start_the_thinker_waits_for_the_first_message(tmp_path: Path, llm: FakeOpenAI) -> None:
    env = {**fake_llm_agent_env(tmp_path, llm.api_base), "THINKER_WARM_START": "false"}
    with start_hub(tmp_path, tmp_path / "home", ["echo_mcp"], env=env) as hub:
        time.sleep(2)
        assert agent(hub)["state"] == "stopped"
