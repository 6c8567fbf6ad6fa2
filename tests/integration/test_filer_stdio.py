"""The Filer as a real process: `python -m filer_mcp` spoken to over stdio, as the hub spawns it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


def server_parameters(home: Path, workspace: Path, tmp_path: Path) -> StdioServerParameters:
    # The SDK starts the child with a minimal environment; everything the Filer reads is passed explicitly.
    env = {
        **os.environ,
        "ANNABELLE_HOME": str(home),
        "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
        "FILER_WORKSPACE": str(workspace),
    }
    return StdioServerParameters(command=sys.executable, args=["-m", "filer_mcp"], env=env, cwd=str(REPO_ROOT))


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def test_the_spawned_server_lists_thirteen_tools_and_round_trips_a_file(
    annabelle_home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    async with Client(server_parameters(annabelle_home, workspace, tmp_path)) as client:
        tools = (await client.list_tools()).tools
        created = envelope(await client.call_tool("create_file", {"path": "inbox/hello.md", "content": "héllo"}))
        read = envelope(await client.call_tool("read_file", {"path": "inbox/hello.md"}))
        escape = envelope(await client.call_tool("read_file", {"path": "../outside.txt"}))
    assert len(tools) == 13
    assert created["success"] is True
    assert read["data"]["content"] == "héllo"
    assert escape["errorCode"] == "NOT_ALLOWED"
    assert (workspace / "inbox" / "hello.md").read_text(encoding="utf-8") == "héllo"
    log_lines = (annabelle_home / "logs" / "filer.log").read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["msg"] == "filer ready" for line in log_lines)
    audit = (annabelle_home / "logs" / "fileops-audit.jsonl").read_text(encoding="utf-8")
    assert [json.loads(line)["operation"] for line in audit.splitlines()] == ["create_file", "read_file", "read_file"]


def plant_non_utf8_name(workspace: Path) -> None:
    workspace.mkdir()
    with open(os.path.join(os.fsencode(workspace), b"caf\xe9.txt"), "wb") as handle:
        handle.write(b"latin-1 name")


async def test_a_file_name_that_is_not_utf8_is_listed_instead_of_breaking_the_connection(
    annabelle_home: Path, tmp_path: Path
) -> None:
    # Regression: such a name reached the JSON encoder as a lone surrogate and killed the stdio session.
    workspace = tmp_path / "ws"
    plant_non_utf8_name(workspace)
    async with Client(server_parameters(annabelle_home, workspace, tmp_path)) as client:
        listing = envelope(await client.call_tool("list_files", {}))
        found = envelope(await client.call_tool("search_files", {"query": "caf"}))
        info = envelope(await client.call_tool("get_workspace_info", {}))
    assert [entry["name"] for entry in listing["data"]["files"]] == ["caf\ufffd.txt", "temp/"]
    assert [hit["path"] for hit in found["data"]["results"]] == ["caf\ufffd.txt"]
    assert info["data"]["total_files"] == 1
