"""The DNS seam of everything that checks addresses before connecting (see `shared.netguard`).

Callers take a `Resolver` in their constructor; the product passes `system_resolver`, tests pass a function that
answers from a table, so no test ever depends on real DNS.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable

from shared.netguard import IPAddress

Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]


async def system_resolver(host: str, port: int) -> list[IPAddress]:
    """Every address the system resolver gives for `host` (asyncio getaddrinfo), in its order, without repeats."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if address not in seen:
            seen.append(address)
    return seen
