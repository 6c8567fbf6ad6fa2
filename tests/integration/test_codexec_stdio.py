"""CodeExec as a real process: `python -m codexec_mcp` spoken to over stdio, as the hub spawns it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.codexec_support import processes_with, require_sandbox

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
TOOLS = {
    "execute_code",
    "start_session",
    "send_to_session",
    "close_session",
    "list_sessions",
    "install_package",
    "save_script",
    "get_script",
    "list_scripts",
    "search_scripts",
    "delete_script",
    "run_script",
    "save_and_run_script",
}


def server_parameters(home: Path, tmp_path: Path, **env: str) -> StdioServerParameters:
    environment = {
        **os.environ,
        "ANNABELLE_HOME": str(home),
        "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
        "ANNABELLE_TOKEN": "stdio-canary-token",
        **env,
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "codexec_mcp"], env=environment, cwd=str(REPO_ROOT)
    )


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def test_the_spawned_server_lists_thirteen_annotated_tools_and_runs_code_and_sessions(
    annabelle_home: Path, tmp_path: Path
) -> None:
    require_sandbox()
    async with Client(server_parameters(annabelle_home, tmp_path)) as client:
        tools = (await client.list_tools()).tools
        run = envelope(
            await client.call_tool(
                "execute_code", {"language": "python", "code": "import os\nprint(os.environ.get('ANNABELLE_TOKEN'))"}
            )
        )
        started = envelope(await client.call_tool("start_session", {"language": "python", "name": "calc"}))
        sid = started["data"]["session_id"]
        envelope(await client.call_tool("send_to_session", {"session_id": sid, "code": "n = 5"}))
        sent = envelope(await client.call_tool("send_to_session", {"session_id": sid, "code": "n * 8"}))
        listed = envelope(await client.call_tool("list_sessions", {}))
        bad = await client.call_tool("execute_code", {"language": "ruby", "code": "puts 1"})
        assert processes_with(str(annabelle_home))
    assert {tool.name for tool in tools} == TOOLS
    annotations = {tool.name: tool.annotations for tool in tools}
    assert all(annotation is not None for annotation in annotations.values())
    assert annotations["execute_code"].read_only_hint is False  # type: ignore[union-attr]
    assert annotations["execute_code"].destructive_hint is True  # type: ignore[union-attr]
    assert annotations["list_sessions"].read_only_hint is True  # type: ignore[union-attr]
    assert annotations["install_package"].open_world_hint is True  # type: ignore[union-attr]
    assert run["success"] and run["data"]["stdout"] == "None\n" and run["data"]["isolation"] == "bwrap"
    assert sent["data"]["stdout"] == "40\n"
    assert [s["name"] for s in listed["data"]["sessions"]] == ["calc"]
    assert bad.is_error and "python" in bad.content[0].text  # type: ignore[union-attr]
    assert processes_with(str(annabelle_home)) == []  # the server closed its sessions when it stopped
    lines = (annabelle_home / "logs" / "codexec.log").read_text(encoding="utf-8").splitlines()
    ready = [json.loads(line) for line in lines if json.loads(line)["msg"] == "codexec ready"]
    assert ready and ready[0]["isolation"] == "bwrap"
    assert "stdio-canary-token" not in "\n".join(lines)
