"""The egress guard as a real proxy on 127.0.0.1, spoken to with raw HTTP (no browser needed).

Names resolve through a table (the injected resolver), never through DNS, and only to loopback addresses. Every
connection the guard makes goes to the page server on 127.0.0.1; loopback addresses left out of the allowed hosts
(127.0.0.2, 127.0.0.3) are refused before any connection.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator, Iterator

import h11
import pytest
import pytest_asyncio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from browser_mcp.egress import REFUSALS_KEPT, EgressGuard
from shared.netguard import IPAddress
from tests.fakes.loopback import LoopbackServer

pytestmark = pytest.mark.asyncio(loop_scope="module")

TABLE = {
    "shop.test": ["127.0.0.1"],
    "rebind.test": ["127.0.0.1", "127.0.0.3"],
}


async def table_resolver(host: str, port: int) -> list[IPAddress]:
    if host not in TABLE:
        raise OSError(f"{host} not found")
    return [ipaddress.ip_address(address) for address in TABLE[host]]


class Echo(LoopbackServer):
    name = "echo"

    def __init__(self) -> None:
        super().__init__()
        self.app = Starlette(routes=[Route("/{path:path}", self.echo, methods=["GET", "POST"])])

    async def echo(self, request: Request) -> PlainTextResponse:
        body = (await request.body()).decode()
        return PlainTextResponse(f"{request.method} {request.url.path} host={request.headers['host']} body={body}")


@pytest.fixture(scope="module")
def echo() -> Iterator[Echo]:
    with Echo() as server:
        yield server


@pytest_asyncio.fixture(loop_scope="module")
async def guard() -> AsyncIterator[EgressGuard]:
    started = await EgressGuard(["127.0.0.1", "shop.test"], resolver=table_resolver).start()
    yield started
    await started.close()


async def exchange(guard: EgressGuard, *requests: h11.Request, body: bytes = b"") -> list[tuple[int, str]]:
    """Send `requests` (each with `body`) one after the other on ONE connection to the proxy; (status, body) of
    each answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", guard.port)
    client = h11.Connection(h11.CLIENT)
    answers: list[tuple[int, str]] = []
    try:
        for request in requests:
            sent = client.send(request) + (client.send(h11.Data(data=body)) if body else b"")
            writer.write(sent + client.send(h11.EndOfMessage()))
            status, received = 0, b""
            while True:
                event = client.next_event()
                if event is h11.NEED_DATA:
                    client.receive_data(await reader.read(65536))
                elif isinstance(event, h11.Response):
                    status = event.status_code
                elif isinstance(event, h11.Data):
                    received += event.data
                elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    break
            answers.append((status, received.decode()))
            if client.our_state is not h11.DONE or client.their_state is not h11.DONE:
                break
            client.start_next_cycle()
    finally:
        writer.close()
    return answers


def get(url: str, host: str) -> h11.Request:
    return h11.Request(method="GET", target=url, headers=[("Host", host), ("Proxy-Connection", "keep-alive")])


async def test_plain_http_is_relayed_and_each_request_on_a_kept_alive_connection_is_checked(
    guard: EgressGuard, echo: Echo
):
    allowed = f"127.0.0.1:{echo.port}"
    refused = f"127.0.0.2:{echo.port}"
    answers = await exchange(
        guard,
        get(f"http://{allowed}/one", allowed),
        get(f"http://{refused}/two", refused),
        get(f"http://{allowed}/three", allowed),
    )
    assert answers[0] == (200, f"GET /one host={allowed} body=")
    assert answers[1][0] == 403 and "127.0.0.2: it is a loopback address" in answers[1][1]
    assert answers[2] == (200, f"GET /three host={allowed} body=")
    (refusal,) = guard.take_refusals()
    assert (refusal.host, refusal.port, refusal.target) == ("127.0.0.2", echo.port, f"http://{refused}/two")
    assert guard.take_refusals() == []


async def test_a_request_body_is_forwarded(guard: EgressGuard, echo: Echo):
    host = f"127.0.0.1:{echo.port}"
    request = h11.Request(
        method="POST", target=f"http://{host}/form", headers=[("Host", host), ("Content-Length", "7")]
    )
    (answer,) = await exchange(guard, request, body=b"a=1&b=2")
    assert answer == (200, f"POST /form host={host} body=a=1&b=2")


async def test_a_name_connects_to_the_address_that_was_checked_with_its_host_header(guard: EgressGuard, echo: Echo):
    host = f"shop.test:{echo.port}"
    (answer,) = await exchange(guard, get(f"http://{host}/basket", host))
    assert answer == (200, f"GET /basket host={host} body=")


async def test_a_name_with_one_refused_address_among_allowed_ones_is_refused(guard: EgressGuard, echo: Echo):
    host = f"rebind.test:{echo.port}"
    (answer,) = await exchange(guard, get(f"http://{host}/", host))
    assert answer[0] == 403 and "rebind.test (127.0.0.3): it is a loopback address" in answer[1]


async def test_an_unknown_name_is_a_network_error_not_a_refusal(guard: EgressGuard):
    (answer,) = await exchange(guard, get("http://nowhere.test/", "nowhere.test"))
    assert answer == (502, "The host nowhere.test could not be found.")
    assert guard.take_refusals() == []


async def test_a_request_that_is_not_absolute_http_is_refused(guard: EgressGuard):
    (answer,) = await exchange(guard, get("/local", "127.0.0.1"))
    assert answer[0] == 403 and "absolute http://" in answer[1]


async def connect(guard: EgressGuard, authority: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", guard.port)
    writer.write(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    head = await reader.readuntil(b"\r\n\r\n")
    return reader, writer, head


async def test_connect_opens_a_tunnel_to_an_allowed_address(guard: EgressGuard, echo: Echo):
    authority = f"127.0.0.1:{echo.port}"
    reader, writer, head = await connect(guard, authority)
    assert head.startswith(b"HTTP/1.1 200")
    writer.write(f"GET /tunnelled HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n".encode())
    answer = await reader.read()
    writer.close()
    assert b"GET /tunnelled host=127.0.0.1" in answer


async def test_connect_to_a_refused_address_is_answered_403_and_recorded(guard: EgressGuard, echo: Echo):
    reader, writer, head = await connect(guard, f"127.0.0.2:{echo.port}")
    body = await reader.read()
    writer.close()
    assert head.startswith(b"HTTP/1.1 403") and b"loopback" in body
    (refusal,) = guard.take_refusals()
    assert (refusal.host, refusal.port) == ("127.0.0.2", echo.port)


async def test_the_refusal_list_is_bounded(guard: EgressGuard, echo: Echo):
    for index in range(REFUSALS_KEPT + 5):
        host = f"127.0.0.2:{echo.port}"
        await exchange(guard, get(f"http://{host}/{index}", host))
    kept = guard.take_refusals()
    assert len(kept) == REFUSALS_KEPT and kept[-1].target.endswith(f"/{REFUSALS_KEPT + 4}")
    assert guard.refused_count == REFUSALS_KEPT + 5
