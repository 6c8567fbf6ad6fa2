"""The Brave Search API client: one queued GET per search, errors turned into sentences, results compacted."""

from __future__ import annotations

import logging
from typing import Any, TypeVar

import httpx

from searcher_mcp.models import ImageResult, NewsResult, WebResult
from searcher_mcp.ratelimit import RateLimiter
from shared.envelope import ErrorCode
from shared.mcp_tools import ToolFailure

ResultT = TypeVar("ResultT", bound=WebResult)

log = logging.getLogger(__name__)

MISSING_KEY = "Set BRAVE_API_KEY (get one at https://brave.com/search/api/)"
PATHS = {"web": "/res/v1/web/search", "news": "/res/v1/news/search", "images": "/res/v1/images/search"}


def describe_reset(header: str | None) -> str:
    """'; it resets in 1 s / 30 days' from Brave's `X-RateLimit-Reset` (seconds per window), or ''."""
    if not header:
        return ""
    spans = []
    for part in header.split(","):
        try:
            spans.append(_duration(int(part.strip())))
        except ValueError:
            continue
    return f"; the limits reset in {' / '.join(spans)}" if spans else ""


def _duration(seconds: int) -> str:
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size * 2:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def error_for_status(response: httpx.Response) -> ToolFailure:
    status = response.status_code
    if status in (401, 403):
        return ToolFailure(
            f"Brave Search rejected BRAVE_API_KEY (HTTP {status}); check the key at https://brave.com/search/api/."
        )
    if status == 429:
        reset = describe_reset(response.headers.get("x-ratelimit-reset"))
        return ToolFailure(f"Brave Search quota or rate limit is exhausted (HTTP 429){reset}. Try again later.")
    if status >= 500:
        return ToolFailure(f"Brave Search is having trouble (HTTP {status}); try again in a moment.")
    return ToolFailure(f"Brave Search refused the request (HTTP {status}): {response.text[:200]}")


class BraveClient:
    """Searches through `{base}/res/v1/...`; every call waits its turn in the rate-limit queue."""

    def __init__(self, http: httpx.AsyncClient, api_key: str | None, limiter: RateLimiter) -> None:
        self._http = http
        self._key = api_key
        self._limiter = limiter

    async def _get(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        if not self._key:
            raise ToolFailure(MISSING_KEY)
        await self._limiter.wait_turn()
        headers = {"X-Subscription-Token": self._key, "Accept": "application/json"}
        query = {key: value for key, value in params.items() if value is not None}
        try:
            response = await self._http.get(PATHS[kind], params=query, headers=headers)
        except httpx.TimeoutException:
            raise ToolFailure("Brave Search did not answer in time; try again.", code=ErrorCode.TIMEOUT) from None
        except httpx.HTTPError as exc:
            raise ToolFailure(f"Brave Search could not be reached ({type(exc).__name__}); try again later.") from None
        if response.status_code != 200:
            log.warning("brave error", extra={"status": response.status_code, "kind": kind})
            raise error_for_status(response)
        try:
            data = response.json()
        except ValueError:
            raise ToolFailure("Brave Search answered with something that is not JSON; try again later.") from None
        return data if isinstance(data, dict) else {}

    async def web(self, query: str, count: int, freshness: str | None, safesearch: str) -> list[WebResult]:
        data = await self._get("web", {"q": query, "count": count, "freshness": freshness, "safesearch": safesearch})
        items = (data.get("web") or {}).get("results") or []
        return [
            _result(WebResult, item, _profile(item) or _hostname(item))
            for item in items[:count]
            if isinstance(item, dict)
        ]

    async def news(self, query: str, count: int, freshness: str | None) -> list[NewsResult]:
        data = await self._get("news", {"q": query, "count": count, "freshness": freshness})
        return [
            _result(NewsResult, item, _hostname(item) or _profile(item))
            for item in (data.get("results") or [])[:count]
            if isinstance(item, dict)
        ]

    async def images(self, query: str, count: int, safesearch: str) -> list[ImageResult]:
        data = await self._get("images", {"q": query, "count": count, "safesearch": safesearch})
        results = []
        for item in (data.get("results") or [])[:count]:
            if not isinstance(item, dict):
                continue
            properties = item.get("properties") or {}
            results.append(
                ImageResult(
                    title=_text(item.get("title")),
                    url=_text(item.get("url")),
                    image_url=properties.get("url"),
                    thumbnail_url=(item.get("thumbnail") or {}).get("src"),
                    source=item.get("source"),
                    width=properties.get("width") if isinstance(properties.get("width"), int) else None,
                    height=properties.get("height") if isinstance(properties.get("height"), int) else None,
                )
            )
        return results


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _profile(item: dict[str, Any]) -> Any:
    """The site's own name (e.g. "Wikipedia"), when Brave knows it."""
    return (item.get("profile") or {}).get("name")


def _hostname(item: dict[str, Any]) -> Any:
    return (item.get("meta_url") or {}).get("hostname")


def _result(model: type[ResultT], item: dict[str, Any], source: Any) -> ResultT:
    return model(
        title=_text(item.get("title")),
        url=_text(item.get("url")),
        description=_text(item.get("description")),
        age=item.get("age") or item.get("page_age"),
        source=source,
    )
