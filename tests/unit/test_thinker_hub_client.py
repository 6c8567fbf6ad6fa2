"""The hub client (thinker/hub_tools.py) over httpx.MockTransport: token, cache TTL, refresh, errors."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from thinker.hub_tools import HubTools, HubUnavailable


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeHub:
    def __init__(self) -> None:
        self.tools = ["echo_echo"]
        self.requests: list[httpx.Request] = []
        self.down = False
        self.call_answer: Any = {"success": True, "data": {"ok": 1}}
        self.status = 200

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.down:
            raise httpx.ConnectError("refused", request=request)
        if request.url.path == "/tools/list":
            tools = [{"name": n, "description": n, "inputSchema": {"type": "object"}} for n in self.tools]
            mcps = {"echo": {"label": "Echo", "toolGroup": "T", "keywords": [], "toolCount": 1, "available": True}}
            return httpx.Response(self.status, json={"tools": tools, "mcps": mcps})
        return httpx.Response(self.status, json=self.call_answer)

    def lists(self) -> int:
        return sum(r.url.path == "/tools/list" for r in self.requests)


@pytest.fixture
def hub() -> FakeHub:
    return FakeHub()


def client(hub: FakeHub, clock: Clock, token: str | None = "agent-token") -> HubTools:
    return HubTools(
        "http://hub.test", lambda: token, agent_id="a", ttl=60, clock=clock, transport=httpx.MockTransport(hub)
    )


async def test_every_request_carries_the_agent_token(hub: FakeHub) -> None:
    c = client(hub, Clock())
    await c.catalog()
    await c.call("echo_echo", {"text": "x"})
    assert all(r.headers["X-Annabelle-Token"] == "agent-token" for r in hub.requests)
    assert json.loads(hub.requests[-1].content) == {"name": "echo_echo", "arguments": {"text": "x"}}
    await c.aclose()


async def test_the_tool_list_is_reused_for_60_seconds_then_fetched_again(hub: FakeHub) -> None:
    clock = Clock()
    c = client(hub, clock)
    await c.catalog()
    clock.now = 59
    await c.catalog()
    assert hub.lists() == 1
    clock.now = 61
    hub.tools = ["echo_echo", "echo_sleep"]
    catalog = await c.catalog()
    assert hub.lists() == 2 and catalog.has("echo_sleep")
    await c.aclose()


async def test_an_unknown_tool_answer_refreshes_the_list_at_once(hub: FakeHub) -> None:
    c = client(hub, Clock())
    first = await c.catalog()
    hub.call_answer = {"success": False, "error": "Unknown tool: echo_echo.", "errorCode": "UNKNOWN_TOOL"}
    hub.tools = []
    envelope = await c.call("echo_echo", {})
    assert envelope["errorCode"] == "UNKNOWN_TOOL"
    second = await c.catalog()
    assert hub.lists() == 2 and not second.has("echo_echo")
    assert first.fingerprint != second.fingerprint
    await c.aclose()


async def test_a_hub_that_is_down_gives_an_envelope_for_calls(hub: FakeHub) -> None:
    hub.down = True
    c = client(hub, Clock())
    envelope = await c.call("echo_echo", {})
    assert envelope["success"] is False and envelope["errorCode"] == "MCP_UNAVAILABLE"
    assert "http://hub.test is not reachable" in envelope["error"]
    assert not c.connected
    await c.aclose()


async def test_a_hub_that_is_down_keeps_the_previous_list_or_says_so(hub: FakeHub) -> None:
    clock = Clock()
    c = client(hub, clock)
    with pytest.raises(HubUnavailable, match="ORCHESTRATOR_URL"):
        hub.down = True
        await c.catalog()
    hub.down = False
    kept = await c.catalog()
    hub.down = True
    clock.now = 120
    assert (await c.catalog()) is kept
    await c.aclose()


async def test_a_refused_token_is_explained(hub: FakeHub) -> None:
    hub.status = 401
    c = client(hub, Clock())
    with pytest.raises(HubUnavailable, match="ANNABELLE_AGENT_TOKEN"):
        await c.catalog()
    envelope = await c.call("echo_echo", {})
    assert envelope["errorCode"] == "NOT_ALLOWED"
    await c.aclose()


async def test_a_non_envelope_answer_becomes_a_tool_error(hub: FakeHub) -> None:
    hub.status = 500
    hub.call_answer = {"error": "boom"}
    c = client(hub, Clock())
    envelope = await c.call("echo_echo", {})
    assert envelope == {
        "success": False,
        "error": "The hub answered HTTP 500 to the call to echo_echo: boom",
        "errorCode": "TOOL_ERROR",
    }
    await c.aclose()
