"""`web_fetch`: fetch one page safely and return its article text as markdown.

Every hop is checked: redirects are followed by hand (`follow_redirects=False`, at most
`WEB_FETCH_MAX_REDIRECTS`), and before each request the host is resolved (through the injected `Resolver`)
and refused if ANY of its addresses is not public (see `shared.netguard`). The connection is then pinned to the
address that was checked: the request goes to `scheme://<ip>:<port>/path` with the original `Host` header and,
for https, the original name as TLS SNI and certificate name (httpx's `sni_hostname` extension), so a DNS answer
that changes between the check and the connection (rebinding) is never used. Only text/html and text/plain are
read, the body is counted while streaming, and the text comes from trafilatura (markdown, links optional).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import anyio.to_thread
import httpx

from searcher_mcp.models import FetchedPage
from shared.envelope import ErrorCode
from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure
from shared.netguard import AddressRefused, BadURL, IPAddress, Target, check_addresses, parse_target
from shared.resolver import Resolver, system_resolver

REDIRECTS = {301, 302, 303, 307, 308}
TEXT_TYPES = {"text/html", "text/plain", "application/xhtml+xml"}
USER_AGENT = "Mozilla/5.0 (compatible; AnnabelleFetch/0.1; +https://github.com/)"


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int
    max_redirects: int
    allowed_hosts: list[str]


def truncate(text: str, max_length: int) -> tuple[str, bool]:
    """`text` cut to `max_length` characters with a marker saying how much was left out."""
    if len(text) <= max_length:
        return text, False
    return f"{text[:max_length]}\n\n[… truncated: showing {max_length} of {len(text)} characters]", True


def extract(html: str, url: str, include_links: bool) -> tuple[str, str | None]:
    """Article text as markdown (trafilatura), falling back to the page's plain text; and the title."""
    import trafilatura

    text = trafilatura.extract(
        html, url=url, output_format="markdown", include_links=include_links, include_tables=True, favor_recall=True
    )
    if not text:
        text = trafilatura.html2txt(html) or ""
    metadata = trafilatura.extract_metadata(html, default_url=url)
    title = metadata.title if metadata is not None else None
    return text.strip(), title


class Fetcher:
    def __init__(self, http: httpx.AsyncClient, limits: FetchLimits, resolver: Resolver = system_resolver) -> None:
        self._http = http
        self._limits = limits
        self._resolve = resolver

    async def _addresses(self, target: Target) -> list[IPAddress]:
        if target.literal is not None:
            return [target.literal]
        try:
            return await self._resolve(target.host, target.port)
        except OSError:
            raise ToolFailure(f"The host {target.host} could not be found.") from None

    async def _checked(self, url: str) -> tuple[Target, IPAddress]:
        try:
            target = parse_target(url)
        except BadURL as exc:
            raise InvalidArguments(str(exc)) from None
        addresses = await self._addresses(target)
        try:
            check_addresses(target.host, addresses, self._limits.allowed_hosts)
        except AddressRefused as exc:
            raise NotAllowed(str(exc)) from None
        return target, addresses[0]

    def _pinned_request(self, target: Target, address: IPAddress, timeout: float) -> httpx.Request:
        url = httpx.URL(target.url).copy_with(host=str(address))
        extensions: dict[str, object] = {"timeout": httpx.Timeout(timeout).as_dict()}
        if target.scheme == "https":
            extensions["sni_hostname"] = target.host
        headers = {"Host": target.host_header, "User-Agent": USER_AGENT, "Accept": "text/html, text/plain;q=0.9"}
        return httpx.Request("GET", url, headers=headers, extensions=extensions)

    async def fetch(self, url: str, max_length: int, include_links: bool, timeout_ms: int) -> FetchedPage:
        timeout = timeout_ms / 1000
        try:
            return await asyncio.wait_for(self._fetch(url, max_length, include_links, timeout), timeout * 2 + 5)
        except TimeoutError:
            raise ToolFailure(f"Fetching {url} took too long.", code=ErrorCode.TIMEOUT) from None

    async def _fetch(self, url: str, max_length: int, include_links: bool, timeout_s: float) -> FetchedPage:
        current = url
        for _hop in range(self._limits.max_redirects + 1):
            target, address = await self._checked(current)
            request = self._pinned_request(target, address, timeout_s)
            try:
                response = await self._http.send(request, stream=True, follow_redirects=False)
            except httpx.TimeoutException:
                raise ToolFailure(
                    f"{target.host} did not answer within {timeout_s:g} s.", code=ErrorCode.TIMEOUT
                ) from None
            except httpx.HTTPError as exc:
                raise ToolFailure(f"Could not fetch {target.url} ({type(exc).__name__}).") from None
            try:
                location = response.headers.get("location")
                if response.status_code in REDIRECTS and location:
                    current = str(httpx.URL(target.url).join(location))
                    continue
                body, content_type = await self._read(response, target)
            finally:
                await response.aclose()
            return await self._page(url, target, body, content_type, response, max_length, include_links)
        raise ToolFailure(
            f"Stopped after {self._limits.max_redirects} redirects from {url}; the page redirects too often."
        )

    async def _read(self, response: httpx.Response, target: Target) -> tuple[bytes, str]:
        if response.status_code >= 400:
            raise ToolFailure(f"{target.url} answered HTTP {response.status_code}.")
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in TEXT_TYPES:
            shown = content_type or "no content type"
            raise ToolFailure(f"{target.url} is {shown}; web_fetch reads only HTML and plain-text pages.")
        limit = self._limits.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise ToolFailure(f"{target.url} is larger than the {limit} byte limit (WEB_FETCH_MAX_BYTES).")
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise ToolFailure(f"{target.url} is larger than the {limit} byte limit (WEB_FETCH_MAX_BYTES).")
            chunks.append(chunk)
        return b"".join(chunks), content_type

    async def _page(
        self,
        requested: str,
        target: Target,
        body: bytes,
        content_type: str,
        response: httpx.Response,
        max_length: int,
        include_links: bool,
    ) -> FetchedPage:
        try:
            text = body.decode(response.charset_encoding or "utf-8", errors="replace")
        except LookupError:
            text = body.decode("utf-8", errors="replace")
        title = None
        if content_type != "text/plain":
            text, title = await anyio.to_thread.run_sync(extract, text, target.url, include_links)
        full_length = len(text)
        content, cut = truncate(text, max_length)
        return FetchedPage(
            url=requested,
            final_url=target.url,
            title=title,
            content_type=content_type,
            content=content,
            length=full_length,
            truncated=cut,
        )
