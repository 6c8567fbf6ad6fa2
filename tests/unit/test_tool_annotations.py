"""Every tool of every first-party MCP says what calling it can change, in the standard's MCP annotations.

The hub's side-effect policy reads `readOnlyHint`, `destructiveHint` and `openWorldHint`; a tool that left them
unset would be judged by the spec's pessimistic defaults, so each of ours sets all four explicitly."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(path.parent.name for path in REPO_ROOT.glob("*_mcp/manifest.json"))


@pytest.mark.parametrize("package", PACKAGES)
async def test_every_tool_declares_all_four_annotations(package: str) -> None:
    server = importlib.import_module(f"{package}.server").server
    tools = await server.list_tools()
    assert tools
    unset = [
        tool.name
        for tool in tools
        if tool.annotations is None
        or None
        in (
            tool.annotations.read_only_hint,
            tool.annotations.destructive_hint,
            tool.annotations.idempotent_hint,
            tool.annotations.open_world_hint,
        )
    ]
    assert unset == []


def test_the_packages_under_test_are_the_ones_the_hub_discovers() -> None:
    assert {"filer_mcp", "gmail_mcp", "guardian_mcp", "memorizer_mcp", "searcher_mcp", "telegram_mcp"} <= set(PACKAGES)


async def test_every_gmail_tool_that_reads_mail_or_calendar_has_untrusted_output_and_writes_do_not() -> None:
    """What a Gmail read returns was written by whoever sent the mail or the invitation; what a write returns
    (ids, labels) is not, so a turn that sends a mail can still fetch a page without asking. `find_free_time`
    returns only times and one-word reasons (tests/unit/test_gmail_tools.py), so it is the one read trusted."""
    from shared.manifest import load_manifest

    manifest = load_manifest(REPO_ROOT / "gmail_mcp" / "manifest.json")
    tools = await importlib.import_module("gmail_mcp.server").server.list_tools()
    reads = {tool.name for tool in tools if tool.annotations.read_only_hint}
    untrusted = {tool.name for tool in tools if manifest.output_untrusted(tool.name)}
    assert reads - {"find_free_time"} <= untrusted and "find_free_time" not in untrusted
    assert {"send_email", "reply_email", "create_draft", "send_draft", "modify_labels"}.isdisjoint(untrusted)
    assert {"create_event", "update_event", "quick_add_event"} <= untrusted  # they echo an event others may edit
