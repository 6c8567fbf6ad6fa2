"""What the browser tools return: small objects a model can read cheaply (the page itself only in a snapshot)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class BlockedRequest(BaseModel):
    """A request of the page that the address guard refused (private, local or metadata addresses)."""

    target: str
    reason: str


class PageState(BaseModel):
    """Where the current tab is after an action, and anything that now needs attention."""

    url: str
    title: str | None = None
    tab: int
    blockedRequests: list[BlockedRequest] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class Navigated(PageState):
    status: int | None = None
    """The HTTP status of the page's main response (None when it came from the cache or a non-HTTP source)."""


class Snapshot(BaseModel):
    url: str
    title: str | None = None
    tab: int
    snapshot: str | None = None
    """The accessibility tree as YAML-like text; `[ref=e12]` marks what click/type/hover accept."""
    length: int
    truncated: bool = False
    savedTo: str | None = None
    notes: list[str] = Field(default_factory=list)


class Screenshot(BaseModel):
    path: str
    """Relative to the workspace (FILER_WORKSPACE), e.g. `browser/screenshot-20260214-150102-123.png`."""
    type: Literal["png", "jpeg"]
    bytes: int
    url: str


class TabInfo(BaseModel):
    index: int
    url: str
    title: str | None = None
    current: bool


class Tabs(BaseModel):
    tabs: list[TabInfo]
    maxTabs: int
    notes: list[str] = Field(default_factory=list)


class Evaluated(BaseModel):
    result: Any = None
    """The function's return value as JSON; when it is longer than the limit, the start of its JSON text."""
    truncated: bool = False
    length: int
    url: str


class ConsoleMessage(BaseModel):
    level: Literal["error", "warning", "info", "debug"]
    text: str
    url: str | None = None


class ConsoleMessages(BaseModel):
    messages: list[ConsoleMessage]
    savedTo: str | None = None


class NetworkRequest(BaseModel):
    method: str
    url: str
    resourceType: str
    status: int | None = None
    failure: str | None = None


class NetworkRequests(BaseModel):
    requests: list[NetworkRequest]
    savedTo: str | None = None


class Closed(BaseModel):
    closed: bool
    message: str


class BrowserStatus(BaseModel):
    executable: str
    running: bool
    version: str | None = None
    message: str
    isolated: bool = Field(description="A fresh, empty profile each start (BROWSER_ISOLATED).")
    max_tabs: int = Field(description="Most tabs open at once (BROWSER_MAX_TABS).")
    allowed_hosts: list[str] = Field(
        description="Private or local hosts the egress guard lets through (WEB_FETCH_ALLOWED_HOSTS)."
    )
