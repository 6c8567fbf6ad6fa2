"""`annabelle mcp` in process: the bridge server against a scripted hub (httpx MockTransport)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.server.subscriptions import ToolsListChanged
from mcp.types import TextContent, Tool

from orchestrator.mcp_bridge import ToolListWatch, build_server
from shared.hub_client import HubClient

TOOLS = {
    "tools": [
        {"name": "get_status", "description": "Hub status.", "inputSchema": {"type": "object", "properties": {}}},
        {
            "name": "echo_echo",
            "description": "[Echo | Testing] Send the text back.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        },
    ],
    "mcps": {},
}


class ScriptedHub:
    """Answers the hub's endpoints; records each request."""

    def __init__(self, answers: dict[str, Any] | None = None, status: int = 200) -> None:
        self.answers = {"/tools/list": TOOLS, **(answers or {})}
        self.status = status
        self.requests: list[tuple[str, str, Any, str | None]] = []

    @property
    def posts(self) -> list[tuple[str, Any]]:
        # The SDK client may list tools again around a call (to check results), so calls are picked out.
        return [(path, body) for method, path, body, _ in self.requests if method == "POST"]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        self.requests.append((request.method, request.url.path, body, request.headers.get("X-Annabelle-Token")))
        return httpx.Response(self.status, json=self.answers.get(request.url.path, {"error": "no"}))


def bridge(hub: ScriptedHub, token: str | None = "tok") -> Client:
    connection = HubClient("http://hub.test", lambda: token, transport=httpx.MockTransport(hub))
    return Client(build_server(connection, lambda: token))


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def test_the_bridge_lists_chat_and_every_hub_tool_with_its_schema() -> None:
    hub = ScriptedHub()
    async with bridge(hub) as client:
        tools = (await client.list_tools()).tools
    assert [tool.name for tool in tools] == ["chat", "get_status", "echo_echo"]
    assert tools[2].input_schema["required"] == ["text"]
    assert hub.requests[0][1:] == ("/tools/list", None, "tok")


async def test_a_call_is_forwarded_and_the_envelope_becomes_content() -> None:
    hub = ScriptedHub({"/tools/call": {"success": True, "data": {"text": "hi"}}})
    async with bridge(hub) as client:
        result = await client.call_tool("echo_echo", {"text": "hi"})
    assert not result.is_error and json.loads(text(result)) == {"text": "hi"}
    assert hub.posts == [("/tools/call", {"name": "echo_echo", "arguments": {"text": "hi"}})]


async def test_a_failed_or_blocked_call_is_an_error_result_with_the_hubs_sentence() -> None:
    envelope = {
        "success": False,
        "error": "Input blocked by Guardian: prompt_injection detected",
        "errorCode": "BLOCKED",
    }
    async with bridge(ScriptedHub({"/tools/call": envelope})) as client:
        result = await client.call_tool("filer_read_file", {"path": "x"})
    assert result.is_error and text(result) == "Input blocked by Guardian: prompt_injection detected (BLOCKED)"


async def test_chat_posts_to_message_and_answers_with_the_reply() -> None:
    hub = ScriptedHub({"/message": {"success": True, "reply": "Hello!", "agentId": "annabelle"}})
    async with bridge(hub) as client:
        result = await client.call_tool("chat", {"message": "hi there"})
    assert not result.is_error and text(result) == "Hello!"
    assert hub.posts == [("/message", {"message": "hi there", "chatId": "mcp"})]


async def test_chat_that_the_agent_cannot_answer_is_an_error_result() -> None:
    hub = ScriptedHub({"/message": {"success": False, "paused": True, "error": "The agent is paused."}})
    async with bridge(hub) as client:
        result = await client.call_tool("chat", {"message": "hi"})
        empty = await client.call_tool("chat", {"message": " "})
    assert result.is_error and text(result) == "The agent is paused."
    assert empty.is_error and "non-empty 'message'" in text(empty)


async def test_without_a_token_the_bridge_still_lists_chat_and_says_how_to_get_one() -> None:
    async with bridge(ScriptedHub(), token=None) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == ["chat"]
        result = await client.call_tool("get_status", {})
    assert result.is_error and "ANNABELLE_TOKEN" in text(result)


async def test_a_rejected_token_is_named() -> None:
    async with bridge(ScriptedHub(status=401)) as client:
        result = await client.call_tool("get_status", {})
    assert result.is_error and "rejected the token" in text(result)


async def test_a_hub_that_is_not_running_says_how_to_start_it() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    connection = HubClient("http://hub.test", lambda: "t", transport=httpx.MockTransport(refuse))
    async with Client(build_server(connection, lambda: "t")) as client:
        result = await client.call_tool("chat", {"message": "hi"})
    assert result.is_error and "not running at http://hub.test" in text(result) and "annabelle up" in text(result)


def tools(*names: str) -> list[Tool]:
    return [Tool(name=name, input_schema={"type": "object"}) for name in names]


@pytest.mark.parametrize(
    ("given", "then_hub", "told"),
    [
        (None, [tools("chat", "echo_echo")], [False]),  # the first look is only the baseline
        (tools("chat", "echo_echo"), [tools("chat", "echo_echo")], [False]),
        (tools("chat"), [tools("chat", "echo_echo")], [True]),
        (tools("chat"), [tools("chat", "echo_echo"), tools("chat", "echo_echo")], [True, False]),  # once per change
        (tools("chat", "a"), [tools("chat", "b"), tools("chat", "a")], [True, True]),
    ],
)
async def test_the_client_is_told_once_for_each_change_from_the_list_it_was_given(
    given: list[Tool] | None, then_hub: list[list[Tool]], told: list[bool]
) -> None:
    watch = ToolListWatch()
    events: list[object] = []
    watch.bus.subscribe(events.append)
    if given is not None:
        watch.listed(given, None)
    assert [await watch.compare(listing) for listing in then_hub] == told
    assert events == [ToolsListChanged()] * sum(told)
