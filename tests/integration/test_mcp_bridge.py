"""`annabelle mcp` as a real process, driven by the MCP SDK's stdio client against a real hub (and a Thinker on the
fake LLM for `chat`): what Claude Desktop would see."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from tests.fakes.openai_server import FakeOpenAI
from tests.hub_process import REPO_ROOT, RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("bridge")
    env = {
        **fake_llm_agent_env(workdir, llm.api_base, bindings=[{"channel": "*", "agentId": "annabelle"}]),
        "EXTERNAL_MCPS_CONFIG": str(workdir / "none.json"),
    }
    with start_hub(workdir, workdir / "home", ["echo_mcp"], env=env) as running:
        yield running


@asynccontextmanager
async def bridge(hub: RunningHub, **env: str) -> AsyncIterator[Client]:
    """`annabelle mcp` started the way an MCP client starts it: a command with a few variables."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from orchestrator.cli import main; main()", "mcp"],
        cwd=str(REPO_ROOT),
        env={
            "ANNABELLE_HOME": str(hub.home),
            "ORCHESTRATOR_URL": hub.url,
            "ANNABELLE_ENV_FILE": os.environ["ANNABELLE_ENV_FILE"],  # never the developer's .env
            **env,
        },
    )
    async with Client(params, cache=None) as client:
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
