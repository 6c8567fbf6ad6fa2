"""The Thinker's only way to tools: the hub's `GET /tools/list` and `POST /tools/call`, with the agent's token.

The hub derives the agent from the token and lists (and allows) only that agent's tools, so the catalog held
here is already the agent's. It is cached for `ttl` seconds (60 by default: a new MCP shows up within a minute
without a request per message) and fetched again at once when a call answers `UNKNOWN_TOOL` (a tool vanished).

Every call returns the hub's envelope; a hub that is down or answers garbage becomes an envelope too
(`MCP_UNAVAILABLE` with a sentence), so the model reads what happened instead of the turn crashing.
`HubUnavailable` is raised only by `catalog()` when there is no earlier copy to fall back on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from shared.auth import TOKEN_HEADER
from shared.envelope import ErrorCode, fail
from shared.traces import trace_headers

log = logging.getLogger(__name__)

Clock = Callable[[], float]
TokenSource = Callable[[], str | None]

DEFAULT_TTL_SECONDS = 60.0
SUBAGENT_TOOL = "spawn_subagent"
SUBAGENT_DEFAULT_MINUTES = 5
SUBAGENT_START_ALLOWANCE_SECONDS = 120.0
"""A subagent's Thinker may take this long to start before its task's own time limit begins to count."""


def call_timeout(name: str, arguments: Mapping[str, Any], default: float) -> float:
    """How long to wait for the hub: `spawn_subagent` runs a whole task elsewhere, bounded by its own timeout."""
    if name != SUBAGENT_TOOL:
        return default
    minutes = arguments.get("timeoutMinutes", SUBAGENT_DEFAULT_MINUTES)
    if not isinstance(minutes, int | float) or isinstance(minutes, bool):
        return default
    return max(default, float(minutes) * 60 + SUBAGENT_START_ALLOWANCE_SECONDS)


class HubUnavailable(Exception):
    """The hub could not be reached or refused us; the message names its URL and what to check."""


@dataclass(frozen=True)
class HubTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    mcp: str | None
    """The MCP that serves it; None for the hub's own tools (get_status, get_tool_catalog...)."""


@dataclass(frozen=True)
class HubMcp:
    name: str
    label: str
    tool_group: str
    keywords: tuple[str, ...] = ()
    tool_count: int = 0
    available: bool = True


@dataclass(frozen=True)
class ToolCatalog:
    tools: dict[str, HubTool] = field(default_factory=dict)
    mcps: dict[str, HubMcp] = field(default_factory=dict)
    fingerprint: str = ""
    """Changes whenever a tool, a schema, a description or an MCP changes (to know when to re-embed)."""

    def has(self, name: str) -> bool:
        return name in self.tools


def owning_mcp(tool: str, mcps: Mapping[str, object]) -> str | None:
    """The MCP whose `{name}_` prefix `tool` carries (the longest, should one name prefix another)."""
    matches = [name for name in mcps if tool.startswith(f"{name}_")]
    return max(matches, key=len) if matches else None


def parse_catalog(payload: Any) -> ToolCatalog:
    """`GET /tools/list`'s body → a `ToolCatalog`; malformed entries are skipped, not fatal."""
    if not isinstance(payload, dict):
        raise ValueError("the tool list is not a JSON object")
    mcps: dict[str, HubMcp] = {}
    for name, meta in (payload.get("mcps") or {}).items():
        if not isinstance(meta, dict):
            continue
        mcps[str(name)] = HubMcp(
            name=str(name),
            label=str(meta.get("label") or name),
            tool_group=str(meta.get("toolGroup") or ""),
            keywords=tuple(str(k) for k in meta.get("keywords") or ()),
            tool_count=int(meta.get("toolCount") or 0),
            available=bool(meta.get("available", True)),
        )
    tools: dict[str, HubTool] = {}
    for entry in payload.get("tools") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        schema = entry.get("inputSchema")
        name = entry["name"]
        tools[name] = HubTool(
            name=name,
            description=str(entry.get("description") or ""),
            input_schema=schema if isinstance(schema, dict) else {"type": "object", "properties": {}},
            mcp=owning_mcp(name, mcps),
        )
    digest = hashlib.sha256(
        json.dumps([payload.get("tools"), payload.get("mcps")], sort_keys=True, default=str).encode()
    ).hexdigest()
    return ToolCatalog(tools, mcps, digest)


class HubClient:
    def __init__(
        self,
        base_url: str,
        token: TokenSource,
        *,
        agent_id: str,
        ttl: float = DEFAULT_TTL_SECONDS,
        timeout: float = 120.0,
        clock: Clock = time.monotonic,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.agent_id = agent_id
        self.ttl = ttl
        self.clock = clock
        self._token = token
        self._client = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport)
        self._timeout = timeout
        self._catalog: ToolCatalog | None = None
        self._fetched_at = 0.0
        self.connected = False
        """Whether the last exchange with the hub worked (for /health)."""

    async def aclose(self) -> None:
        await self._client.aclose()

    def _headers(self) -> dict[str, str]:
        token = self._token()
        return {TOKEN_HEADER: token} if token else {}

    def invalidate(self) -> None:
        """Fetch the tool list again on the next `catalog()` call."""
        self._fetched_at = float("-inf")

    @property
    def cached(self) -> ToolCatalog | None:
        return self._catalog

    async def catalog(self, *, force: bool = False) -> ToolCatalog:
        """The agent's tools and the MCPs' metadata, at most `ttl` seconds old.

        When the hub cannot be asked, the previous copy is returned (and the failure logged); with no previous
        copy `HubUnavailable` is raised.
        """
        fresh = self._catalog is not None and self.clock() - self._fetched_at < self.ttl
        if fresh and not force and self._catalog is not None:
            return self._catalog
        try:
            catalog = await self._fetch_catalog()
        except HubUnavailable as exc:
            if self._catalog is None:
                raise
            log.warning("tool list not refreshed; using the previous one", extra={"reason": str(exc)})
            self._fetched_at = self.clock()
            return self._catalog
        if self._catalog is not None and catalog.fingerprint != self._catalog.fingerprint:
            added = sorted(set(catalog.tools) - set(self._catalog.tools))
            removed = sorted(set(self._catalog.tools) - set(catalog.tools))
            log.info("hub tools changed", extra={"added": added, "removed": removed})
        self._catalog = catalog
        self._fetched_at = self.clock()
        return catalog

    async def _fetch_catalog(self) -> ToolCatalog:
        try:
            response = await self._client.get("/tools/list", headers=self._headers())
        except httpx.HTTPError as exc:
            self.connected = False
            raise HubUnavailable(
                f"The hub at {self.base_url} is not reachable ({type(exc).__name__}); is the orchestrator running "
                "(ORCHESTRATOR_URL)?"
            ) from None
        if response.status_code == 401:
            self.connected = False
            raise HubUnavailable(
                f"The hub at {self.base_url} refused this agent's token (HTTP 401): ANNABELLE_AGENT_TOKEN must be the "
                "token the hub minted for this agent, or the master token."
            )
        try:
            response.raise_for_status()
            catalog = parse_catalog(response.json())
        except (httpx.HTTPStatusError, ValueError) as exc:
            self.connected = False
            raise HubUnavailable(f"The hub at {self.base_url} sent an unusable tool list ({exc}).") from None
        self.connected = True
        return catalog

    async def call(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Run a tool through the hub; always an envelope `{success, data?, error?, errorCode?, blocked?}`."""
        try:
            response = await self._client.post(
                "/tools/call",
                json={"name": name, "arguments": dict(arguments)},
                # The turn's trace id, so the hub's record of this call joins the turn's trace.
                headers={**self._headers(), **trace_headers()},
                timeout=call_timeout(name, arguments, self._timeout),
            )
        except httpx.TimeoutException:
            self.connected = False
            return fail(ErrorCode.TIMEOUT, f"The hub did not answer the call to {name} in time.")
        except httpx.HTTPError as exc:
            self.connected = False
            return fail(
                ErrorCode.MCP_UNAVAILABLE,
                f"The hub at {self.base_url} is not reachable ({type(exc).__name__}), so {name} did not run.",
            )
        envelope = self._envelope(name, response)
        if envelope.get("errorCode") == ErrorCode.UNKNOWN_TOOL:
            # The tool list this agent holds is out of date: fetch it again before the next selection.
            self.invalidate()
        return envelope

    def _envelope(self, name: str, response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code == 200 and isinstance(body, dict) and isinstance(body.get("success"), bool):
            self.connected = True
            return body
        detail = body.get("error") if isinstance(body, dict) else None
        if response.status_code == 401:
            return fail(ErrorCode.NOT_ALLOWED, f"The hub refused this agent's token, so {name} did not run.")
        return fail(
            ErrorCode.TOOL_ERROR,
            f"The hub answered HTTP {response.status_code} to the call to {name}"
            + (f": {detail}" if isinstance(detail, str) else "."),
        )
