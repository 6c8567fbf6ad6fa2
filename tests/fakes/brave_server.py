"""A fake Brave Search API on 127.0.0.1: the real paths, parameters, header and payload shapes.

    with FakeBrave(api_key="test-key") as brave:       # or the `brave` fixture in the searcher tests
        brave.fail(429, headers={"X-RateLimit-Reset": "1, 2592000"})   # next answer: an error
        brave.delay = 2.0                                # every answer after a pause
        ... BRAVE_API_BASE=brave.url ...
        assert brave.requests[0].params["q"] == "python"

It checks what the real API checks: the path (`/res/v1/{web,news,images}/search`), a non-empty `q`, `count`
within 1..20, `freshness` and `safesearch` values, and the `X-Subscription-Token` header (401 otherwise).
Every request is recorded, whatever the answer.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes.loopback import LoopbackServer

FRESHNESS = {"pd", "pw", "pm", "py"}
SAFESEARCH = {"web": {"off", "moderate", "strict"}, "images": {"off", "strict"}, "news": {"off", "moderate", "strict"}}


@dataclass(frozen=True)
class BraveRequest:
    kind: str
    params: dict[str, str]
    headers: dict[str, str]


@dataclass(frozen=True)
class Failure:
    status: int
    headers: dict[str, str] = field(default_factory=dict)


def web_payload(query: str, count: int) -> dict[str, Any]:
    results = [
        {
            "type": "search_result",
            "title": f"{query} result {n}",
            "url": f"https://example.com/{n}",
            "description": f"About <strong>{query}</strong>, number {n}.",
            "age": "2 days ago",
            "page_age": "2026-11-19T10:00:00",
            "language": "en",
            "profile": {"name": "Example", "url": "https://example.com", "long_name": "example.com"},
            "meta_url": {"scheme": "https", "netloc": "example.com", "hostname": "example.com", "path": f"› {n}"},
        }
        for n in range(1, count + 1)
    ]
    return {
        "type": "search",
        "query": {"original": query},
        "mixed": {"type": "mixed"},
        "web": {"type": "search", "results": results},
    }


def news_payload(query: str, count: int) -> dict[str, Any]:
    results = [
        {
            "type": "news_result",
            "title": f"News about {query} {n}",
            "url": f"https://news.example.org/{n}",
            "description": f"Latest on {query}.",
            "age": "3 hours ago",
            "page_age": "2026-11-21T07:00:00",
            "meta_url": {"scheme": "https", "netloc": "news.example.org", "hostname": "news.example.org"},
            "thumbnail": {"src": f"https://imgs.example.org/{n}.jpg"},
        }
        for n in range(1, count + 1)
    ]
    return {"type": "news", "query": {"original": query}, "results": results}


def images_payload(query: str, count: int) -> dict[str, Any]:
    results = [
        {
            "type": "image_result",
            "title": f"{query} picture {n}",
            "url": f"https://photos.example.net/page/{n}",
            "source": "photos.example.net",
            "thumbnail": {"src": f"https://imgs.search.brave.com/{n}.jpg"},
            "properties": {"url": f"https://photos.example.net/full/{n}.jpg", "width": 800, "height": 600},
            "meta_url": {"hostname": "photos.example.net"},
        }
        for n in range(1, count + 1)
    ]
    return {"type": "images", "query": {"original": query}, "results": results}


PAYLOADS = {"web": web_payload, "news": news_payload, "images": images_payload}


class FakeBrave(LoopbackServer):
    name = "fake-brave"

    def __init__(self, api_key: str = "test-key") -> None:
        super().__init__()
        self.api_key = api_key
        self.delay = 0.0
        self.requests: list[BraveRequest] = []
        self._failures: deque[Failure] = deque()
        self.app = Starlette(
            routes=[Route(f"/res/v1/{kind}/search", self._endpoint(kind), methods=["GET"]) for kind in PAYLOADS]
        )

    def fail(self, status: int, headers: dict[str, str] | None = None) -> None:
        """Answer the next request with `status` (and `headers`) instead of results."""
        self._failures.append(Failure(status, headers or {}))

    def _endpoint(self, kind: str) -> Any:
        async def handle(request: Request) -> JSONResponse:
            params = dict(request.query_params)
            self.requests.append(BraveRequest(kind, params, dict(request.headers)))
            if self.delay:
                await asyncio.sleep(self.delay)
            if request.headers.get("x-subscription-token") != self.api_key:
                return JSONResponse(
                    {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": 401}}, 401
                )
            if self._failures:
                failure = self._failures.popleft()
                return JSONResponse(
                    {"type": "ErrorResponse", "error": {"status": failure.status}},
                    failure.status,
                    headers=failure.headers,
                )
            problem = self._check(kind, params, request)
            if problem:
                return JSONResponse({"type": "ErrorResponse", "error": {"code": "VALIDATION", "detail": problem}}, 422)
            return JSONResponse(PAYLOADS[kind](params["q"], int(params.get("count", "10"))))

        return handle

    def _check(self, kind: str, params: dict[str, str], request: Request) -> str | None:
        if not params.get("q"):
            return "q is required"
        if "application/json" not in request.headers.get("accept", ""):
            return "Accept must be application/json"
        count = params.get("count", "10")
        if not count.isdigit() or not 1 <= int(count) <= 20:
            return f"count {count!r} is out of 1..20"
        if "freshness" in params and params["freshness"] not in FRESHNESS:
            return f"freshness {params['freshness']!r} is not valid"
        if "safesearch" in params and params["safesearch"] not in SAFESEARCH[kind]:
            return f"safesearch {params['safesearch']!r} is not valid"
        return None
