"""One Chromium per MCP, driven through Playwright: tabs, element refs, dialogs, file choosers, limits.

The browser starts on the first call that needs it and is closed after `idle_seconds` without a call
(`close_if_idle`, which the server's lifespan calls on a timer with the real clock; tests pass their own clock).
Every start also starts the egress guard (`egress.EgressGuard`), the proxy through which all of Chromium's
traffic must pass, so a page cannot reach a private address however it tries.

Elements are named by the refs of the latest snapshot (`page.aria_snapshot(mode="ai")` gives `[ref=e12]`;
Playwright resolves `aria-ref=e12`). A ref that is not on the page any more is refused at once instead of
waiting for the action timeout.

A JavaScript dialog (alert, confirm, prompt) freezes the page: an action that opens one would wait forever. So
each action races the page's dialog event; when a dialog wins, the call returns with a note naming it, the action
finishes once `handle_dialog` answers, and every other call on that tab is refused until then.

Calls are serialised by one lock: the model drives one browser, and half-finished interleavings (a click while a
navigation is starting) would only produce confusing results.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

# Only the error classes (the same objects `playwright.async_api` exports) are loaded with this module: the API
# itself takes about a second to import, so it is imported when the browser first starts, not when the MCP does.
from playwright._impl._errors import Error as PlaywrightError
from playwright._impl._errors import TimeoutError as PlaywrightTimeout

from browser_mcp import models
from browser_mcp.chromium import switches
from browser_mcp.egress import EgressGuard, Refusal, Unreachable, admit, refusal_of
from browser_mcp.outputs import OutputRefused, output_name, upload_path, write_output
from shared.envelope import ErrorCode
from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure
from shared.netguard import AddressRefused, BadURL, parse_target
from shared.resolver import Resolver, system_resolver

if TYPE_CHECKING:
    from playwright.async_api import (
        Browser,
        BrowserContext,
        ConsoleMessage,
        Dialog,
        FileChooser,
        Locator,
        Page,
        Playwright,
        Request,
        Response,
    )

log = logging.getLogger(__name__)

T = TypeVar("T")
Clock = Callable[[], float]

REF = re.compile(r"(?:f\d+)?e\d+")
CONSOLE_KEPT = 200
NETWORK_KEPT = 300
CONSOLE_TEXT_CHARS = 2000
BLOCKED_SHOWN = 5
LOAD_GRACE_SECONDS = 5.0
SETTLE_SECONDS = 0.25
"""After a click or a key press: time for what it starts (a popup, a navigation) to show in the result."""
STATIC_TYPES = frozenset({"image", "font", "stylesheet", "media", "script", "manifest", "texttrack"})
LEVELS = ("error", "warning", "info", "debug")
_CONSOLE_LEVEL = {"error": "error", "assert": "error", "warning": "warning", "debug": "debug", "trace": "debug"}

Level = Literal["error", "warning", "info", "debug"]
Button = Literal["left", "right", "middle"]
Modifier = Literal["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]


@dataclass(frozen=True)
class SessionConfig:
    executable: Path
    workspace: Path
    allowed_hosts: list[str]
    profile_dir: Path
    isolated: bool = True
    sandbox: bool = False
    navigation_timeout: float = 30.0
    action_timeout: float = 5.0
    max_tabs: int = 5
    max_snapshot_chars: int = 20000
    max_evaluate_chars: int = 5000
    idle_seconds: float = 300.0


@dataclass
class TabState:
    """What one tab has collected: its console and network logs, and a dialog or file chooser waiting for an answer."""

    console: deque[models.ConsoleMessage] = field(default_factory=lambda: deque(maxlen=CONSOLE_KEPT))
    network: deque[models.NetworkRequest] = field(default_factory=lambda: deque(maxlen=NETWORK_KEPT))
    dialog: Dialog | None = None
    dialog_opened: asyncio.Event = field(default_factory=asyncio.Event)
    chooser: FileChooser | None = None
    blocked_action: asyncio.Task[Any] | None = None


def first_line(exc: BaseException) -> str:
    """Playwright's messages carry a call log with page markup after the first line; only the first is shown."""
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def bound_text(text: str, limit: int) -> tuple[str, bool]:
    """`text` cut to `limit` characters with a marker saying how much was left out."""
    if len(text) <= limit:
        return text, False
    return f"{text[:limit]}\n[… truncated: showing {limit} of {len(text)} characters]", True


class BrowserSession:
    def __init__(self, config: SessionConfig, *, resolver: Resolver = system_resolver, clock: Clock = time.monotonic):
        self.config = config
        self._resolve = resolver
        self._clock = clock
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._guard: EgressGuard | None = None
        self._tabs: list[Page] = []
        self._states: dict[Page, TabState] = {}
        self._current = 0
        self._notes: list[str] = []
        self._opening = False
        self._last_used = clock()

    # -- lifecycle ------------------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._context is not None

    async def _ensure(self) -> BrowserContext:
        if self._context is not None:
            return self._context
        from playwright.async_api import async_playwright

        config = self.config
        guard = await EgressGuard(config.allowed_hosts, resolver=self._resolve).start()
        playwright = await async_playwright().start()
        args = switches(guard.proxy_url, sandbox=config.sandbox)
        launch_timeout = max(30_000.0, config.navigation_timeout * 1000)
        try:
            if config.isolated:
                browser: Browser | None = await playwright.chromium.launch(
                    executable_path=config.executable, args=args, headless=True, timeout=launch_timeout
                )
                assert browser is not None
                context = await browser.new_context(accept_downloads=False)
            else:
                browser = None
                config.profile_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
                context = await playwright.chromium.launch_persistent_context(
                    config.profile_dir, executable_path=config.executable, args=args, headless=True, timeout=launch_timeout,
                    accept_downloads=False,
                )  # fmt: skip
        except PlaywrightError as exc:
            await playwright.stop()
            await guard.close()
            log.warning("chromium did not start", extra={"error": str(exc)[:2000]})
            raise ToolFailure(
                f"Chromium ({config.executable}) did not start: {first_line(exc)} (the MCP's log has details)."
            ) from None
        context.set_default_timeout(config.action_timeout * 1000)
        context.set_default_navigation_timeout(config.navigation_timeout * 1000)
        context.on("page", self._on_page)
        self._playwright, self._browser, self._context, self._guard = playwright, browser, context, guard
        for page in context.pages:
            self._register(page)
        log.info("browser started", extra={"executable": str(config.executable), "isolated": config.isolated})
        return context

    async def _shutdown(self) -> None:
        context, browser, playwright, guard = self._context, self._browser, self._playwright, self._guard
        self._context = self._browser = self._playwright = self._guard = None
        self._tabs.clear()
        self._states.clear()
        self._current = 0
        for closing in (
            context.close() if context else None,
            browser.close() if browser else None,
            playwright.stop() if playwright else None,
            guard.close() if guard else None,
        ):
            if closing is not None:
                with contextlib.suppress(Exception):
                    await closing

    async def close(self) -> bool:
        """Close the browser and every tab; True if it was running."""
        async with self._lock:
            was_running = self.running
            await self._shutdown()
            return was_running

    async def close_if_idle(self) -> bool:
        """Close the browser if no call came for `idle_seconds`; never interrupts a call in progress."""
        if not self._idle() or self._lock.locked():
            return False
        async with self._lock:
            if not self._idle():  # a call slipped in while the lock was being taken
                return False
            await self._shutdown()
        log.info("browser closed after being idle", extra={"idle_seconds": self.config.idle_seconds})
        return True

    def _idle(self) -> bool:
        return self.running and self._clock() - self._last_used >= self.config.idle_seconds

    async def _call(self, work: Callable[[], Awaitable[T]]) -> T:
        async with self._lock:
            self._last_used = self._clock()
            try:
                return await work()
            finally:
                self._last_used = self._clock()

    # -- tabs -----------------------------------------------------------------------------------------------------

    def _register(self, page: Page) -> TabState:
        state = self._states.get(page)
        if state is not None:
            return state
        state = TabState()
        self._states[page] = state
        self._tabs.append(page)
        page.on("console", lambda message: self._on_console(state, message))
        page.on("pageerror", lambda error: self._on_page_error(state, error))
        page.on("dialog", lambda dialog: self._on_dialog(state, dialog))
        page.on("filechooser", lambda chooser: setattr(state, "chooser", chooser))
        page.on("response", lambda response: self._on_response(state, response))
        page.on("requestfailed", lambda request: self._on_request_failed(state, request))
        page.on("close", lambda closed: self._forget(closed))
        return state

    def _on_page(self, page: Page) -> None:
        if page in self._states or self._opening:
            return  # a tab this session opens itself is registered by `_new_tab`
        if len(self._tabs) >= self.config.max_tabs:
            self._notes.append(
                f"The page tried to open another tab past the limit of {self.config.max_tabs} tabs; it was closed."
            )
            asyncio.get_running_loop().create_task(page.close())
            return
        self._register(page)
        self._notes.append(f"A new tab opened (index {len(self._tabs) - 1}); switch to it with browser_tabs select.")

    def _forget(self, page: Page) -> None:
        if page in self._states:
            index = self._tabs.index(page)
            self._tabs.remove(page)
            del self._states[page]
            if self._current > index or self._current >= len(self._tabs):
                self._current = max(0, self._current - 1)

    def _on_console(self, state: TabState, message: ConsoleMessage) -> None:
        level = _CONSOLE_LEVEL.get(message.type, "info")
        location = message.location.get("url") if message.location else None
        state.console.append(
            models.ConsoleMessage(level=level, text=message.text[:CONSOLE_TEXT_CHARS], url=location or None)  # type: ignore[arg-type]
        )

    def _on_page_error(self, state: TabState, error: Exception) -> None:
        state.console.append(models.ConsoleMessage(level="error", text=str(error)[:CONSOLE_TEXT_CHARS]))

    def _on_dialog(self, state: TabState, dialog: Dialog) -> None:
        state.dialog = dialog
        state.dialog_opened.set()

    def _on_response(self, state: TabState, response: Response) -> None:
        request = response.request
        state.network.append(
            models.NetworkRequest(
                method=request.method,
                url=request.url[:2000],
                resourceType=request.resource_type,
                status=response.status,
            )
        )

    def _on_request_failed(self, state: TabState, request: Request) -> None:
        state.network.append(
            models.NetworkRequest(
                method=request.method,
                url=request.url[:2000],
                resourceType=request.resource_type,
                failure=(request.failure or "failed")[:300],
            )
        )

    def _current_tab(self) -> tuple[Page, TabState] | None:
        """The current tab and what it collected, dialog or not; None when no tab is open."""
        if not self._tabs:
            return None
        page = self._tabs[min(self._current, len(self._tabs) - 1)]
        return page, self._states[page]

    def _open_tab(self, refusal: str) -> tuple[Page, TabState]:
        """The current tab, dialog or not; refused with `refusal` when no tab is open."""
        current = self._current_tab()
        if current is None:
            raise ToolFailure(refusal)
        return current

    def _page(self) -> tuple[Page, TabState]:
        """The current tab; refused when there is none or a dialog is waiting on it."""
        page, state = self._open_tab("No page is open: call browser_navigate with a URL first.")
        if state.dialog is not None:
            raise ToolFailure(f"{_describe_dialog(state.dialog)} Answer it with browser_handle_dialog first.")
        return page, state

    async def _new_tab(self) -> Page:
        context = await self._ensure()
        if len(self._tabs) >= self.config.max_tabs:
            raise ToolFailure(
                f"{len(self._tabs)} tabs are open, the most allowed (BROWSER_MAX_TABS); close one with browser_tabs."
            )
        self._opening = True
        try:
            page = await context.new_page()
        finally:
            self._opening = False
        self._register(page)
        self._current = self._tabs.index(page)
        return page

    async def _current_or_new(self) -> tuple[Page, TabState]:
        await self._ensure()
        if not self._tabs:
            await self._new_tab()
        return self._page()

    # -- results --------------------------------------------------------------------------------------------------

    def _take_notes(self) -> list[str]:
        notes, self._notes = self._notes, []
        for index, page in enumerate(self._tabs):
            state = self._states[page]
            if state.dialog is not None:
                notes.append(f"Tab {index}: {_describe_dialog(state.dialog)} Answer it with browser_handle_dialog.")
            if state.chooser is not None:
                notes.append(
                    f"Tab {index}: a file chooser is open; call browser_file_upload with workspace paths "
                    "(or none to cancel)."
                )
        return notes

    def _take_refusals(self) -> list[Refusal]:
        return self._guard.take_refusals() if self._guard else []

    async def _state(self, page: Page, refusals: list[Refusal] | None = None) -> models.PageState:
        state = self._states.get(page)
        title = None
        if state is not None and state.dialog is None and not page.is_closed():
            with contextlib.suppress(PlaywrightError):
                title = await page.title()
        return models.PageState(
            url=page.url,
            title=title,
            tab=self._tabs.index(page) if page in self._tabs else self._current,
            blockedRequests=[
                models.BlockedRequest(target=r.target, reason=r.reason)
                for r in (self._take_refusals() if refusals is None else refusals)[-BLOCKED_SHOWN:]
            ],
            notes=self._take_notes(),
        )

    # -- actions --------------------------------------------------------------------------------------------------

    async def _act(self, page: Page, state: TabState, action: Callable[[], Awaitable[T]]) -> T | None:
        """Run `action`; None if a dialog opened first (the action then finishes once the dialog is answered)."""
        state.dialog_opened.clear()
        task = asyncio.ensure_future(action())
        dialog = asyncio.ensure_future(state.dialog_opened.wait())
        try:
            await asyncio.wait({task, dialog}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            dialog.cancel()
        if task.done():
            try:
                return task.result()
            except PlaywrightTimeout as exc:
                raise ToolFailure(f"{first_line(exc)} The element may be hidden, disabled or covered.") from None
            except PlaywrightError as exc:
                raise ToolFailure(first_line(exc)) from None
        state.blocked_action = task
        task.add_done_callback(_swallow)
        return None

    async def _settle(self, page: Page, state: TabState) -> None:
        """Give an action's consequences a moment: a popup tab, a navigation that started, its document."""
        if state.dialog is not None:
            return
        await asyncio.sleep(SETTLE_SECONDS)
        if state.dialog is None and not page.is_closed():
            with contextlib.suppress(PlaywrightError):
                await page.wait_for_load_state("domcontentloaded", timeout=self.config.navigation_timeout * 1000)

    async def _locate(self, page: Page, ref: str) -> Locator:
        if not REF.fullmatch(ref):
            raise InvalidArguments(f"{ref[:40]!r} is not an element ref; use one like e12 from the latest snapshot.")
        locator = page.locator(f"aria-ref={ref}")
        try:
            found = await locator.count()
        except PlaywrightError:
            found = 0
        if found == 0:
            raise ToolFailure(
                f"No element with ref {ref} is on the page now; take a new snapshot (refs change when the page does)."
            )
        return locator

    async def _checked_target(self, url: str) -> str:
        try:
            target = parse_target(url)
        except BadURL as exc:
            raise InvalidArguments(str(exc)) from None
        try:
            await admit(target, self.config.allowed_hosts, self._resolve)
        except AddressRefused as exc:
            raise NotAllowed(str(exc)) from None
        except Unreachable as exc:
            raise ToolFailure(str(exc)) from None
        return target.url

    async def navigate(self, url: str) -> models.Navigated:
        async def work() -> models.Navigated:
            checked = await self._checked_target(url)
            page, state = await self._current_or_new()
            self._take_refusals()
            timeout = self.config.navigation_timeout
            try:
                response = await self._act(page, state, lambda: page.goto(checked, wait_until="domcontentloaded"))
            except ToolFailure as failure:
                refusals = self._take_refusals()
                # A redirect hop the guard refused fails the navigation (https: the tunnel was refused).
                if refusals:
                    raise NotAllowed((refusal_of(refusals, page.url) or refusals[-1]).reason) from None
                if "Timeout" in str(failure):
                    raise ToolFailure(f"{checked} did not load within {timeout:g} s.", code=ErrorCode.TIMEOUT) from None
                raise ToolFailure(f"Could not open {checked}: {failure}") from None
            if response is not None:
                with contextlib.suppress(PlaywrightError):
                    await page.wait_for_load_state("load", timeout=min(LOAD_GRACE_SECONDS, timeout) * 1000)
            refusals = self._take_refusals()
            refused = refusal_of(refusals, page.url)
            if refused is not None:  # a redirect hop to a refused address (http: the guard answered 403)
                raise NotAllowed(refused.reason)
            result = await self._state(page, refusals)
            return models.Navigated(**result.model_dump(), status=response.status if response else None)

        return await self._call(work)

    async def navigate_back(self) -> models.PageState:
        async def work() -> models.PageState:
            page, state = self._page()
            await self._act(page, state, lambda: page.go_back(wait_until="domcontentloaded"))
            return await self._state(page)

        return await self._call(work)

    async def snapshot(self, filename: str | None) -> models.Snapshot:
        async def work() -> models.Snapshot:
            page, _state = self._page()
            text, title = await asyncio.gather(
                page.aria_snapshot(mode="ai", timeout=self.config.navigation_timeout * 1000),
                page.title(),
                return_exceptions=True,
            )
            if isinstance(text, BaseException):
                raise ToolFailure(f"Could not read the page: {first_line(text)}") from None
            title = title if isinstance(title, str) else None
            tab = self._tabs.index(page)
            if filename is not None:
                saved = self._save(filename, "snapshot", "md", text.encode("utf-8"))
                return models.Snapshot(url=page.url, title=title, tab=tab, length=len(text), savedTo=saved)
            shown, cut = bound_text(text, self.config.max_snapshot_chars)
            return models.Snapshot(
                url=page.url,
                title=title,
                tab=tab,
                snapshot=shown,
                length=len(text),
                truncated=cut,
                notes=self._take_notes(),
            )

        return await self._call(work)

    def _save(self, filename: str | None, kind: str, extension: str, content: bytes) -> str:
        try:
            name = output_name(filename, kind=kind, extension=extension, now=datetime.now())
            return write_output(self.config.workspace, name, content)
        except OutputRefused as exc:
            raise NotAllowed(str(exc)) from None
        except OSError as exc:
            raise ToolFailure(f"Could not save the file in the workspace ({exc.strerror or exc}).") from None

    async def _act_on(
        self, ref: str, action: Callable[[Locator], Awaitable[object]], *, settle: bool = False
    ) -> models.PageState:
        """Do `action` on the element `ref` names and return the page's state (once it settles, with `settle`)."""

        async def work() -> models.PageState:
            page, state = self._page()
            locator = await self._locate(page, ref)
            await self._act(page, state, lambda: action(locator))
            if settle:
                await self._settle(page, state)
            return await self._state(page)

        return await self._call(work)

    async def click(self, ref: str, *, double: bool, button: Button, modifiers: list[Modifier]) -> models.PageState:
        async def clicking(locator: Locator) -> None:
            if double:
                await locator.dblclick(button=button, modifiers=modifiers)
            else:
                await locator.click(button=button, modifiers=modifiers)

        return await self._act_on(ref, clicking, settle=True)

    async def type(self, ref: str, text: str, *, submit: bool, slowly: bool) -> models.PageState:
        async def typing(locator: Locator) -> None:
            if slowly:
                await locator.press_sequentially(text)
            else:
                await locator.fill(text)
            if submit:
                await locator.press("Enter")

        return await self._act_on(ref, typing, settle=submit)

    async def fill_form(self, fields: list[tuple[str, str, str]]) -> models.PageState:
        """`fields` are (ref, type, value) with type textbox, checkbox, radio, combobox or slider."""

        async def work() -> models.PageState:
            page, state = self._page()
            located = [(await self._locate(page, ref), kind, value) for ref, kind, value in fields]

            async def filling() -> None:
                for locator, kind, value in located:
                    if kind in ("checkbox", "radio"):
                        await locator.set_checked(value.strip().lower() in ("true", "1", "yes", "on", "checked"))
                    elif kind == "combobox":
                        await locator.select_option(label=value)
                    else:
                        await locator.fill(value)

            await self._act(page, state, filling)
            return await self._state(page)

        return await self._call(work)

    async def select_option(self, ref: str, values: list[str]) -> models.PageState:
        return await self._act_on(ref, lambda locator: locator.select_option(values))

    async def hover(self, ref: str) -> models.PageState:
        return await self._act_on(ref, lambda locator: locator.hover())

    async def drag(self, start_ref: str, end_ref: str) -> models.PageState:
        async def work() -> models.PageState:
            page, state = self._page()
            start = await self._locate(page, start_ref)
            end = await self._locate(page, end_ref)
            await self._act(page, state, lambda: start.drag_to(end))
            return await self._state(page)

        return await self._call(work)

    async def press_key(self, key: str) -> models.PageState:
        async def work() -> models.PageState:
            page, state = self._page()
            await self._act(page, state, lambda: page.keyboard.press(key))
            await self._settle(page, state)
            return await self._state(page)

        return await self._call(work)

    async def wait_for(self, seconds: float | None, text: str | None, text_gone: str | None) -> models.PageState:
        async def work() -> models.PageState:
            page, _state = self._page()
            limit = self.config.navigation_timeout
            if seconds is not None:
                await page.wait_for_timeout(min(seconds, limit) * 1000)
            for wanted, visible in ((text, True), (text_gone, False)):
                if wanted is None:
                    continue
                locator = page.get_by_text(wanted).first
                try:
                    await locator.wait_for(state="visible" if visible else "hidden", timeout=limit * 1000)
                except PlaywrightTimeout:
                    what = "appear" if visible else "go away"
                    raise ToolFailure(
                        f"The text {wanted[:80]!r} did not {what} within {limit:g} s.", code=ErrorCode.TIMEOUT
                    ) from None
            return await self._state(page)

        return await self._call(work)

    async def evaluate(self, function: str, ref: str | None) -> models.Evaluated:
        async def work() -> models.Evaluated:
            page, state = self._page()
            if ref is not None:
                locator = await self._locate(page, ref)
                value = await self._act(page, state, lambda: locator.evaluate(function))
            else:
                value = await self._act(page, state, lambda: page.evaluate(function))
            text = json.dumps(value, ensure_ascii=False, default=str)
            if len(text) <= self.config.max_evaluate_chars:
                return models.Evaluated(result=value, length=len(text), url=page.url)
            shown, _ = bound_text(text, self.config.max_evaluate_chars)
            return models.Evaluated(result=shown, truncated=True, length=len(text), url=page.url)

        return await self._call(work)

    async def screenshot(
        self, *, kind: Literal["png", "jpeg"], filename: str | None, ref: str | None, full_page: bool
    ) -> models.Screenshot:
        async def work() -> models.Screenshot:
            page, _state = self._page()
            timeout = self.config.navigation_timeout * 1000
            try:
                if ref is not None:
                    locator = await self._locate(page, ref)
                    image = await locator.screenshot(type=kind, timeout=timeout)
                else:
                    image = await page.screenshot(type=kind, full_page=full_page, timeout=timeout)
            except PlaywrightError as exc:
                raise ToolFailure(f"Could not take the screenshot: {first_line(exc)}") from None
            path = self._save(filename, "screenshot", kind, image)
            return models.Screenshot(path=path, type=kind, bytes=len(image), url=page.url)

        return await self._call(work)

    async def resize(self, width: int, height: int) -> models.PageState:
        async def work() -> models.PageState:
            page, _state = self._page()
            await page.set_viewport_size({"width": width, "height": height})
            return await self._state(page)

        return await self._call(work)

    async def handle_dialog(self, accept: bool, prompt_text: str | None) -> models.PageState:
        async def work() -> models.PageState:
            page, state = self._open_tab("No page is open, so no dialog is waiting.")
            dialog = state.dialog
            if dialog is None:
                raise ToolFailure("No dialog is open on the current tab.")
            state.dialog = None
            try:
                if accept:
                    await dialog.accept(prompt_text) if prompt_text is not None else await dialog.accept()
                else:
                    await dialog.dismiss()
            except PlaywrightError as exc:
                raise ToolFailure(f"The dialog could not be answered: {first_line(exc)}") from None
            blocked, state.blocked_action = state.blocked_action, None
            if blocked is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(blocked), self.config.action_timeout)
            return await self._state(page)

        return await self._call(work)

    async def file_upload(self, paths: list[str] | None) -> models.PageState:
        async def work() -> models.PageState:
            page, state = self._open_tab("No page is open, so no file chooser is waiting.")
            chooser = state.chooser
            if chooser is None:
                raise ToolFailure("No file chooser is open: click the page's upload field first.")
            try:
                files = [upload_path(self.config.workspace, raw) for raw in paths or []]
            except OutputRefused as exc:
                raise NotAllowed(str(exc)) from None
            state.chooser = None
            try:
                await chooser.set_files(files)
            except PlaywrightError as exc:
                raise ToolFailure(f"The files could not be given to the page: {first_line(exc)}") from None
            return await self._state(page)

        return await self._call(work)

    async def tabs(self, action: Literal["list", "new", "close", "select"], index: int | None) -> models.Tabs:
        async def work() -> models.Tabs:
            if action == "new":
                await self._new_tab()
            elif action in ("close", "select"):
                if not self._tabs:
                    raise ToolFailure("No tab is open.")
                chosen = self._current if index is None else index
                if not 0 <= chosen < len(self._tabs):
                    raise InvalidArguments(f"There is no tab {chosen}; the tabs are 0..{len(self._tabs) - 1}.")
                if action == "select":
                    self._current = chosen
                    with contextlib.suppress(PlaywrightError):
                        await self._tabs[chosen].bring_to_front()
                else:
                    page = self._tabs[chosen]
                    await page.close()
                    self._forget(page)
            listed = []
            for position, page in enumerate(self._tabs):
                title = None
                if self._states[page].dialog is None:
                    with contextlib.suppress(PlaywrightError):
                        title = await page.title()
                listed.append(
                    models.TabInfo(index=position, url=page.url, title=title, current=position == self._current)
                )
            return models.Tabs(tabs=listed, maxTabs=self.config.max_tabs, notes=self._take_notes())

        return await self._call(work)

    async def console_messages(self, level: Level, filename: str | None) -> models.ConsoleMessages:
        async def work() -> models.ConsoleMessages:
            current = self._current_tab()
            if current is None:
                return models.ConsoleMessages(messages=[])
            _, state = current
            wanted = set(LEVELS[: LEVELS.index(level) + 1])
            messages = [m for m in state.console if m.level in wanted]
            if filename is not None:
                text = "\n".join(f"[{m.level}] {m.text}" for m in messages)
                return models.ConsoleMessages(
                    messages=[], savedTo=self._save(filename, "console", "txt", text.encode())
                )
            return models.ConsoleMessages(messages=messages)

        return await self._call(work)

    async def network_requests(self, include_static: bool, filename: str | None) -> models.NetworkRequests:
        async def work() -> models.NetworkRequests:
            current = self._current_tab()
            if current is None:
                return models.NetworkRequests(requests=[])
            _, state = current
            requests = [
                r
                for r in state.network
                if include_static or r.resourceType not in STATIC_TYPES or r.failure or (r.status or 0) >= 400
            ]
            if filename is not None:
                text = "\n".join(f"{r.method} {r.url} {r.status or r.failure}" for r in requests)
                return models.NetworkRequests(
                    requests=[], savedTo=self._save(filename, "network", "txt", text.encode())
                )
            return models.NetworkRequests(requests=requests)

        return await self._call(work)

    async def status(self) -> models.BrowserStatus:
        version = self._browser.version if self._browser is not None else None
        running = self.running
        state = "running" if running else "not running (it starts on the first browser call)"
        return models.BrowserStatus(
            executable=str(self.config.executable),
            running=running,
            version=version,
            message=f"Chromium is installed at {self.config.executable} and {state}; nothing needs installing.",
            isolated=self.config.isolated,
            max_tabs=self.config.max_tabs,
            allowed_hosts=self.config.allowed_hosts,
        )


def _describe_dialog(dialog: Dialog) -> str:
    message = dialog.message.replace("\n", " ")[:200]
    return f"A {dialog.type} dialog is open: {message!r}."


def _swallow(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
