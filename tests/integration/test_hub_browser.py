"""The browser through the real hub: Guardian scans what pages say, the shipped browsing playbook runs end to end.

The hub runs Guardian, the Browser MCP and the Filer as children; WEB_FETCH_ALLOWED_HOSTS lets the browser reach
the page server on 127.0.0.1 (and nothing else on loopback: 127.0.0.2 stays refused). Guardian runs its rules
scanner only: the layered classifier costs 1-7 s per snapshot on a loaded 2-core machine, and which scanner catches
what is Guardian's own suite's business; here it matters that every page text passes through a scan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from orchestrator.skills.seeds import PLAYBOOKS
from tests.fakes.browser_pages import BrowserPages, needs_chromium
from tests.hub_process import RunningHub, start_hub

pytestmark = [pytest.mark.slow, needs_chromium]

BROWSER_PLAYBOOKS = [p for p in PLAYBOOKS if any(t.startswith("web_browser_") for t in p.required_tools)]


@pytest.fixture(scope="module")
def pages() -> Iterator[BrowserPages]:
    with BrowserPages() as server:
        yield server


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningHub]:
    workdir: Path = tmp_path_factory.mktemp("browser-stack")
    env = {"WEB_FETCH_ALLOWED_HOSTS": "127.0.0.1", "GUARDIAN_SCANNER": "rules"}
    with start_hub(workdir, workdir / "home", ["guardian_mcp", "browser_mcp", "filer_mcp"], env=env) as running:
        yield running


def ok(envelope: dict[str, Any]) -> Any:
    assert envelope["success"], envelope
    return envelope["data"]


def ref_of(snapshot: str, text: str) -> str:
    line = next(line for line in snapshot.splitlines() if text in line and "[ref=" in line)
    return line.split("[ref=")[1].split("]")[0]


def test_the_browser_tools_are_routed_as_web_browser_with_their_label(stack: RunningHub) -> None:
    with stack.client() as client:
        listing = client.get("/tools/list").json()
    names = {tool["name"] for tool in listing["tools"] if tool["name"].startswith("web_browser_")}
    assert len(names) == 21 and {"web_browser_navigate", "web_browser_snapshot", "web_browser_click"} <= names
    navigate = next(tool for tool in listing["tools"] if tool["name"] == "web_browser_navigate")
    assert navigate["description"].startswith("[Browser | Browser] ")
    assert listing["mcps"]["web"]["available"] is True


@pytest.mark.parametrize("playbook", BROWSER_PLAYBOOKS, ids=lambda p: p.name)
def test_a_browser_playbooks_tool_sequence_runs_end_to_end(stack: RunningHub, pages: BrowserPages, playbook) -> None:
    used: list[str] = []
    seen: dict[str, str] = {}

    def call(tool: str, arguments: dict[str, Any] | Callable[[], dict[str, Any]] | None = None) -> Any:
        used.append(tool)
        return ok(stack.call(tool, arguments() if callable(arguments) else arguments))

    def snapshot() -> str:
        seen["page"] = call("web_browser_snapshot")["snapshot"]
        return seen["page"]

    # 1. open and read; 2. act by refs; 3. a form in one call; 4. snapshot after acting, wait when slow;
    # 5. a screenshot saved in the workspace; then back and the tab list.
    assert call("web_browser_navigate", {"url": f"{pages.url}/"})["title"] == "Home"
    snapshot()
    call("web_browser_click", lambda: {"ref": ref_of(seen["page"], 'link "Order form"'), "element": "Order form"})
    snapshot()
    call("web_browser_type", lambda: {"ref": ref_of(seen["page"], 'textbox "Name"'), "text": "Ada"})
    call(
        "web_browser_fill_form",
        lambda: {
            "fields": [
                {
                    "name": "Colour",
                    "type": "combobox",
                    "ref": ref_of(seen["page"], 'combobox "Colour"'),
                    "value": "Blue",
                },
                {
                    "name": "Gift",
                    "type": "checkbox",
                    "ref": ref_of(seen["page"], 'checkbox "Gift wrap"'),
                    "value": "true",
                },
                {"name": "Size", "type": "radio", "ref": ref_of(seen["page"], 'radio "Small"'), "value": "true"},
            ]
        },
    )
    call("web_browser_click", lambda: {"ref": ref_of(seen["page"], 'button "Send order"')})
    call("web_browser_wait_for", {"text": "Ordered: Ada"})
    assert "Ordered: Ada, Blue, gift=yes, size=small" in snapshot()
    shot = call("web_browser_take_screenshot", {"filename": f"{playbook.name}-order"})
    assert shot["path"] == f"browser/{playbook.name}-order.png"
    assert (stack.home / "workspace" / shot["path"]).read_bytes()[:4] == b"\x89PNG"
    listed = ok(stack.call("filer_list_files", {"path": "browser"}))
    assert f"{playbook.name}-order.png" in str(listed)
    assert call("web_browser_navigate_back")["title"] == "Home"
    assert [tab["url"] for tab in call("web_browser_tabs", {"action": "list"})["tabs"]] == [f"{pages.url}/"]
    assert set(used) == set(playbook.required_tools), "the sequence must exercise exactly the playbook's tools"


def test_an_injection_in_a_page_is_blocked_before_the_model_reads_it(stack: RunningHub, pages: BrowserPages) -> None:
    ok(stack.call("web_browser_navigate", {"url": f"{pages.url}/poisoned"}))
    scans = stack.status()["guardian"]["scans"]
    envelope = stack.call("web_browser_snapshot")
    assert envelope["blocked"] is True and envelope["errorCode"] == "BLOCKED"
    assert stack.status()["guardian"]["scans"] > scans
    assert "collector@attacker.example" not in str(envelope)


def test_a_redirect_to_an_address_that_is_not_allowed_is_refused(stack: RunningHub, pages: BrowserPages) -> None:
    envelope = stack.call("web_browser_navigate", {"url": f"{pages.url}/redirect-out"})
    assert envelope["errorCode"] == "NOT_ALLOWED" and "127.0.0.2: it is a loopback address" in envelope["error"]
