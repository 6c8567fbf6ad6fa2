"""The Browser MCP as a real process (`python -m browser_mcp` over stdio), as the hub spawns it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.fakes.browser_pages import BrowserPages, needs_chromium

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]

ORIGINAL_TOOLS = {
    "browser_click", "browser_close", "browser_console_messages", "browser_drag", "browser_evaluate",
    "browser_file_upload", "browser_fill_form", "browser_handle_dialog", "browser_hover", "browser_navigate",
    "browser_navigate_back", "browser_network_requests", "browser_press_key", "browser_resize",
    "browser_select_option", "browser_snapshot", "browser_take_screenshot", "browser_type", "browser_wait_for",
    "browser_tabs", "browser_install",
}  # fmt: skip


def parameters(home: Path, tmp_path: Path, **env: str) -> StdioServerParameters:
    child = {
        **os.environ,
        "ANNABELLE_HOME": str(home),
        "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
        **env,
    }
    return StdioServerParameters(command=sys.executable, args=["-m", "browser_mcp"], env=child, cwd=str(REPO_ROOT))


def envelope(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)


async def test_without_chromium_the_server_lists_its_tools_and_every_call_says_how_to_install_it(
    annabelle_home: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    async with Client(parameters(annabelle_home, tmp_path, PATH=str(empty))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        navigate = envelope(await client.call_tool("browser_navigate", {"url": "https://example.com"}))
        install = envelope(await client.call_tool("browser_install", {}))
    assert set(tools) == ORIGINAL_TOOLS - {"browser_run_code"}
    for answer in (navigate, install):
        assert answer["success"] is False and "sudo apt-get install chromium" in answer["error"]
    annotations = {name: tool.annotations for name, tool in tools.items()}
    assert all(a is not None for a in annotations.values())
    for name in ("browser_navigate", "browser_click", "browser_type"):
        assert annotations[name].read_only_hint is False and annotations[name].open_world_hint is True  # type: ignore[union-attr]
    for name in ("browser_snapshot", "browser_take_screenshot"):
        assert annotations[name].read_only_hint is True  # type: ignore[union-attr]


@needs_chromium
async def test_a_loopback_page_is_refused_when_it_is_not_an_allowed_host(annabelle_home: Path, tmp_path: Path) -> None:
    with BrowserPages() as pages:
        async with Client(parameters(annabelle_home, tmp_path)) as client:
            answer = envelope(await client.call_tool("browser_navigate", {"url": f"{pages.url}/"}))
    assert answer["success"] is False and answer["errorCode"] == "NOT_ALLOWED"
    assert "127.0.0.1: it is a loopback address" in answer["error"] and "WEB_FETCH_ALLOWED_HOSTS" in answer["error"]
    assert pages.hits == []
