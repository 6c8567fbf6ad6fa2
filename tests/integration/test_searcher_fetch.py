"""web_fetch against pages served on 127.0.0.1: extraction, truncation, refusals, redirects, size limit.

Only loopback is ever contacted: refused hosts are refused before any connection, and names are resolved by an
injected resolver.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from mcp import Client
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from searcher_mcp.fetch import Fetcher, FetchLimits
from searcher_mcp.server import server
from shared.mcp_tools import NotAllowed, ToolFailure
from shared.netguard import IPAddress
from tests.fakes.loopback import LoopbackServer

PARAGRAPH = "The red panda is a small mammal native to the eastern Himalayas and south-western China. "
ARTICLE = f"""<!doctype html><html><head><title>Red pandas</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a> | Cookie settings</nav>
<article><h1>Red pandas</h1>
<p>{PARAGRAPH * 3} Read the <a href="https://en.wikipedia.org/wiki/Red_panda">encyclopedia entry</a>.</p>
<p>{"They eat mostly bamboo and spend much of their lives in trees. " * 6}</p>
</article><footer>Copyright footer text</footer></body></html>"""


class Pages(LoopbackServer):
    name = "pages"

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

        async def article(_: Request) -> Response:
            return Response(ARTICLE, media_type="text/html; charset=utf-8")

        async def long(_: Request) -> Response:
            body = "<html><body><article>" + "".join(f"<p>{PARAGRAPH} Paragraph {n}.</p>" for n in range(400))
            return Response(body + "</article></body></html>", media_type="text/html")

        async def plain(request: Request) -> Response:
            return PlainTextResponse(f"host={request.headers['host']}")

        async def pdf(_: Request) -> Response:
            return Response(b"%PDF-1.4", media_type="application/pdf")

        async def big(_: Request) -> Response:
            async def chunks() -> AsyncIterator[bytes]:
                for _ in range(10):
                    yield b"<p>" + b"x" * 1000 + b"</p>"

            return StreamingResponse(chunks(), media_type="text/html")

        async def to_private(_: Request) -> Response:
            return RedirectResponse("http://10.0.0.1/admin", status_code=302)

        async def to_other_loopback(_: Request) -> Response:
            return RedirectResponse(f"http://127.0.0.2:{self.port}/article", status_code=301)

        async def to_article(_: Request) -> Response:
            return RedirectResponse("/article", status_code=302)

        async def loop(request: Request) -> Response:
            step = int(request.query_params.get("n", "0"))
            return RedirectResponse(f"/loop?n={step + 1}", status_code=307)

        async def missing(_: Request) -> Response:
            return PlainTextResponse("gone", status_code=404)

        handlers = {
            "/article": article,
            "/long": long,
            "/plain": plain,
            "/doc.pdf": pdf,
            "/big": big,
            "/to-private": to_private,
            "/to-other-loopback": to_other_loopback,
            "/to-article": to_article,
            "/loop": loop,
            "/missing": missing,
        }
        self.app = Starlette(routes=[Route(path, self._record(fn)) for path, fn in handlers.items()])

    def _record(self, fn: Any) -> Any:
        async def handle(request: Request) -> Response:
            self.paths.append(request.url.path)
            return await fn(request)

        return handle


@pytest.fixture
def pages(monkeypatch: pytest.MonkeyPatch) -> Iterator[Pages]:
    with Pages() as served:
        monkeypatch.setenv("WEB_FETCH_ALLOWED_HOSTS", "127.0.0.1")
        yield served


async def fetch(**arguments: Any) -> dict[str, Any]:
    async with Client(server) as client:
        result = await client.call_tool("web_fetch", arguments)
    envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert result.is_error == (not envelope["success"])
    return envelope


async def test_an_article_comes_back_as_markdown_without_the_page_chrome(pages: Pages) -> None:
    envelope = await fetch(url=f"{pages.url}/article")
    page = envelope["data"]
    assert page["title"] == "Red pandas"
    assert page["content_type"] == "text/html"
    assert "red panda is a small mammal" in page["content"]
    assert "[encyclopedia entry](https://en.wikipedia.org/wiki/Red_panda)" in page["content"]
    assert "Cookie settings" not in page["content"]
    assert page["truncated"] is False


async def test_links_can_be_left_out(pages: Pages) -> None:
    page = (await fetch(url=f"{pages.url}/article", includeLinks=False))["data"]
    assert "encyclopedia entry" in page["content"]
    assert "](https://" not in page["content"]


async def test_long_text_is_truncated_with_a_marker(pages: Pages) -> None:
    page = (await fetch(url=f"{pages.url}/long", maxLength=1000))["data"]
    assert page["truncated"] is True
    assert page["length"] > 20000
    assert page["content"].endswith(f"[… truncated: showing 1000 of {page['length']} characters]")
    default = (await fetch(url=f"{pages.url}/long"))["data"]
    assert default["content"].startswith(default["content"][:100])
    assert f"showing 20000 of {default['length']}" in default["content"]


async def test_a_timeout_in_seconds_is_understood_and_one_in_neither_unit_refused(pages: Pages) -> None:
    assert (await fetch(url=f"{pages.url}/plain", timeout=30))["success"]
    refused = await fetch(url=f"{pages.url}/plain", timeout=300)
    assert refused["errorCode"] == "INVALID_ARGUMENTS" and "1..30 seconds" in refused["error"]


async def test_plain_text_is_returned_as_is(pages: Pages) -> None:
    page = (await fetch(url=f"{pages.url}/plain"))["data"]
    assert page["content"] == f"host=127.0.0.1:{pages.port}"


async def test_other_content_types_are_refused(pages: Pages) -> None:
    envelope = await fetch(url=f"{pages.url}/doc.pdf")
    assert "is application/pdf; web_fetch reads only HTML and plain-text pages" in envelope["error"]


async def test_an_http_error_is_reported(pages: Pages) -> None:
    assert "answered HTTP 404" in (await fetch(url=f"{pages.url}/missing"))["error"]


async def test_a_body_over_the_size_limit_is_refused(pages: Pages, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_FETCH_MAX_BYTES", "4096")
    envelope = await fetch(url=f"{pages.url}/big")
    assert "larger than the 4096 byte limit (WEB_FETCH_MAX_BYTES)" in envelope["error"]


async def test_a_redirect_is_followed_and_reported(pages: Pages) -> None:
    page = (await fetch(url=f"{pages.url}/to-article"))["data"]
    assert page["final_url"] == f"{pages.url}/article"
    assert page["title"] == "Red pandas"


async def test_a_redirect_to_a_private_address_is_refused(pages: Pages) -> None:
    envelope = await fetch(url=f"{pages.url}/to-private")
    assert envelope["errorCode"] == "NOT_ALLOWED"
    assert "10.0.0.1: it is a private-network address" in envelope["error"]


async def test_a_redirect_to_a_loopback_address_that_is_not_allowed_is_refused(pages: Pages) -> None:
    envelope = await fetch(url=f"{pages.url}/to-other-loopback")
    assert envelope["errorCode"] == "NOT_ALLOWED"
    assert pages.paths == ["/to-other-loopback"]


async def test_a_redirect_loop_stops_at_the_limit(pages: Pages, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_FETCH_MAX_REDIRECTS", "3")
    envelope = await fetch(url=f"{pages.url}/loop")
    assert "Stopped after 3 redirects" in envelope["error"]
    assert len(pages.paths) == 4


async def test_loopback_is_refused_unless_allowed(pages: Pages, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEB_FETCH_ALLOWED_HOSTS")
    for url in (f"{pages.url}/article", f"http://2130706433:{pages.port}/article", f"http://0x7f.1:{pages.port}/"):
        envelope = await fetch(url=url)
        assert envelope["errorCode"] == "NOT_ALLOWED", url
    assert pages.paths == []


async def test_other_schemes_and_bad_arguments_are_refused() -> None:
    assert (await fetch(url="file:///etc/passwd"))["errorCode"] == "INVALID_ARGUMENTS"
    async with Client(server) as client:
        result = await client.call_tool("web_fetch", {"url": "https://example.com", "maxLength": 10})
    assert result.is_error


def resolver_for(table: dict[str, list[str]]) -> Any:
    async def resolve(host: str, _port: int) -> list[IPAddress]:
        if host not in table:
            raise OSError("no such host")
        return [ipaddress.ip_address(address) for address in table[host]]

    return resolve


async def test_a_name_is_connected_to_at_the_checked_address_with_its_own_host_header(pages: Pages) -> None:
    limits = FetchLimits(max_bytes=1_000_000, max_redirects=5, allowed_hosts=["127.0.0.1"])
    async with httpx.AsyncClient(trust_env=False) as http:
        fetcher = Fetcher(http, limits, resolver_for({"pages.test": ["127.0.0.1"]}))
        page = await fetcher.fetch(f"http://pages.test:{pages.port}/plain", 20000, True, 5000)
    assert page.content == f"host=pages.test:{pages.port}"
    assert page.final_url == f"http://pages.test:{pages.port}/plain"


async def test_a_name_with_one_private_answer_is_refused_before_connecting(pages: Pages) -> None:
    limits = FetchLimits(max_bytes=1_000_000, max_redirects=5, allowed_hosts=["127.0.0.1"])
    async with httpx.AsyncClient(trust_env=False) as http:
        fetcher = Fetcher(http, limits, resolver_for({"rebind.test": ["127.0.0.1", "192.168.0.10"]}))
        with pytest.raises(NotAllowed, match=r"192\.168\.0\.10"):
            await fetcher.fetch(f"http://rebind.test:{pages.port}/plain", 20000, True, 5000)
    assert pages.paths == []


async def test_an_unknown_name_is_a_clear_failure() -> None:
    limits = FetchLimits(max_bytes=1_000_000, max_redirects=5, allowed_hosts=[])
    async with httpx.AsyncClient(trust_env=False) as http:
        fetcher = Fetcher(http, limits, resolver_for({}))
        with pytest.raises(ToolFailure, match="could not be found"):
            await fetcher.fetch("http://nowhere.test/", 20000, True, 5000)
