"""A slow model (thinker/loop.py's turn deadline): the time of a turn is the agent's `turnTimeoutSeconds`.

The model here is a completion function that moves an injected clock by how long it "takes" per call and, like
litellm, gives up with a timeout when that is longer than the call's `timeout`; nothing sleeps. Scale: the
60-second model of issue 18 against the Thinker's defaults (90 s per call, 300 s per turn).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from shared.agents import AgentDefinition, turn_wait
from shared.contracts.hub_api import ToolListing
from shared.litellm_loader import ModelEndpoint
from thinker.catalog import catalog_of
from thinker.cost import CostMonitor
from thinker.hub_tools import HubTools
from thinker.llm import ModelClient
from thinker.loop import AgentLoop, StopReason, TurnDeadline, too_slow
from thinker.sessions.messages import system_message, user_message
from thinker.tiers import ToolSet

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}
LISTING = {
    "tools": [
        {"name": "echo_echo", "description": "Echo", "inputSchema": SCHEMA},
        {"name": "spawn_subagent", "description": "Delegate", "inputSchema": {"type": "object", "properties": {}}},
    ],
    "mcps": {"echo": {"label": "Echo", "toolGroup": "Testing", "toolCount": 1}},
}
CATALOG = catalog_of(ToolListing.model_validate(LISTING))
START = [system_message("You are a test."), user_message("echo hi")]


class Timeout(Exception):
    """Named like litellm's timeout error: the client recognises it by its name."""


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


class SlowModel:
    """Answers scripted replies, each after `seconds` of the injected clock; a call whose time limit is shorter
    gives up at its limit, as litellm does."""

    def __init__(self, clock: Clock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds
        self.replies: list[dict[str, Any]] = []
        self.limits: list[float] = []

    def call(self, name: str, arguments: dict[str, Any]) -> SlowModel:
        call = {"id": f"c{len(self.replies)}", "function": {"name": name, "arguments": json.dumps(arguments)}}
        return self._add({"role": "assistant", "content": None, "tool_calls": [call]})

    def text(self, content: str) -> SlowModel:
        return self._add({"role": "assistant", "content": content})

    def _add(self, message: dict[str, Any]) -> SlowModel:
        usage = {"prompt_tokens": 1_500, "completion_tokens": 20}
        self.replies.append({"choices": [{"message": message, "finish_reason": "stop"}], "usage": usage})
        return self

    async def __call__(self, **kwargs: Any) -> Any:
        self.limits.append(kwargs["timeout"])
        if self.seconds > kwargs["timeout"]:
            self.clock.now += kwargs["timeout"]
            raise Timeout("Request timed out.")
        self.clock.now += self.seconds
        return self.replies.pop(0)


class Hub:
    def __init__(self, clock: Clock, seconds: float = 0.0) -> None:
        self.clock = clock
        self.seconds = seconds
        self.calls: list[str] = []
        self.read_timeouts: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls.append(json.loads(request.content)["name"])
        self.read_timeouts.append(request.extensions["timeout"]["read"])
        self.clock.now += self.seconds
        return httpx.Response(200, json={"success": True, "data": {"ok": True}})


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_loop(model: SlowModel, hub: Hub, clock: Clock, cost: CostMonitor | None = None) -> AgentLoop:
    endpoint = ModelEndpoint("openai/slow", "http://127.0.0.1:9/v1", "k", timeout=90.0)
    client = ModelClient(endpoint, completion=model, usage=cost, clock=clock)
    hub_client = HubTools("http://hub.test", lambda: "t", agent_id="bob", transport=httpx.MockTransport(hub))
    return AgentLoop(client, hub_client, agent_id="bob", clock=clock)


def tools() -> ToolSet:
    return ToolSet(CATALOG, ["echo_echo", "spawn_subagent"])


async def test_a_model_taking_60_seconds_a_call_finishes_a_three_call_turn(clock: Clock) -> None:
    model = SlowModel(clock, 60).call("echo_echo", {"text": "a"}).call("echo_echo", {"text": "b"}).text("Done.")
    hub = Hub(clock)
    result = await make_loop(model, hub, clock).run(START, tools(), deadline=TurnDeadline.starting(clock(), 300))
    assert result.success and result.response == "Done." and result.steps == 3
    # Each call may take its own limit (90 s) as long as the turn has that much left.
    assert model.limits == [90.0, 90.0, 90.0]
    assert hub.calls == ["echo_echo", "echo_echo"]


async def test_the_last_call_gets_only_what_is_left_of_the_turn(clock: Clock) -> None:
    model = SlowModel(clock, 60).call("echo_echo", {"text": "a"}).text("Done.")
    result = await make_loop(model, Hub(clock, seconds=5), clock).run(
        START, tools(), deadline=TurnDeadline.starting(clock(), 130)
    )
    assert result.success
    assert model.limits == [90.0, 65.0]


async def test_a_turn_that_runs_out_of_time_says_the_model_is_too_slow_in_one_sentence(clock: Clock) -> None:
    model = SlowModel(clock, 60).call("echo_echo", {"text": "a"}).call("echo_echo", {"text": "b"}).text("Done.")
    hub = Hub(clock)
    result = await make_loop(model, hub, clock).run(START, tools(), deadline=TurnDeadline.starting(clock(), 100))
    assert result.stop is StopReason.TIME_LIMIT and not result.success and result.response == ""
    assert result.error == (
        "The model openai/slow at http://127.0.0.1:9/v1 is too slow for this agent's limits: its 2 calls in this "
        "turn took 100 s, and a turn may take 100 s (turnTimeoutSeconds in agents.json); raise that limit, lower "
        "maxSteps, or use a faster model (before that it used echo_echo)."
    )
    assert model.limits == [90.0, 40.0]
    assert hub.calls == ["echo_echo"]
    # Nothing the user never saw is kept as an answer of the agent.
    assert [m["role"] for m in result.messages] == ["assistant", "tool"]


async def test_a_model_slower_than_its_own_call_limit_gets_the_call_limit_sentence(clock: Clock) -> None:
    model = SlowModel(clock, 120).text("late")
    result = await make_loop(model, Hub(clock), clock).run(START, tools(), deadline=TurnDeadline.starting(clock(), 600))
    assert result.stop is StopReason.MODEL_ERROR
    assert "did not answer within 90 s: raise THINKER_LLM_TIMEOUT_SECONDS" in (result.error or "")


async def test_a_turn_whose_time_is_gone_calls_neither_model_nor_tools(clock: Clock) -> None:
    model = SlowModel(clock, 1).text("never")
    result = await make_loop(model, Hub(clock), clock).run(START, tools(), deadline=TurnDeadline(clock() - 1, 300))
    assert result.stop is StopReason.TIME_LIMIT and model.limits == []
    assert "the turn's time was gone before it could be asked" in (result.error or "")


async def test_tool_calls_wait_at_most_for_what_is_left_of_the_turn(clock: Clock) -> None:
    model = SlowModel(clock, 50).call("echo_echo", {"text": "a"}).text("Done.")
    hub = Hub(clock)
    await make_loop(model, hub, clock).run(START, tools(), deadline=TurnDeadline.starting(clock(), 100))
    assert hub.read_timeouts == [50.0]


async def test_a_subagent_call_moves_the_deadline_by_its_own_limit(clock: Clock) -> None:
    model = SlowModel(clock, 60).call("spawn_subagent", {"task": "x", "timeoutMinutes": 2}).text("It is done.")
    hub = Hub(clock, seconds=200)  # the subagent works for 200 s, longer than the whole turn's 100 s
    result = await make_loop(model, hub, clock).run(START, tools(), deadline=TurnDeadline.starting(clock(), 100))
    assert result.success and result.response == "It is done."
    # The subagent's own limit (2 minutes and its start), not the 40 s the turn had left.
    assert hub.read_timeouts == [2 * 60 + 120]


async def test_slow_calls_are_counted_once_each_by_the_cost_monitor(clock: Clock) -> None:
    cost = CostMonitor(AgentDefinition(agentId="bob").costControls)
    model = SlowModel(clock, 60).call("echo_echo", {"text": "a"}).text("Done.")
    await make_loop(model, Hub(clock), clock, cost).run(START, tools(), deadline=TurnDeadline.starting(clock(), 300))
    status = cost.status()
    assert status.currentHourTokens == 2 * 1_520 and not status.paused


def test_the_hub_waits_for_the_agents_turn_time_plus_a_grace() -> None:
    slow = AgentDefinition(agentId="local", turnTimeoutSeconds=900)
    assert turn_wait(slow) == 930.0
    assert turn_wait(AgentDefinition(agentId="hosted")) == 330.0


@pytest.mark.parametrize(
    ("calls", "seconds", "used", "expected"),
    [
        (1, 95.4, (), "its 1 call in this turn took 95 s, and a turn may take 90 s"),
        (0, 0.0, (), "the turn's time was gone before it could be asked, and a turn may take 90 s"),
        (3, 91.0, ("a", "b"), "or use a faster model (before that it used a, b)."),
    ],
)
def test_the_too_slow_sentence(calls: int, seconds: float, used: tuple[str, ...], expected: str) -> None:
    sentence = too_slow("openai/m", calls, seconds, 90, used)
    assert expected in sentence and sentence.count(". ") == 0
