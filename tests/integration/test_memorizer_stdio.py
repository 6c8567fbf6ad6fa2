"""The Memorizer as a real process: `python -m memorizer_mcp` spoken to over stdio, as the hub spawns it."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def test_the_spawned_server_lists_31_tools_round_trips_a_fact_and_survives_an_absent_model(
    annabelle_home: Path, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "ANNABELLE_HOME": str(annabelle_home),
        "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
        "EMBEDDING_PROVIDER": "none",
        # An unreachable model: litellm gets imported and fails inside the process, and must print nothing.
        "UTILITY_MODEL": "openai/absent",
        "UTILITY_API_BASE": f"http://127.0.0.1:{closed_port()}/v1",
        "UTILITY_API_KEY": "test",
    }
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "memorizer_mcp"], env=env, cwd=str(REPO_ROOT)
    )
    async with Client(parameters) as client:
        tools = (await client.list_tools()).tools
        stored = envelope(await client.call_tool("store_fact", {"fact": "Prefers dark mode", "category": "preference"}))
        found = envelope(await client.call_tool("retrieve_memories", {"query": "dark mode"}))
        refused = envelope(await client.call_tool("store_fact", {"fact": "pwd=abc", "category": "preference"}))
        exchange = {"user_message": "I started learning the cello this autumn", "agent_response": "How exciting!"}
        logged = envelope(await client.call_tool("store_conversation", exchange))
        after = envelope(await client.call_tool("get_memory_stats", {}))
    assert len(tools) == 31
    assert stored["success"] is True
    assert [f["fact"] for f in found["data"]["facts"]] == ["Prefers dark mode"]
    assert found["data"]["search_mode"] == "fts"
    assert refused["errorCode"] == "INVALID_ARGUMENTS"
    assert logged["data"]["extraction"]["status"] == "skipped"
    assert "openai/absent" in logged["data"]["extraction"]["reason"]
    assert after["data"]["conversation_count"] == 1
    assert (annabelle_home / "data" / "memory.db").is_file()
    log_lines = (annabelle_home / "logs" / "memorizer.log").read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["msg"] == "memorizer ready" for line in log_lines)
