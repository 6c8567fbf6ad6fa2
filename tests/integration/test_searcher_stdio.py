"""The Searcher as a real process: `python -m searcher_mcp` over stdio, as the hub spawns it, with no key."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


async def test_the_spawned_server_lists_four_tools_and_asks_for_a_key(annabelle_home: Path, tmp_path: Path) -> None:
    env = {
        **{name: value for name, value in os.environ.items() if name != "BRAVE_API_KEY"},
        "ANNABELLE_HOME": str(annabelle_home),
        "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
        "BRAVE_API_BASE": "http://127.0.0.1:9",
    }
    parameters = StdioServerParameters(command=sys.executable, args=["-m", "searcher_mcp"], env=env, cwd=str(REPO_ROOT))
    async with Client(parameters) as client:
        tools = sorted(tool.name for tool in (await client.list_tools()).tools)
        result = await client.call_tool("web_search", {"query": "weather in Lisbon"})
    assert tools == ["image_search", "news_search", "web_fetch", "web_search"]
    assert result.is_error
    envelope = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert envelope["error"] == "Set BRAVE_API_KEY (get one at https://brave.com/search/api/)"
