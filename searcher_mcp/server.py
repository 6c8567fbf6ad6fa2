"""The Searcher MCP server: web, news and image search through Brave, and `web_fetch`.

The tools are thin: the lifespan builds one `SearcherService` (an httpx client for Brave, one for pages, the
rate-limit queue) from the settings of the moment. Without BRAVE_API_KEY the server starts and lists its tools;
the searches then answer with the sentence that says what to set. `web_fetch` needs no key.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Literal

import httpx
from mcp.server.mcpserver import Context
from pydantic import Field

from searcher_mcp.brave import BraveClient
from searcher_mcp.fetch import Fetcher, FetchLimits
from searcher_mcp.models import FetchedPage, ImageResults, NewsResults, SearchResults
from searcher_mcp.params import BadParameter, clamp_count, fetch_timeout_ms, map_freshness
from searcher_mcp.ratelimit import RateLimiter
from searcher_mcp.settings import SearcherSettings
from shared.mcp_tools import (
    READ_ONLY_OPEN_WORLD,
    EnvelopeServer,
    InvalidArguments,
    ServerState,
    configured_lifespan,
    envelope_tool,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearcherService:
    brave: BraveClient
    fetcher: Fetcher
    default_max_length: int


SearcherState = ServerState[SearcherService]


@configured_lifespan(SearcherSettings, name="searcher", display="The Searcher")
async def lifespan(settings: SearcherSettings) -> AsyncIterator[SearcherState]:
    key = settings.brave_api_key.get_secret_value() if settings.brave_api_key else None
    limits = FetchLimits(settings.web_fetch_max_bytes, settings.web_fetch_max_redirects, settings.allowed_hosts)
    async with (
        httpx.AsyncClient(base_url=settings.brave_api_base, timeout=settings.brave_timeout_seconds) as brave_http,
        httpx.AsyncClient(follow_redirects=False, trust_env=False) as page_http,
    ):
        service = SearcherService(
            brave=BraveClient(brave_http, key, RateLimiter(settings.brave_rate_limit_ms / 1000)),
            fetcher=Fetcher(page_http, limits),
            default_max_length=settings.web_fetch_max_length,
        )
        log.info("searcher ready", extra={"brave_key": key is not None})
        yield SearcherState(service)


server: EnvelopeServer[SearcherState] = EnvelopeServer(
    "searcher",
    instructions="Web, news and image search (Brave Search) and reading a web page as markdown (web_fetch).",
    lifespan=lifespan,
)

SearcherContext = Context[SearcherState]

Query = Annotated[str, Field(min_length=1, description="What to search for.")]
ResultCount = Annotated[int, Field(description="How many results, 1..20 (values outside are clamped).")]


def _freshness(value: str | None, *, allow_year: bool = True) -> tuple[str | None, str | None]:
    """Brave's freshness code, or no filter and a note saying why.

    Like the clamped count, a loose word is not worth a failed search: the 1.5B model sent "current", read the
    refusal and answered with advice instead of searching again. The note tells it (and a curl user) what ran.
    """
    try:
        return map_freshness(value, allow_year=allow_year), None
    except BadParameter as exc:
        return None, f"{exc} Searched without a date filter."


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def web_search(
    query: Query,
    ctx: SearcherContext,
    count: ResultCount = 10,
    freshness: Annotated[
        str | None, Field(description="Only recent pages: 24h/day/today/1d, week/7d, month/30d or year/1y/365d.")
    ] = None,
    safesearch: Annotated[
        Literal["off", "moderate", "strict"], Field(description="Adult-content filter.")
    ] = "moderate",
) -> SearchResults:
    """Search the web for current information: facts, prices, weather, results, opening hours, how-tos.

    Uses Brave Search. Returns [{title, url, description, age, source}].

    For requests like: what's the weather tomorrow, who won the game, how much is the dollar, look it up online.
    """
    size = clamp_count(count, 10)
    code, note = _freshness(freshness)
    results = await server.service(ctx).brave.web(query, size, code, safesearch)
    return SearchResults(query=query, count=len(results), results=results, note=note)


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def news_search(
    query: Query,
    ctx: SearcherContext,
    count: ResultCount = 10,
    freshness: Annotated[
        str | None, Field(description="Only recent news: 24h/day/today/1d, week/7d or month/30d.")
    ] = None,
) -> NewsResults:
    """Search recent news articles on a topic, person or company.

    Uses Brave Search. Returns [{title, url, description, age, source}].

    For requests like: latest news about the election, today's headlines, what happened with the strike.
    """
    size = clamp_count(count, 10)
    code, note = _freshness(freshness, allow_year=False)
    results = await server.service(ctx).brave.news(query, size, code)
    return NewsResults(query=query, count=len(results), results=results, note=note)


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def image_search(
    query: Query,
    ctx: SearcherContext,
    count: Annotated[int, Field(description="How many images, 1..20 (values outside are clamped).")] = 5,
    safesearch: Annotated[Literal["off", "strict"], Field(description="Adult-content filter.")] = "strict",
) -> ImageResults:
    """Search the web for images: photos, pictures, illustrations.

    Uses Brave Search. Returns [{title, url (page), image_url, thumbnail_url, source}].

    For requests like: show me pictures of the northern lights, find a photo of a red panda.
    """
    size = clamp_count(count, 5)
    results = await server.service(ctx).brave.images(query, size, safesearch)
    return ImageResults(query=query, count=len(results), results=results)


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def web_fetch(
    url: Annotated[str, Field(min_length=1, description="The http(s) address of the page to read.")],
    ctx: SearcherContext,
    maxLength: Annotated[
        int | None,
        Field(ge=1000, le=100000, description="Most characters of text to return (default WEB_FETCH_MAX_LENGTH)."),
    ] = None,
    includeLinks: Annotated[bool, Field(description="Keep links in the markdown as [text](url).")] = True,
    timeout: Annotated[  # noqa: ASYNC109
        int, Field(ge=1, le=30000, description="How long to wait for the page, in ms (1000-30000; 1-30 means seconds).")
    ] = 10000,
) -> FetchedPage:
    """Read a web page by its URL and return its main text as markdown (HTML and plain text only).

    Private, local and cloud-metadata addresses are refused, redirects included; long text is truncated.

    For requests like: summarise this link, what does this page say, read https://example.com.
    """
    service = server.service(ctx)
    try:
        wait_ms = fetch_timeout_ms(timeout)
    except BadParameter as exc:
        raise InvalidArguments(str(exc)) from None
    return await service.fetcher.fetch(url, maxLength or service.default_max_length, includeLinks, wait_ms)
