"""The Memorizer as a real process: `python -m memorizer_mcp` spoken to over stdio, as the hub spawns it."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.fakes.openai_server import FakeOpenAI

pytestmark = pytest.mark.slow
pytest_plugins = ["tests.fakes.fixtures"]

REPO_ROOT = Path(__file__).resolve().parents[2]


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def test_the_spawned_server_lists_34_tools_round_trips_a_fact_and_survives_an_absent_model(
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
    assert len(tools) == 34  # the original 31 and three for the hub (get_fact, get_contact, compare_request)
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


async def test_the_spawned_server_asks_the_utility_model_through_litellm_about_a_pair_the_rules_cannot_settle(
    annabelle_home: Path, tmp_path: Path, fake_llm: FakeOpenAI
) -> None:
    # What the benchmark's --model-decisions runs: the real process, its settings from the environment, litellm
    # imported inside it and speaking HTTP to an OpenAI-compatible server on 127.0.0.1.
    shown: list[list[int]] = []

    def every_stored_fact_is_updated(request: dict[str, Any]) -> str:
        ids = [int(i) for i in re.findall(r"^\[(\d+)\]", request["messages"][-1]["content"], re.MULTILINE)]
        shown.append(ids)
        return json.dumps({"decisions": [{"id": i, "relation": "update"} for i in ids]})

    fake_llm.set_handler(every_stored_fact_is_updated)
    env = {
        **os.environ,
        "ANNABELLE_HOME": str(annabelle_home),
        "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
        "EMBEDDING_PROVIDER": "none",
        "FACT_EXTRACTION_ENABLED": "false",
        "MEMORY_MODEL_DECISIONS": "true",
        "UTILITY_MODEL": "openai/fake-model",
        "UTILITY_API_BASE": fake_llm.api_base,
        "UTILITY_API_KEY": "test",
    }
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "memorizer_mcp"], env=env, cwd=str(REPO_ROOT)
    )
    owner = {"category": "background", "provenance": "owner", "source_type": "owner"}
    async with Client(parameters) as client:

        async def store(fact: str) -> dict[str, Any]:
            data: dict[str, Any] = envelope(await client.call_tool("store_fact", {"fact": fact, **owner}))["data"]
            return data

        teacher = await store("The user is a teacher")
        nurse = await store("The user is now a nurse")
        await store("The user lives in Braga")
        moved = await store("The user moved to Faro")
        listed = envelope(await client.call_tool("list_facts", {}))["data"]
    assert (nurse["decision"], nurse["decided_by"], [f["id"] for f in nurse["superseded"]]) == (
        "superseded",
        "model",
        [teacher["fact_id"]],
    )
    assert (moved["decision"], moved["decided_by"]) == ("superseded", "rules")  # settled without asking
    assert shown == [[teacher["fact_id"]]]
    assert sorted(f["fact"] for f in listed["facts"]) == ["The user is now a nurse", "The user moved to Faro"]
