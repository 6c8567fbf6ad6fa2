"""/browser: the browser's state, tabs and egress rules, from the Browser MCP, without starting Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.commands.registry import run_command
from shared.envelope import ErrorCode, fail
from tests.fakes.command_context import fake_context, hub_status


def with_browser() -> dict[str, Any]:
    status = hub_status()
    status["mcps"]["web"] = {"state": "running", "available": True, "toolCount": 22}
    return status


async def reply(text: str, ctx: Any) -> str:
    answer = await run_command(text, ctx)
    assert answer is not None
    return answer.text


async def test_a_running_browser_lists_its_tabs_and_says_how_it_reaches_the_web(tmp_path: Path) -> None:
    tabs = {
        "tabs": [
            {"index": 0, "url": "https://example.com/", "title": "Example Domain", "current": False},
            {"index": 1, "url": "http://192.168.1.10/", "title": "Router " + "x" * 200, "current": True},
        ],
        "maxTabs": 5,
    }
    status = {
        "executable": "/usr/bin/chromium",
        "running": True,
        "version": "131.0",
        "message": "...",
        "isolated": True,
        "max_tabs": 5,
        "allowed_hosts": ["192.168.1.10"],
    }
    ctx = fake_context(tmp_path, status=with_browser(), tools={"web_browser_install": status, "web_browser_tabs": tabs})
    text = await reply("/browser", ctx)
    assert "Browser: Chromium 131.0 at /usr/bin/chromium, running." in text
    assert "1. Example Domain — https://example.com/" in text and "(current)" in text.splitlines()[3]
    assert "x" * 70 not in text  # a page's title is clipped
    assert "Profile: isolated" in text and "at most 5 tabs" in text
    assert "WEB_FETCH_ALLOWED_HOSTS: 192.168.1.10" in text  # as the Browser MCP reports it, not the hub's environment


async def test_a_browser_not_running_is_not_started_to_list_tabs(tmp_path: Path) -> None:
    status = {"executable": "/usr/bin/chromium", "running": False, "message": "...", "isolated": False, "max_tabs": 3}
    ctx = fake_context(tmp_path, status=with_browser(), tools={"web_browser_install": status})
    text = await reply("/browser", ctx)
    assert "not running (it starts on the first browser call)" in text and "Tabs" not in text
    assert "Profile: kept" in text and "at most 3 tabs" in text and "WEB_FETCH_ALLOWED_HOSTS: none" in text
    assert [name for name, _ in ctx.hub.calls] == ["web_browser_install"]  # type: ignore[attr-defined]


async def test_without_chromium_or_the_mcp_it_says_why(tmp_path: Path) -> None:
    missing = fail(ErrorCode.TOOL_ERROR, "Chromium is not installed: apt-get install chromium.")
    ctx = fake_context(tmp_path, status=with_browser(), tools={"web_browser_install": missing})
    assert "unavailable — Chromium is not installed: apt-get install chromium." in await reply("/browser", ctx)
    assert "the browser MCP is not installed" in await reply("/browser", fake_context(tmp_path))
