"""The browser's egress guard: a forward proxy on 127.0.0.1 through which Chromium sends every request.

Chromium is started with `--proxy-server` pointing here and `--proxy-bypass-list=<-loopback>` (without it,
loopback would skip the proxy), so navigations, each redirect hop, subresources, fetch/XHR, WebSockets and
service workers all arrive here as separate requests. Each is decided by the SSRF rules of `shared.netguard` with
the `WEB_FETCH_ALLOWED_HOSTS` exemptions, and the connection goes to the address that was checked, never to a
second DNS answer (rebinding):

- `CONNECT host:port` (https, wss): the host is resolved through the injected `Resolver`, refused if ANY address
  is not public, else a TCP tunnel to the checked address carries the browser's own TLS end to end;
- `GET http://host/...` (plain http, absolute-form): parsed with h11 on the browser's side and sent with httpx to
  the checked address with the original `Host` header; the browser's connection stays usable for the next request,
  which is checked on its own (Chromium reuses one proxy connection for many origins).

A refusal answers 403 with the reason and is recorded (a bounded list) so the tools can tell the model which
requests were stopped. Playwright's request routing is not the guard: it does not see redirect hops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

import h11
import httpx

from shared.netguard import AddressRefused, BadURL, IPAddress, Target, check_addresses, parse_target
from shared.resolver import Resolver, system_resolver

log = logging.getLogger(__name__)

MAX_HEAD_BYTES = 64 * 1024
MAX_REQUEST_BODY_BYTES = 16 * 1024 * 1024
READ_CHUNK = 64 * 1024
CONNECT_TIMEOUT_SECONDS = 10.0
REFUSALS_KEPT = 20

# Headers that describe one hop, never forwarded (RFC 9110 §7.6.1), plus the proxy's own.
_HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"proxy-connection",
        b"keep-alive",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
        b"proxy-authorization",
        b"proxy-authenticate",
        b"host",
    }
)


class Unreachable(Exception):
    """The host could not be resolved or connected to: an error of the network, not a refusal of the guard."""


async def admit(target: Target, allowed_hosts: list[str], resolver: Resolver) -> IPAddress:
    """The checked address to connect to for `target`: `AddressRefused` if any of its addresses is refused,
    `Unreachable` if the name does not resolve."""
    if target.literal is not None:
        addresses = [target.literal]
    else:
        try:
            addresses = await resolver(target.host, target.port)
        except OSError:
            raise Unreachable(f"The host {target.host} could not be found.") from None
    check_addresses(target.host, addresses, allowed_hosts)
    return addresses[0]


@dataclass(frozen=True)
class Refusal:
    """One request the guard stopped: what was asked (and its host and port when it could be parsed) and why."""

    target: str
    reason: str
    host: str = ""
    port: int = 0


def refusal_of(refusals: Iterable[Refusal], url: str) -> Refusal | None:
    """The refusal that stopped `url` itself (same host and port), if there is one."""
    try:
        target = parse_target(url)
    except BadURL:
        return None
    return next((r for r in refusals if (r.host, r.port) == (target.host, target.port)), None)


class EgressGuard:
    """The proxy server. `start()` binds a free port on 127.0.0.1; `close()` stops it and every open tunnel."""

    def __init__(
        self,
        allowed_hosts: Iterable[str],
        *,
        resolver: Resolver = system_resolver,
        upstream: httpx.AsyncClient | None = None,
    ) -> None:
        self._allowed = list(allowed_hosts)
        self._resolve = resolver
        self._http = upstream or httpx.AsyncClient(
            trust_env=False, follow_redirects=False, timeout=httpx.Timeout(60.0, connect=CONNECT_TIMEOUT_SECONDS)
        )
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._refusals: deque[Refusal] = deque(maxlen=REFUSALS_KEPT)
        self.refused_count = 0
        self.port = 0

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> EgressGuard:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=MAX_HEAD_BYTES)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in list(self._writers):
                writer.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        await self._http.aclose()

    def take_refusals(self) -> list[Refusal]:
        """The refusals recorded since the last call (at most the last 20), oldest first."""
        taken = list(self._refusals)
        self._refusals.clear()
        return taken

    # -- the decision ---------------------------------------------------------------------------------------------

    def _record(self, raw: str, reason: str, target: Target | None) -> None:
        self.refused_count += 1
        host, port = (target.host, target.port) if target is not None else ("", 0)
        self._refusals.append(Refusal(raw[:300], reason, host, port))
        log.info("browser request refused", extra={"target": raw[:300], "reason": reason})

    # -- connections ----------------------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            await self._handle(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, h11.ProtocolError):
            pass
        except Exception:
            log.exception("egress guard connection failed")
        finally:
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        while True:
            request = await _next_event(reader, conn)
            if not isinstance(request, h11.Request):
                return
            if request.method == b"CONNECT":
                await self._tunnel(request, reader, writer, conn)
                return
            body = await _read_body(reader, conn)
            await self._relay(request, body, writer, conn)
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return
            conn.start_next_cycle()

    async def _tunnel(
        self, request: h11.Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: h11.Connection
    ) -> None:
        authority = request.target.decode("latin-1")
        target: Target | None = None
        try:
            target = parse_target(f"https://{authority}/")
            address = await admit(target, self._allowed, self._resolve)
        except (BadURL, AddressRefused) as exc:
            self._record(authority, str(exc), target)
            await _send_refusal(writer, 403, str(exc))
            return
        except Unreachable as exc:
            await _send_refusal(writer, 502, str(exc))
            return
        try:
            upstream_reader, upstream_writer = await asyncio.wait_for(
                asyncio.open_connection(str(address), target.port, limit=READ_CHUNK), CONNECT_TIMEOUT_SECONDS
            )
        except (OSError, TimeoutError):
            await _send_refusal(writer, 502, f"Could not connect to {authority}.")
            return
        self._writers.add(upstream_writer)
        try:
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            leftover, _closed = conn.trailing_data
            if leftover:
                upstream_writer.write(leftover)
            await _pipe_both(reader, writer, upstream_reader, upstream_writer)
        finally:
            self._writers.discard(upstream_writer)
            upstream_writer.close()

    async def _relay(
        self, request: h11.Request, body: bytes, writer: asyncio.StreamWriter, conn: h11.Connection
    ) -> None:
        raw = request.target.decode("latin-1")
        target: Target | None = None
        try:
            if not raw.lower().startswith("http://"):
                raise BadURL("The proxy only relays absolute http:// requests; https goes through CONNECT.")
            target = parse_target(raw)
            address = await admit(target, self._allowed, self._resolve)
        except (BadURL, AddressRefused) as exc:
            self._record(raw, str(exc), target)
            await _send_response(writer, conn, 403, str(exc))
            return
        except Unreachable as exc:
            await _send_response(writer, conn, 502, str(exc))
            return
        headers = [(name, value) for name, value in request.headers if name.lower() not in _HOP_BY_HOP]
        headers.append((b"host", target.host_header.encode("ascii")))
        upstream = httpx.Request(
            request.method.decode("ascii"),
            httpx.URL(target.url).copy_with(host=str(address)),
            headers=headers,
            content=body,
        )
        try:
            response = await self._http.send(upstream, stream=True)
        except httpx.HTTPError as exc:
            await _send_response(writer, conn, 502, f"Could not fetch {target.url} ({type(exc).__name__}).")
            return
        try:
            kept = [(name, value) for name, value in response.headers.raw if name.lower() not in _HOP_BY_HOP]
            writer.write(conn.send(h11.Response(status_code=response.status_code, headers=kept)) or b"")
            async for chunk in response.aiter_raw():
                writer.write(conn.send(h11.Data(data=chunk)) or b"")
                await writer.drain()
            writer.write(conn.send(h11.EndOfMessage()) or b"")
            await writer.drain()
        finally:
            await response.aclose()


async def _next_event(reader: asyncio.StreamReader, conn: h11.Connection) -> object:
    """The browser's next h11 event; the end of its stream becomes `ConnectionClosed` (or a protocol error)."""
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        conn.receive_data(await reader.read(READ_CHUNK))


async def _read_body(reader: asyncio.StreamReader, conn: h11.Connection) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await _next_event(reader, conn)
        if isinstance(event, h11.Data):
            size += len(event.data)
            if size > MAX_REQUEST_BODY_BYTES:
                raise h11.RemoteProtocolError("request body too large")
            chunks.append(bytes(event.data))
        elif isinstance(event, h11.EndOfMessage):
            return b"".join(chunks)
        else:
            raise h11.RemoteProtocolError("request ended early")


async def _send_response(writer: asyncio.StreamWriter, conn: h11.Connection, status: int, message: str) -> None:
    body = message.encode("utf-8")
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    writer.write(conn.send(h11.Response(status_code=status, headers=headers)) or b"")
    writer.write(conn.send(h11.Data(data=body)) or b"")
    writer.write(conn.send(h11.EndOfMessage()) or b"")
    await writer.drain()


async def _send_refusal(writer: asyncio.StreamWriter, status: int, message: str) -> None:
    """Answer a CONNECT with an error and close (a tunnel that was never opened cannot be reused)."""
    body = message.encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {'Forbidden' if status == 403 else 'Bad Gateway'}\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode("ascii") + body)
    await writer.drain()


async def _copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(READ_CHUNK):
            sink.write(data)
            await sink.drain()
    finally:
        if sink.can_write_eof():
            with contextlib.suppress(OSError):
                sink.write_eof()


async def _pipe_both(
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream_writer: asyncio.StreamWriter,
) -> None:
    tasks = [
        asyncio.create_task(_copy(client_reader, upstream_writer)),
        asyncio.create_task(_copy(upstream_reader, client_writer)),
    ]
    try:
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for task in tasks:
            task.cancel()
