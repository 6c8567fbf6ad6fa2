"""`annabelle mcp` as a real process, driven by the MCP SDK's stdio client against a real hub (and a Thinker on the
fake LLM for `chat`): what Claude Desktop would see."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.client import ConnectMode
from mcp.client.session import IncomingMessage, MessageHandlerFnT
from mcp.client.subscriptions import ToolsListChanged
from mcp.types import TextContent, ToolListChangedNotification
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes.loopback import LoopbackServer
from tests.fakes.openai_server import FakeOpenAI
from tests.hub_process import REPO_ROOT, RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("bridge")
    write_externals(workdir / "external-mcps.json", {})
    env = {
        **fake_llm_agent_env(workdir, llm.api_base, bindings=[{"channel": "*", "agentId": "annabelle"}]),
        "EXTERNAL_MCPS_CONFIG": str(workdir / "external-mcps.json"),
        "EXTERNAL_MCPS_POLL_SECONDS": "0.1",
        "EXTERNAL_MCPS_DEBOUNCE_SECONDS": "0.1",
    }
    with start_hub(workdir, workdir / "home", ["echo_mcp"], env=env) as running:
        yield running


def write_externals(path: Path, servers: dict[str, Any]) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps({"mcpServers": servers}))
    partial.replace(path)


GREETER = {
    "command": sys.executable,
    "args": ["-m", "tests.mcps.external_mcp"],
    "cwd": str(REPO_ROOT),
    "guardianScan": {"input": False, "output": False},
}


@asynccontextmanager
async def bridge(
    hub: RunningHub, *, mode: ConnectMode = "auto", on_message: MessageHandlerFnT | None = None, **env: str
) -> AsyncIterator[Client]:
    """`annabelle mcp` started the way an MCP client starts it: a command with a few variables."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from orchestrator.cli import main; main()", "mcp"],
        cwd=str(REPO_ROOT),
        env={
            "ANNABELLE_HOME": str(hub.home),
            "ORCHESTRATOR_URL": hub.url,
            "ANNABELLE_ENV_FILE": os.environ["ANNABELLE_ENV_FILE"],  # never the developer's .env
            "MCP_BRIDGE_POLL_SECONDS": "0.2",
            **env,
        },
    )
    async with Client(params, cache=None, mode=mode, message_handler=on_message) as client:
        yield client


def text(result: object) -> str:
    return "\n".join(block.text for block in getattr(result, "content", []) if isinstance(block, TextContent))


async def test_the_bridge_lists_the_hubs_tools_and_chat(hub: RunningHub) -> None:
    async with bridge(hub) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {"chat", "get_status", "echo_echo"} <= set(tools)
    assert "echo_delete_everything" not in tools
    assert tools["echo_echo"].input_schema["required"] == ["text"]
    assert tools["echo_echo"].description.startswith("[Echo | Testing]")


async def test_a_tool_call_goes_through_the_hub(hub: RunningHub) -> None:
    async with bridge(hub) as client:
        result = await client.call_tool("echo_echo", {"text": "via mcp", "repeat": 2})
        unknown = await client.call_tool("echo_ecko", {})
    assert not result.is_error and json.loads(text(result))["text"] == "via mcpvia mcp"
    assert unknown.is_error and "UNKNOWN_TOOL" in text(unknown) and "echo_echo" in text(unknown)


async def test_chat_is_answered_by_the_assistant(hub: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply("Hello from Annabelle.")
    async with bridge(hub) as client:
        result = await client.call_tool("chat", {"message": "hi, who are you?"})
    assert not result.is_error, text(result)
    assert text(result) == "Hello from Annabelle."
    assert any("hi, who are you?" in json.dumps(request.messages) for request in llm.requests)


async def test_a_wrong_token_is_named_and_the_bridge_keeps_serving(hub: RunningHub) -> None:
    async with bridge(hub, ANNABELLE_TOKEN="wrong") as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("echo_echo", {"text": "x"})
    assert tools == ["chat"]
    assert result.is_error and "rejected the token" in text(result)


async def test_nothing_but_json_rpc_is_written_on_stdout(hub: RunningHub) -> None:
    # The SDK client would fail on a stray line; the bridge's own log lands in its log file instead.
    async with bridge(hub) as client:
        await client.call_tool("get_status", {})
    assert (hub.home / "logs" / "mcp-bridge.log").read_text().count("mcp bridge starting") >= 1


@asynccontextmanager
async def external_added(hub: RunningHub) -> AsyncIterator[None]:
    """The test suite's external server is in external-mcps.json (as `greeter`) for the block, then removed."""
    config = hub.home.parent / "external-mcps.json"
    write_externals(config, {"greeter": GREETER})
    try:
        yield
    finally:
        write_externals(config, {})


async def test_a_2025_client_is_told_when_an_external_mcp_is_added_and_then_lists_its_tool(hub: RunningHub) -> None:
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    async with bridge(hub, mode="legacy", on_message=on_message) as client:
        capabilities = client.server_capabilities.tools
        assert capabilities is not None and capabilities.list_changed is True
        before = {tool.name for tool in (await client.list_tools()).tools}
        async with external_added(hub):
            with anyio.fail_after(30):
                await changed.wait()
            after = {tool.name for tool in (await client.list_tools()).tools}
            changed = anyio.Event()
        with anyio.fail_after(30):
            await changed.wait()  # and told again when it is removed
        removed = {tool.name for tool in (await client.list_tools()).tools}
    assert "greeter_greet" not in before and "greeter_greet" in after and "greeter_greet" not in removed


async def test_a_2026_client_listening_for_tool_changes_is_told_when_an_external_mcp_is_added(hub: RunningHub) -> None:
    async with bridge(hub) as client:
        capabilities = client.server_capabilities.tools
        assert capabilities is not None and capabilities.list_changed is True
        assert "greeter_greet" not in {tool.name for tool in (await client.list_tools()).tools}
        async with client.listen(tools_list_changed=True) as subscription, external_added(hub):
            with anyio.fail_after(30):
                event = await anext(subscription)
            assert isinstance(event, ToolsListChanged)
            assert "greeter_greet" in {tool.name for tool in (await client.list_tools()).tools}


class ScriptedHub(LoopbackServer):
    """A hub whose `GET /tools/list` answers what the test says: a list, or one the bridge cannot read."""

    name = "scripted-hub"

    def __init__(self) -> None:
        super().__init__()
        self.listing: Any = {"tools": [GOOD_TOOL]}
        self.served_broken = 0
        self.broken_thrice = threading.Event()  # set from the server's thread

        async def tools_list(_: Request) -> JSONResponse:
            if self.listing is BROKEN:
                self.served_broken += 1
                if self.served_broken >= 3:
                    self.broken_thrice.set()
            return JSONResponse(self.listing)

        self.app = Starlette(routes=[Route("/tools/list", tools_list)])


GOOD_TOOL = {"name": "echo_echo", "description": "Echo.", "inputSchema": {"type": "object"}}
BROKEN = {"tools": [{"name": "no_schema"}]}  # a tool without `inputSchema`: the bridge cannot build it


async def test_a_tool_list_the_bridge_cannot_read_is_logged_and_polling_goes_on(tmp_path: Path) -> None:
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    home = tmp_path / "home"
    with ScriptedHub() as fake:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", "from orchestrator.cli import main; main()", "mcp"],
            cwd=str(REPO_ROOT),
            env={
                "ANNABELLE_HOME": str(home),
                "ANNABELLE_TOKEN": "scripted-token",
                "ORCHESTRATOR_URL": fake.url,
                "ANNABELLE_ENV_FILE": os.environ["ANNABELLE_ENV_FILE"],
                "MCP_BRIDGE_POLL_SECONDS": "0.1",
            },
        )
        async with Client(params, cache=None, mode="legacy", message_handler=on_message) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["chat", "echo_echo"]
            fake.listing = BROKEN
            assert await anyio.to_thread.run_sync(fake.broken_thrice.wait, 30)
            fake.listing = {"tools": [GOOD_TOOL, {**GOOD_TOOL, "name": "echo_twice"}]}
            with anyio.fail_after(30):
                await changed.wait()  # the poll outlived the lists it could not read
            assert [tool.name for tool in (await client.list_tools()).tools] == ["chat", "echo_echo", "echo_twice"]
    log_text = (home / "logs" / "mcp-bridge.log").read_text()
    assert "reading the hub's tool list failed; trying again at the next poll" in log_text
    assert "KeyError: 'inputSchema'" in log_text
