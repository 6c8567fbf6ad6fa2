"""The three search tools, in-process through an MCP client, against the fake Brave API on loopback."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from searcher_mcp.server import server
from tests.fakes.brave_server import FakeBrave

KEY = "test-key"


@pytest.fixture
def brave(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBrave]:
    with FakeBrave(api_key=KEY) as fake:
        monkeypatch.setenv("BRAVE_API_BASE", fake.url)
        monkeypatch.setenv("BRAVE_API_KEY", KEY)
        monkeypatch.setenv("BRAVE_RATE_LIMIT_MS", "0")
        yield fake


async def call(tool: str, **arguments: Any) -> dict[str, Any]:
    async with Client(server) as client:
        result = await client.call_tool(tool, arguments)
    envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert result.is_error == (not envelope["success"])
    return envelope


async def test_the_server_lists_its_four_tools() -> None:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"web_search", "news_search", "image_search", "web_fetch"}
    fetch_schema = tools["web_fetch"].input_schema["properties"]
    assert {"url", "maxLength", "includeLinks", "timeout"} <= set(fetch_schema)
    assert tools["image_search"].input_schema["properties"]["safesearch"]["default"] == "strict"


async def test_web_search_sends_the_mapped_parameters_and_returns_compact_results(brave: FakeBrave) -> None:
    envelope = await call("web_search", query="python asyncio", count=3, freshness="week", safesearch="strict")
    assert envelope["success"], envelope
    data = envelope["data"]
    assert data["count"] == 3
    assert data["results"][0] == {
        "title": "python asyncio result 1",
        "url": "https://example.com/1",
        "description": "About <strong>python asyncio</strong>, number 1.",
        "age": "2 days ago",
        "source": "Example",
    }
    request = brave.requests[0]
    assert request.kind == "web"
    assert request.params == {"q": "python asyncio", "count": "3", "freshness": "pw", "safesearch": "strict"}
    assert request.headers["x-subscription-token"] == KEY
    assert request.headers["accept"] == "application/json"


async def test_web_search_defaults_to_ten_moderate_results_and_clamps_the_count(brave: FakeBrave) -> None:
    assert (await call("web_search", query="a"))["data"]["count"] == 10
    assert (await call("web_search", query="b", count=99))["data"]["count"] == 20
    assert (await call("web_search", query="c", count="0"))["data"]["count"] == 1
    assert [r.params.get("safesearch") for r in brave.requests] == ["moderate"] * 3
    assert [r.params["count"] for r in brave.requests] == ["10", "20", "1"]


async def test_news_search_maps_freshness_and_searches_without_a_year(brave: FakeBrave) -> None:
    envelope = await call("news_search", query="elections", freshness="24h", count=2)
    assert envelope["data"]["results"][0]["source"] == "news.example.org"
    assert envelope["data"]["note"] is None
    assert brave.requests[0].kind == "news"
    assert brave.requests[0].params["freshness"] == "pd"
    yearly = await call("news_search", query="elections", freshness="year")
    assert yearly["success"], yearly
    assert "freshness 'year' is not understood" in yearly["data"]["note"]
    assert "freshness" not in brave.requests[1].params


async def test_a_freshness_word_not_understood_costs_the_filter_not_the_search(brave: FakeBrave) -> None:
    envelope = await call("web_search", query="louvre opening hours", freshness="current" * 1000)
    assert envelope["success"], envelope
    note = envelope["data"]["note"]
    assert note.endswith("Searched without a date filter.") and "24h/day/today/1d" in note
    assert len(note) < 200
    assert envelope["data"]["count"] == 10
    assert "freshness" not in brave.requests[0].params


async def test_image_search_defaults_to_five_strict_images(brave: FakeBrave) -> None:
    envelope = await call("image_search", query="red panda")
    results = envelope["data"]["results"]
    assert len(results) == 5
    assert results[0]["image_url"] == "https://photos.example.net/full/1.jpg"
    assert results[0]["thumbnail_url"] == "https://imgs.search.brave.com/1.jpg"
    assert brave.requests[0].kind == "images"
    assert brave.requests[0].params["safesearch"] == "strict"


async def test_without_a_key_searches_say_where_to_get_one(brave: FakeBrave, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY")
    envelope = await call("web_search", query="x")
    assert envelope["error"] == "Set BRAVE_API_KEY (get one at https://brave.com/search/api/)"
    assert brave.requests == []


async def test_a_rejected_key_is_reported(brave: FakeBrave, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "wrong")
    envelope = await call("web_search", query="x")
    assert "rejected BRAVE_API_KEY (HTTP 401)" in envelope["error"]


async def test_an_exhausted_quota_names_the_reset_time(brave: FakeBrave) -> None:
    brave.fail(429, headers={"X-RateLimit-Reset": "1, 2592000"})
    envelope = await call("web_search", query="x")
    assert "quota or rate limit is exhausted" in envelope["error"]
    assert "reset in 1 s / 30 days" in envelope["error"]


async def test_a_server_error_is_a_sentence(brave: FakeBrave) -> None:
    brave.fail(503)
    envelope = await call("news_search", query="x")
    assert envelope["error"] == "Brave Search is having trouble (HTTP 503); try again in a moment."


async def test_a_slow_api_times_out_with_a_clear_message(brave: FakeBrave, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_TIMEOUT_SECONDS", "0.2")
    brave.delay = 1.0
    envelope = await call("web_search", query="x")
    assert envelope["errorCode"] == "TIMEOUT"
    assert "did not answer in time" in envelope["error"]


async def test_calls_are_queued_by_the_rate_limit_not_refused(
    brave: FakeBrave, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_RATE_LIMIT_MS", "300")
    async with Client(server) as client:
        started = time.monotonic()
        for _ in range(3):
            result = await client.call_tool("web_search", {"query": "q", "count": 1})
            assert not result.is_error
        elapsed = time.monotonic() - started
    assert elapsed >= 0.55
    assert len(brave.requests) == 3
