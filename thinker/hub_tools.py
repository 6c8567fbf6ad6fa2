"""The Thinker's only way to tools: the hub's `GET /tools/list` and `POST /tools/call` (through the one hub client,
`shared.hub_client.HubClient`), with the agent's token.

The hub derives the agent from the token and lists (and allows) only that agent's tools, so the catalog held
here is already the agent's. It is cached for `ttl` seconds (60 by default: a new MCP shows up within a minute
without a request per message) and fetched again at once when a call answers `UNKNOWN_TOOL` (a tool vanished).

Every call returns the hub's envelope; a hub that is down or answers garbage becomes an envelope too
(`MCP_UNAVAILABLE` with a sentence), so the model reads what happened instead of the turn crashing.
`HubUnavailable` is raised only by `catalog()` when there is no earlier copy to fall back on.

Inside `with hub.turn(turn_id)` every call names the hub's turn (`X-Annabelle-Turn`): the hub keeps that turn's
taint and may hold a call that could change something for the owner's approval, so such a call may wait up to
`APPROVAL_TIMEOUT_S` longer than others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpx

from shared.contracts.hub_api import TURN_HEADER
from shared.envelope import ErrorCode
from shared.hub_client import HubClient, HubError, HubRefused, HubUnreachable
from thinker.catalog import ToolCatalog, catalog_of

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


_turn: ContextVar[str | None] = ContextVar("annabelle_turn", default=None)


class HubUnavailable(Exception):
    """The hub could not be reached or refused us; the message names its URL and what to check."""


class HubTools:
    def __init__(
        self,
        base_url: str,
        token: TokenSource,
        *,
        agent_id: str,
        ttl: float = DEFAULT_TTL_SECONDS,
        timeout: float = 120.0,
        approval_timeout: float = 0.0,
        clock: Clock = time.monotonic,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.approval_timeout = approval_timeout
        self.agent_id = agent_id
        self.ttl = ttl
        self.clock = clock
        self._client = HubClient(self.base_url, token, timeout=timeout, transport=transport)
        self._timeout = timeout
        self._catalog: ToolCatalog | None = None
        self._fetched_at = 0.0
        self.connected = False
        """Whether the last exchange with the hub worked (for /health)."""

    async def aclose(self) -> None:
        await self._client.aclose()

    @staticmethod
    @contextmanager
    def turn(turn_id: str | None) -> Iterator[None]:
        """The calls made inside the block belong to the hub's turn `turn_id` (asyncio tasks started inside too)."""
        token = _turn.set(turn_id)
        try:
            yield
        finally:
            _turn.reset(token)

    def may_be_held(self, name: str) -> bool:
        """Could the hub hold this call for the owner (it could change something, or reach the outside)?"""
        tool = self._catalog.tools.get(name) if self._catalog is not None else None
        return tool is None or tool.effects.side_effects or tool.effects.openWorldHint

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
            listing = await self._client.list_tools()
        except HubRefused:
            self.connected = False
            raise HubUnavailable(
                f"The hub at {self.base_url} refused this agent's token (HTTP 401): ANNABELLE_AGENT_TOKEN must be the "
                "token the hub minted for this agent, or the master token."
            ) from None
        except HubUnreachable as exc:
            self.connected = False
            raise HubUnavailable(
                f"The hub at {self.base_url} is not reachable ({exc.cause}); is the orchestrator running "
                "(ORCHESTRATOR_URL)?"
            ) from None
        except HubError as exc:
            self.connected = False
            raise HubUnavailable(f"The hub at {self.base_url} sent an unusable tool list ({exc}).") from None
        self.connected = True
        return catalog_of(listing)

    async def call(self, name: str, arguments: Mapping[str, Any], *, within: float | None = None) -> dict[str, Any]:
        """Run a tool through the hub; always an envelope `{success, data?, error?, errorCode?, blocked?}`.

        `within` shortens the wait to what is left of the turn's time (never below a second), plus the time the
        owner has to approve a call the hub may hold."""
        held = self.may_be_held(name)
        seconds = call_timeout(name, arguments, self._timeout) + (self.approval_timeout if held else 0.0)
        if within is not None:
            # The owner's time to approve a held call is not the turn's (the loop gives it back to the turn).
            seconds = max(1.0, min(seconds, within + (self.approval_timeout if held else 0.0)))
        turn = _turn.get()
        headers = {TURN_HEADER: turn} if turn else None
        envelope = await self._client.call_tool(name, arguments, seconds=seconds, headers=headers)
        self.connected = envelope.get("errorCode") not in (ErrorCode.MCP_UNAVAILABLE, ErrorCode.TIMEOUT)
        if envelope.get("errorCode") == ErrorCode.UNKNOWN_TOOL:
            # The tool list this agent holds is out of date: fetch it again before the next selection.
            self.invalidate()
        return envelope
