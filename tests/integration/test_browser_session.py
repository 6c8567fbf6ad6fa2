"""The browser session with a real headless Chromium against pages on 127.0.0.1 (allowed as in production:
through WEB_FETCH_ALLOWED_HOSTS). One browser serves the whole module; each test opens the page it needs.

127.0.0.2 is left out of the allowed hosts: requests to it are refused by the egress guard before any connection,
so these tests never send traffic anywhere but to the page server on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from browser_mcp.session import BrowserSession, SessionConfig
from shared.mcp_tools import NotAllowed, ToolFailure
from tests.fakes.browser_pages import CHROMIUM, BrowserPages, needs_chromium

pytestmark = [pytest.mark.slow, needs_chromium, pytest.mark.asyncio(loop_scope="module")]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def pages() -> Iterator[BrowserPages]:
    with BrowserPages() as server:
        yield server


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
def clock() -> FakeClock:
    return FakeClock()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def session(
    workspace: Path, clock: FakeClock, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[BrowserSession]:
    assert CHROMIUM is not None
    config = SessionConfig(
        executable=CHROMIUM,
        workspace=workspace,
        allowed_hosts=["127.0.0.1"],
        profile_dir=tmp_path_factory.mktemp("profile"),
        max_tabs=3,
        max_snapshot_chars=4000,
        max_evaluate_chars=200,
        navigation_timeout=15,
        action_timeout=3,
        idle_seconds=60,
    )
    browser = BrowserSession(config, clock=clock)
    yield browser
    await browser.close()


def ref_of(snapshot: str, text: str) -> str:
    """The ref on the snapshot line that mentions `text`."""
    for line in snapshot.splitlines():
        if text in line and "[ref=" in line:
            return line.split("[ref=")[1].split("]")[0]
    raise AssertionError(f"{text!r} not in snapshot:\n{snapshot}")


async def open_page(session: BrowserSession, url: str) -> str:
    await session.navigate(url)
    shot = await session.snapshot(None)
    assert shot.snapshot is not None
    return shot.snapshot


async def test_a_page_is_opened_and_read_as_a_snapshot_with_refs(session: BrowserSession, pages: BrowserPages):
    result = await session.navigate(f"{pages.url}/")
    assert (result.status, result.title, result.tab) == (200, "Home", 0)
    shot = await session.snapshot(None)
    assert shot.snapshot is not None and "Green tea is brewed at 80 degrees" in shot.snapshot
    assert 'button "Press me"' in shot.snapshot and "[ref=" in shot.snapshot and not shot.truncated


async def test_before_any_tab_is_open_the_tab_tools_refuse_or_list_nothing(
    workspace: Path, clock: FakeClock, tmp_path: Path
) -> None:
    assert CHROMIUM is not None
    config = SessionConfig(executable=CHROMIUM, workspace=workspace, allowed_hosts=["127.0.0.1"], profile_dir=tmp_path)
    fresh = BrowserSession(config, clock=clock)
    try:
        with pytest.raises(ToolFailure, match="call browser_navigate"):
            await fresh.hover("e1")
        with pytest.raises(ToolFailure, match="no dialog is waiting"):
            await fresh.handle_dialog(True, None)
        with pytest.raises(ToolFailure, match="no file chooser is waiting"):
            await fresh.file_upload(None)
        assert (await fresh.console_messages("debug", None)).messages == []
        assert (await fresh.network_requests(True, None)).requests == []
        assert not fresh.running
    finally:
        await fresh.close()


async def test_the_status_reports_the_settings_the_session_runs_with(session: BrowserSession) -> None:
    status = await session.status()
    assert (status.isolated, status.max_tabs, status.allowed_hosts) == (True, 3, ["127.0.0.1"])


async def test_clicking_a_ref_acts_on_the_page(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/")
    await session.click(ref_of(snapshot, 'button "Press me"'), double=False, button="left", modifiers=[])
    assert "Button pressed" in (await session.snapshot(None)).snapshot  # type: ignore[operator]


async def test_a_double_click_is_one_double_click_not_two_clicks(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/")
    await session.click(ref_of(snapshot, 'button "Twice"'), double=False, button="left", modifiers=[])
    assert "Double-clicked" not in (await session.snapshot(None)).snapshot  # type: ignore[operator]
    await session.click(ref_of(snapshot, 'button "Twice"'), double=True, button="left", modifiers=[])
    assert "Double-clicked" in (await session.snapshot(None)).snapshot  # type: ignore[operator]


async def test_typing_with_submit_presses_enter(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/")
    state = await session.type(ref_of(snapshot, 'textbox "Search"'), "oolong", submit=True, slowly=False)
    assert state.title == "Searched oolong"


async def test_hovering_and_pressing_keys_reach_the_page(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/")
    await session.hover(ref_of(snapshot, "Hover here"))
    assert "Hovered!" in (await session.snapshot(None)).snapshot  # type: ignore[operator]
    await session.click(ref_of(snapshot, 'textbox "Search"'), double=False, button="left", modifiers=[])
    for key in ("g", "o", "Enter"):
        state = await session.press_key(key)
    assert state.title == "Searched go"


async def test_a_form_is_filled_in_one_call_and_submitted(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/form")
    await session.fill_form(
        [
            (ref_of(snapshot, 'textbox "Name"'), "textbox", "Ada"),
            (ref_of(snapshot, 'combobox "Colour"'), "combobox", "Green"),
            (ref_of(snapshot, 'checkbox "Gift wrap"'), "checkbox", "true"),
            (ref_of(snapshot, 'radio "Large"'), "radio", "true"),
        ]
    )
    await session.click(ref_of(snapshot, 'button "Send order"'), double=False, button="left", modifiers=[])
    after = (await session.snapshot(None)).snapshot
    assert after is not None and "Ordered: Ada, Green, gift=yes, size=large" in after


async def test_select_option_picks_a_drop_down_value(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/form")
    await session.select_option(ref_of(snapshot, 'combobox "Colour"'), ["Blue"])
    value = await session.evaluate("() => document.querySelector('select').value", None)
    assert value.result == "Blue"


async def test_a_stale_ref_is_refused_at_once_with_what_to_do(session: BrowserSession, pages: BrowserPages):
    await open_page(session, f"{pages.url}/")
    with pytest.raises(ToolFailure, match="take a new snapshot"):
        await session.click("e999", double=False, button="left", modifiers=[])


async def test_evaluate_returns_json_and_cuts_long_results(session: BrowserSession, pages: BrowserPages):
    await open_page(session, f"{pages.url}/")
    small = await session.evaluate("() => ({title: document.title, n: 2})", None)
    assert small.result == {"title": "Home", "n": 2} and not small.truncated
    large = await session.evaluate("() => 'x'.repeat(5000)", None)
    assert large.truncated and large.length == 5002
    assert isinstance(large.result, str) and "truncated: showing 200 of 5002" in large.result


async def test_a_long_page_snapshot_is_bounded(session: BrowserSession, pages: BrowserPages):
    await session.navigate(f"{pages.url}/long")
    shot = await session.snapshot(None)
    assert shot.truncated and shot.length > 4000 and shot.snapshot is not None
    assert len(shot.snapshot) < 4100 and "truncated: showing 4000 of" in shot.snapshot


async def test_a_snapshot_can_be_saved_in_the_workspace_instead(
    session: BrowserSession, pages: BrowserPages, workspace: Path
):
    await session.navigate(f"{pages.url}/long")
    shot = await session.snapshot("long-page")
    assert shot.snapshot is None and shot.savedTo == "browser/long-page.md"
    assert "Paragraph number 399" in (workspace / "browser" / "long-page.md").read_text()


async def test_a_screenshot_is_saved_in_the_workspace_as_a_png(
    session: BrowserSession, pages: BrowserPages, workspace: Path
):
    await session.navigate(f"{pages.url}/")
    shot = await session.screenshot(kind="png", filename=None, ref=None, full_page=True)
    saved = workspace / shot.path
    assert shot.path.startswith("browser/screenshot-") and saved.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert saved.stat().st_size == shot.bytes
    with pytest.raises(NotAllowed, match="plain file name"):
        await session.screenshot(kind="png", filename="../escape.png", ref=None, full_page=False)


async def test_a_dialog_is_reported_and_answered_and_the_click_completes(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/dialog")
    state = await session.click(ref_of(snapshot, 'button "Delete"'), double=False, button="left", modifiers=[])
    assert any("confirm dialog is open: 'Delete everything?'" in note for note in state.notes)
    with pytest.raises(ToolFailure, match="browser_handle_dialog"):
        await session.snapshot(None)
    await session.handle_dialog(False, None)
    assert "Cancelled" in (await session.snapshot(None)).snapshot  # type: ignore[operator]
    await session.click(ref_of(snapshot, 'button "Ask"'), double=False, button="left", modifiers=[])
    await session.handle_dialog(True, "Grace")
    assert "Name: Grace" in (await session.snapshot(None)).snapshot  # type: ignore[operator]


async def test_a_workspace_file_is_uploaded_through_the_file_chooser(
    session: BrowserSession, pages: BrowserPages, workspace: Path
):
    (workspace / "docs").mkdir(exist_ok=True)
    (workspace / "docs" / "cv.txt").write_text("hello")
    snapshot = await open_page(session, f"{pages.url}/upload")
    state = await session.click(ref_of(snapshot, "Attachment"), double=False, button="left", modifiers=[])
    assert any("file chooser is open" in note for note in state.notes)
    with pytest.raises(NotAllowed, match="outside the workspace"):
        await session.file_upload(["/etc/hostname"])
    await session.file_upload(["docs/cv.txt"])
    assert "Picked cv.txt (5 bytes)" in (await session.snapshot(None)).snapshot  # type: ignore[operator]


async def test_tabs_open_select_and_close_and_popups_stop_at_the_limit(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/popup")
    state = await session.click(ref_of(snapshot, 'button "Open shop"'), double=False, button="left", modifiers=[])
    listed = await session.tabs("list", None)
    assert len(listed.tabs) == 2 and any("A new tab opened (index 1)" in note for note in state.notes)
    await session.tabs("new", None)
    full = await session.tabs("list", None)
    assert len(full.tabs) == 3 and full.tabs[2].current
    await session.tabs("select", 0)
    refused = await session.click(ref_of(snapshot, 'button "Open shop"'), double=False, button="left", modifiers=[])
    assert any("past the limit of 3 tabs" in note for note in refused.notes)
    assert len((await session.tabs("list", None)).tabs) == 3
    with pytest.raises(ToolFailure, match="BROWSER_MAX_TABS"):
        await session.tabs("new", None)
    await session.tabs("close", 2)
    closed = await session.tabs("close", 1)
    assert [tab.index for tab in closed.tabs] == [0] and closed.tabs[0].current


async def test_console_and_network_logs_and_a_refused_subresource_are_reported(
    session: BrowserSession, pages: BrowserPages
):
    result = await session.navigate(f"{pages.url}/mixed")
    assert any(b.target.startswith(pages.refused_origin) and "loopback" in b.reason for b in result.blockedRequests)
    await session.wait_for(None, "api answered", None)
    console = await session.console_messages("info", None)
    assert {(m.level, m.text) for m in console.messages} >= {
        ("info", "hello from the page"),
        ("error", "something broke"),
    }
    errors = await session.console_messages("error", None)
    assert all(m.level == "error" for m in errors.messages)
    network = await session.network_requests(False, None)
    urls = {r.url for r in network.requests}
    assert f"{pages.url}/api" in urls and f"{pages.url}/pixel.png" not in urls
    everything = await session.network_requests(True, None)
    assert f"{pages.url}/pixel.png" in {r.url for r in everything.requests}


async def test_a_redirect_to_a_refused_address_is_stopped_by_the_guard(session: BrowserSession, pages: BrowserPages):
    with pytest.raises(NotAllowed, match=r"127\.0\.0\.2.*loopback.*WEB_FETCH_ALLOWED_HOSTS"):
        await session.navigate(f"{pages.url}/redirect-out")


async def test_navigating_to_a_loopback_address_that_is_not_allowed_is_refused(
    session: BrowserSession, pages: BrowserPages
):
    with pytest.raises(NotAllowed, match="loopback"):
        await session.navigate(f"{pages.refused_origin}/")


async def test_a_page_cannot_open_or_read_local_files(session: BrowserSession, pages: BrowserPages):
    await session.navigate(f"{pages.url}/")
    await session.evaluate("() => { location.href = 'file:///etc/hostname'; }", None)
    read = await session.evaluate(
        "async () => { try { return await (await fetch('file:///etc/hostname')).text(); } catch (e) { return 'refused'; } }",
        None,
    )
    assert read.result == "refused" and (await session.tabs("list", None)).tabs[0].url == f"{pages.url}/"
    with pytest.raises(ToolFailure, match="Only http and https"):
        await session.navigate("file:///etc/hostname")


async def test_following_a_redirect_and_going_back(session: BrowserSession, pages: BrowserPages):
    await session.navigate(f"{pages.url}/")
    moved = await session.navigate(f"{pages.url}/redirect-in")
    assert moved.url == f"{pages.url}/form" and moved.title == "Order"
    back = await session.navigate_back()
    assert back.url == f"{pages.url}/" and back.title == "Home"


async def test_wait_for_text_and_resize(session: BrowserSession, pages: BrowserPages):
    await session.navigate(f"{pages.url}/slow")
    await session.wait_for(None, "Ready now", None)
    await session.wait_for(0.05, None, "Loading…")
    await session.resize(800, 600)
    size = await session.evaluate("() => [window.innerWidth, window.innerHeight]", None)
    assert size.result == [800, 600]


async def test_dragging_one_element_onto_another(session: BrowserSession, pages: BrowserPages):
    snapshot = await open_page(session, f"{pages.url}/drag")
    await session.drag(ref_of(snapshot, 'button "Card"'), ref_of(snapshot, 'region "Bin"'))
    assert "Dropped card" in (await session.snapshot(None)).snapshot  # type: ignore[operator]


async def test_the_browser_closes_when_idle_and_starts_again_on_the_next_call(
    session: BrowserSession, pages: BrowserPages, clock: FakeClock
):
    await session.navigate(f"{pages.url}/")
    assert not await session.close_if_idle()
    clock.now += 61
    assert await session.close_if_idle() and not session.running
    with pytest.raises(ToolFailure, match="browser_navigate"):
        await session.snapshot(None)
    again = await session.navigate(f"{pages.url}/form")
    assert session.running and again.title == "Order"
    assert json.loads((await session.status()).model_dump_json())["running"] is True
