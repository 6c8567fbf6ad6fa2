"""End to end: an external MCP added to external-mcps.json while the hub and its Thinker run reaches the LLM.

Real hub, real Thinker, the fake LLM: chat once, add the test suite's external server to the file, wait until
`/tools/list` shows its tool, chat again, and the model is offered the new tool (the Thinker's tool cache is a
second long here, so its refresh fetches the hub's new list).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import REPO_ROOT, RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow


def write_config(path: Path, servers: dict[str, Any]) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps({"mcpServers": servers}))
    partial.replace(path)


def wait_for(condition: Callable[[], bool], hub: RunningHub, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, hub.log()
        time.sleep(0.05)


def chat(hub: RunningHub, text: str) -> dict[str, Any]:
    with hub.client() as client:
        response = client.post("/message", json={"message": text, "chatId": "refresh"}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def tool_names(hub: RunningHub) -> set[str]:
    with hub.client() as client:
        return {tool["name"] for tool in client.get("/tools/list").json()["tools"]}


def test_the_thinker_is_offered_a_tool_of_an_external_mcp_added_while_it_runs(tmp_path: Path) -> None:
    config = tmp_path / "external-mcps.json"
    write_config(config, {})
    with FakeOpenAI() as llm:
        env = {
            **fake_llm_agent_env(tmp_path, llm.api_base),
            "EXTERNAL_MCPS_CONFIG": str(config),
            "EXTERNAL_MCPS_POLL_SECONDS": "0.1",
            "EXTERNAL_MCPS_DEBOUNCE_SECONDS": "0.1",
            "THINKER_TOOL_CACHE_SECONDS": "1",
            "GUARDIAN_FAIL_MODE": "open",
            "DIAGNOSE_INTERVAL_MINUTES": "0",
        }
        with start_hub(tmp_path, tmp_path / "home", ["echo_mcp"], env=env) as hub:
            llm.reply("Hello.")
            assert chat(hub, "please greet Ann for me")["reply"] == "Hello."
            assert not any(name.startswith("greeter_") for name in llm.requests[0].tool_names)

            entry = {
                "command": sys.executable,
                "args": ["-m", "tests.mcps.external_mcp"],
                "cwd": str(REPO_ROOT),
                "guardianScan": {"input": False, "output": False},
                "label": "Greeter",
                "toolGroup": "Greetings",
                "keywords": ["greet", "greeting", "hello"],
            }
            write_config(config, {"greeter": entry})
            wait_for(lambda: "greeter_greet" in tool_names(hub), hub)
            time.sleep(1.2)  # past the Thinker's tool cache

            llm.reply(Reply.tool("greeter_greet", {"name": "Ann"}), "I greeted Ann.")
            answer = chat(hub, "please greet Ann for me")
            assert answer["success"] is True and answer["reply"] == "I greeted Ann.", answer
            assert "greeter_greet" in llm.requests[1].tool_names
            assert answer["toolsUsed"] == ["greeter_greet"]
            shown = next(m for m in llm.requests[2].messages if m["role"] == "tool")["content"]
            # An external MCP is untrusted: its result reaches the model inside the data delimiters.
            assert shown.startswith('<untrusted-data source="greeter_greet">\n')
            tool_result = json.loads(shown.split("\n")[1])
            assert tool_result["data"] == {"result": "Hello, Ann!"}
