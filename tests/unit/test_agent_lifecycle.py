"""The agent manager's lifecycle with a stand-in Thinker (a tiny HTTP server): lazy start, idle
kill on an injected clock, lazy respawn, crash → restart with backoff, hung Thinkers killed, external agents,
cost-pause short-circuit and its one announcement. Real processes (tests/fakes/stub_thinker.py), each ready in a
fraction of a second."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from orchestrator.agents import AgentError, AgentManager, free_port
from orchestrator.agents.notices import pause_announcement
from orchestrator.backoff import RestartPolicy
from shared.agents import AgentsConfig

STUB_THINKER = Path(__file__).resolve().parent.parent / "fakes" / "stub_thinker.py"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


class RecordingNotifier:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str | None, str]] = []

    async def notify(self, text: str, *, chat_id: str | None = None, kind: str = "info") -> bool:
        self.sent.append((text, chat_id, kind))
        return True


def stub_command(agent: Any, port: int) -> list[str]:
    return [sys.executable, str(STUB_THINKER), str(port)]


def config(**agent: Any) -> AgentsConfig:
    return AgentsConfig.model_validate({"agents": [{"agentId": "a", "port": free_port(), **agent}]})


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def notifier() -> RecordingNotifier:
    return RecordingNotifier()


def make_manager(
    tmp_path: Path, clock: FakeClock, notifier: RecordingNotifier, agents: AgentsConfig, **env: str
) -> AgentManager:
    return AgentManager(
        agents,
        config_path=tmp_path / "agents.json",
        hub_url="http://127.0.0.1:1",
        default_port=free_port(),
        startup_timeout=10,
        environ={**os.environ, **env},
        home=tmp_path,
        notifier=notifier,  # type: ignore[arg-type]
        clock=clock,
        health_interval=3600,
        restart_policy=RestartPolicy(base_seconds=10, max_seconds=80, max_restarts=3, window_seconds=600),
        command=stub_command,
    )


@asynccontextmanager
async def running(agents: AgentManager) -> AsyncIterator[AgentManager]:
    # A task group cannot span a fixture's yield (set-up and tear-down run in different tasks): tests open it.
    async with anyio.create_task_group() as tasks:
        agents.attach(tasks)
        try:
            yield agents
        finally:
            await agents.stop()


@pytest.fixture
def manager(tmp_path: Path, clock: FakeClock, notifier: RecordingNotifier) -> AgentManager:
    return make_manager(tmp_path, clock, notifier, config(idleTimeoutMinutes=10))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "\nState:\tZ" in status.read_text())


async def wait_gone(pid: int, seconds: float = 5) -> bool:
    for _ in range(int(seconds / 0.05)):
        if not alive(pid):
            return True
        await anyio.sleep(0.05)
    return not alive(pid)


async def chat(agents: AgentManager, text: str) -> dict[str, Any]:
    return (await agents.process_message("a", text=text, chat_id="c", channel="http")).wire()


async def test_the_first_message_starts_the_thinker_and_later_ones_reuse_it(manager: AgentManager) -> None:
    async with running(manager):
        assert manager.describe()[0]["state"] == "stopped"
        first, second = await chat(manager, "hi"), await chat(manager, "again")
        assert first["response"] == "echo hi" and first["pid"] == second["pid"]
        described = manager.describe()[0]
        assert described["state"] == "running" and described["pid"] == first["pid"] and described["restarts"] == 0
        assert described["lastActivity"] is not None and described["idleKillInSeconds"] == 600


async def test_an_idle_thinker_is_killed_on_time_and_respawned_by_the_next_message(
    manager: AgentManager, clock: FakeClock
) -> None:
    async with running(manager):
        pid = (await chat(manager, "hi"))["pid"]
        assert await manager.reap_idle(clock.now + 599) == []
        clock.now += 601
        assert manager.describe()[0]["idleKillInSeconds"] == 0
        assert await manager.reap_idle() == ["a"]
        assert await wait_gone(pid)
        described = manager.describe()[0]
        assert described["state"] == "stopped" and described["pid"] is None and described["restarts"] == 0
        again = await chat(manager, "back")
        assert again["response"] == "echo back" and again["pid"] != pid


async def test_activity_postpones_the_idle_kill(manager: AgentManager, clock: FakeClock) -> None:
    async with running(manager):
        await chat(manager, "hi")
        clock.now += 500
        await chat(manager, "still here")
        clock.now += 500
        assert await manager.reap_idle() == []


async def test_a_crashed_thinker_is_restarted_after_a_backoff_that_grows(
    manager: AgentManager, clock: FakeClock
) -> None:
    async with running(manager):
        pid = (await chat(manager, "hi"))["pid"]
        with pytest.raises(AgentError):
            await chat(manager, "crash")
        assert await wait_gone(pid)
        await anyio.sleep(0.2)  # the exit is noticed by the output pump
        with pytest.raises(AgentError) as refused:
            await chat(manager, "too soon")
        assert "crashed" in str(refused.value) and "in 10 s" in str(refused.value)
        described = manager.describe()[0]
        assert described["state"] == "crashed" and described["restartInSeconds"] == 10
        clock.now += 10
        answer = await chat(manager, "after backoff")
        assert answer["response"] == "echo after backoff" and manager.describe()[0]["restarts"] == 1
        # A second crash soon after: the wait doubles.
        with pytest.raises(AgentError):
            await chat(manager, "crash")
        await anyio.sleep(0.3)
        with pytest.raises(AgentError, match="in 20 s"):
            await chat(manager, "too soon")


async def test_the_health_round_restarts_a_crashed_thinker_once_its_backoff_allows(
    manager: AgentManager, clock: FakeClock
) -> None:
    async with running(manager):
        await chat(manager, "hi")
        with pytest.raises(AgentError):
            await chat(manager, "crash")
        await anyio.sleep(0.3)
        await manager.check_health()
        assert manager.describe()[0]["state"] == "crashed"
        clock.now += 10
        await manager.check_health()
        described = manager.describe()[0]
        assert described["state"] == "running" and described["restarts"] == 1


async def test_a_thinker_that_cannot_start_is_not_hammered(
    tmp_path: Path, clock: FakeClock, notifier: RecordingNotifier
) -> None:
    agents = make_manager(tmp_path, clock, notifier, config(), STUB_MODE="exit")
    async with running(agents):
        with pytest.raises(AgentError, match="exited with code 2 while starting"):
            await chat(agents, "hi")
        with pytest.raises(AgentError, match="starts it again in 10 s"):
            await chat(agents, "hi")
        for _ in range(3):
            clock.now += 100
            with pytest.raises(AgentError, match="could not start"):
                await chat(agents, "hi")
        # The breaker: four crashes within the window and the hub waits the whole window.
        with pytest.raises(AgentError, match="in 600 s"):
            await chat(agents, "hi")


async def test_a_hung_thinker_is_killed_after_two_failed_health_checks(
    tmp_path: Path, clock: FakeClock, notifier: RecordingNotifier
) -> None:
    hang = tmp_path / "hang"
    agents = make_manager(tmp_path, clock, notifier, config(), STUB_HANG_FILE=str(hang))
    async with running(agents):
        pid = (await chat(agents, "hi"))["pid"]
        hang.touch()
        await agents.check_health()
        assert agents.describe()[0]["state"] == "running"
        await agents.check_health()
        assert await wait_gone(pid)
        described = agents.describe()[0]
        assert described["state"] == "crashed" and "health" in described["lastError"]


async def test_stopping_the_manager_closes_the_stdin_the_thinker_watches(manager: AgentManager) -> None:
    async with running(manager):
        pid = (await chat(manager, "hi"))["pid"]
        await manager.stop()
        assert await wait_gone(pid)


async def test_an_external_agent_is_called_and_health_checked_but_never_started(
    tmp_path: Path, clock: FakeClock, notifier: RecordingNotifier
) -> None:
    def thinker_app(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/health":
            return httpx.Response(200, json={"status": "ok"})
        body = json.loads(request.content)
        return httpx.Response(200, json={"success": True, "response": f"remote {body['text']}"})

    external = AgentsConfig.model_validate({"agents": [{"agentId": "a", "url": "http://thinker.test:8006"}]})
    agents = AgentManager(
        external,
        config_path=tmp_path / "agents.json",
        hub_url="http://127.0.0.1:1",
        default_port=1,
        startup_timeout=1,
        environ={},
        home=tmp_path,
        clock=clock,
        command=lambda agent, port: pytest.fail("an external agent must never be spawned"),
        transport=httpx.MockTransport(thinker_app),
    )
    assert agents.describe()[0]["state"] == "unknown" and agents.describe()[0]["external"] is True
    assert (await chat(agents, "hi"))["response"] == "remote hi"
    await agents.check_health()
    assert agents.describe()[0]["state"] == "running"
    assert await agents.reap_idle(clock.now + 10**6) == []
    await agents.stop()


async def test_a_cost_pause_is_announced_once_and_the_paused_agent_gets_no_messages(
    tmp_path: Path, clock: FakeClock, notifier: RecordingNotifier
) -> None:
    agents = make_manager(tmp_path, clock, notifier, config(costControls={"notifyChatId": "99"}))
    async with running(agents):
        tripped = await chat(agents, "expensive")
        assert tripped["paused"] is True and tripped["response"] == "costly"
        refused = await chat(agents, "hello?")
        assert refused == {
            "success": False,
            "paused": True,
            "error": "The agent 'a' is paused by its cost controls. It answers nothing until resumed: send /resume "
            "or POST /agents/a/resume.",
            "response": "",
            "toolsUsed": [],
            "totalSteps": 0,
        }
        await anyio.sleep(0.3)
        assert len(notifier.sent) == 1
        text, chat_id, kind = notifier.sent[0]
        assert (chat_id, kind) == ("99", "cost_pause")
        assert "260,000 of a 250,000 cap" in text and "9,000 tokens/min against a baseline of 1,200" in text
        assert agents.describe()[0]["paused"] is True
        assert (await agents.resume("a", reset_window=True)).success is True
        assert (await chat(agents, "hello"))["response"] == "echo hello"
        await chat(agents, "expensive")
        await anyio.sleep(0.3)
        assert len(notifier.sent) == 2  # a new pause, a new announcement
        assert await agents.resume_paused() == ["a"]


async def test_a_budget_stop_the_thinker_marks_notify_is_announced_once_and_the_agent_stays_usable(
    tmp_path: Path, clock: FakeClock, notifier: RecordingNotifier
) -> None:
    agents = make_manager(tmp_path, clock, notifier, config(costControls={"notifyChatId": "99"}))
    async with running(agents):
        first = await chat(agents, "over budget")
        second = await chat(agents, "over budget")
        assert first["errorCode"] == second["errorCode"] == "BUDGET_EXCEEDED"
        assert first["budget"]["notify"] is True and second["budget"].get("notify", False) is False
        await anyio.sleep(0.3)
        [(text, chat_id, kind)] = notifier.sent
        assert (chat_id, kind) == ("99", "budget")
        assert text.startswith("The agent 'a' reached a budget; no more model calls for it until the limit resets.")
        assert "the daily budget of the agent a (1,000 tokens)" in text
        assert agents.describe()[0]["paused"] is False  # a budget is not a pause: the next window just works
        assert (await chat(agents, "hello"))["response"] == "echo hello"


def test_the_pause_announcement_without_figures_still_says_how_to_resume() -> None:
    text = pause_announcement("work", None, "Spike detected.")
    assert text == (
        "The agent 'work' is paused by its cost controls: Spike detected. It answers no messages until resumed: "
        "send /resume or POST /agents/work/resume."
    )


def test_agents_without_a_port_share_thinker_port_only_once(tmp_path: Path) -> None:
    both = AgentsConfig.model_validate({"agents": [{"agentId": "a"}, {"agentId": "b"}, {"agentId": "c", "port": 0}]})
    agents = AgentManager(
        both,
        config_path=tmp_path / "agents.json",
        hub_url="http://127.0.0.1:1",
        default_port=8006,
        startup_timeout=1,
        environ={},
        home=tmp_path,
    )
    urls = [agent["url"] for agent in agents.describe()]
    assert urls[0] == "http://127.0.0.1:8006" and len(set(urls)) == 3
