"""The one HTTP seam to Google: bearer auth from the token file, refresh when expired and once on a 401.

The OAuth files are read on each call (cheaply), so `annabelle setup gmail` takes effect without a restart and
a missing file is reported by the call that needed it. `GoogleError` carries the sentence for the caller.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx

from gmail_mcp.oauth import ClientConfig, OAuthError, Token, load_token, needs_refresh, refresh_token, save_token

log = logging.getLogger(__name__)


class GoogleError(Exception):
    """Google answered with an error (or could not be reached); the message is for the caller."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NotFound(GoogleError):
    """Google answered 404: the message, event, label… does not exist."""


def segment(value: str) -> str:
    """One path segment, escaped (calendar ids contain '@' and '#')."""
    return quote(value, safe="@")


def google_error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or body["error"].get("status") or f"HTTP {response.status_code}")
    return f"HTTP {response.status_code}"


class GoogleApi:
    """Authorised requests to `{base}/...`; `http` is the transport seam, `clock` gives Unix seconds."""

    def __init__(
        self,
        base: str,
        credentials_path: Path,
        token_path: Path,
        http: httpx.AsyncClient,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.base = base.rstrip("/")
        self.credentials_path = credentials_path
        self.token_path = token_path
        self.http = http
        self.clock = clock
        self._lock = anyio.Lock()

    async def _refresh(self, config: ClientConfig, token: Token) -> Token:
        fresh = await refresh_token(self.http, config, token, self.clock())
        save_token(self.token_path, fresh)
        log.info("gmail token refreshed")
        return fresh

    async def _current_token(self, *, force_refresh: bool = False, stale: str | None = None) -> Token:
        async with self._lock:
            config = ClientConfig.load(self.credentials_path)
            token = load_token(self.token_path)
            # Another call may already have refreshed the token that just got a 401.
            if force_refresh and token.access_token == stale:
                return await self._refresh(config, token)
            if needs_refresh(token, self.clock()):
                return await self._refresh(config, token)
            return token

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | list[tuple[str, Any]] | None = None,
        json: Any = None,
    ) -> Any:
        """Call `{base}{path}`; the JSON answer (None for an empty one), or `GoogleError`."""
        try:
            token = await self._current_token()
            response = await self._send(method, path, token, params, json)
            if response.status_code == 401:
                token = await self._current_token(force_refresh=True, stale=token.access_token)
                response = await self._send(method, path, token, params, json)
        except OAuthError as exc:
            raise GoogleError(str(exc)) from None
        if response.status_code == 401:
            raise GoogleError(
                "Google still refuses the Gmail token after a refresh: run `annabelle setup gmail` again."
            )
        if response.status_code == 404:
            raise NotFound(f"Not found: {google_error_message(response)}.", 404)
        if response.status_code >= 400:
            raise GoogleError(
                f"Google answered {response.status_code}: {google_error_message(response)}.", response.status_code
            )
        if not response.content:
            return None
        return response.json()

    async def _send(self, method: str, path: str, token: Token, params: Any, json: Any) -> httpx.Response:
        if isinstance(params, dict):
            params = {key: value for key, value in params.items() if value is not None}
        try:
            return await self.http.request(
                method,
                f"{self.base}{path}",
                params=params,
                json=json,
                headers={"Authorization": f"Bearer {token.access_token}"},
            )
        except httpx.HTTPError as exc:
            raise GoogleError(
                f"Google cannot be reached at {self.base} ({type(exc).__name__}); try again later."
            ) from None
