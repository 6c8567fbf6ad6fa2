"""Warm-up: once the hub serves, one harmless call to each MCP whose manifest declares `warmUp`.

Guardian builds its tokeniser and runs its classifier on the first scan that reads text, the Memorizer loads its
embedding model on the first search: seconds that the first chat message would otherwise wait for. Done at start-up
instead, that work would hold up the hub's readiness (Guardian's tokeniser holds the GIL while it is built, so
Guardian could not even answer the handshake); done here, after `/health` says ok, it only uses the idle seconds
before the first message. A declared call rather than a warm-up tool or a timer inside each MCP: no new tool that
an agent could see or call, no guess in the MCP about when the hub is ready, and the call takes the one road
(`Hub.call`), so it is logged like any other.

The calls run one after another, Guardian first (every message waits for its scan), so that they do not pile
model loads onto the CPU that the default agent's Thinker is starting on at the same time. A warm-up that fails is
a log line: the MCP then loads its model on its first real call, as it would without one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from orchestrator.callers import system
from orchestrator.discovery import McpSpec

if TYPE_CHECKING:
    from orchestrator.hub import Hub

log = logging.getLogger(__name__)

WARM_UP = system("warm-up", unscanned="warm-up: the manifest's fixed arguments, the result discarded")


def warm_up_order(specs: Iterable[McpSpec]) -> list[McpSpec]:
    """The MCPs that declare a warm-up, Guardian first, the others as discovered."""
    declaring = [spec for spec in specs if spec.manifest.warmUp is not None]
    return sorted(declaring, key=lambda spec: spec.manifest.role != "guardian")


async def warm_up_mcps(hub: Hub) -> None:
    """Make each declared warm-up call; never raises (a failed warm-up only costs the first real call its wait)."""
    for spec in warm_up_order(list(hub.specs.values())):
        try:
            await warm_up(hub, spec)
        except Exception as exc:  # the hub's task group must outlive any warm-up
            log.warning("mcp warm-up failed", extra={"mcp": spec.name, "error": f"{type(exc).__name__}: {exc}"})


async def warm_up(hub: Hub, spec: McpSpec) -> None:
    declared = spec.manifest.warmUp
    assert declared is not None
    mcp = hub.mcps.get(spec.name)
    if mcp is None or not mcp.available:
        # Left for first use, failed or gone: calling it would start it (or fail), which is no warm-up.
        state = "not running" if mcp is None else mcp.not_started or mcp.state.value
        log.info("mcp warm-up skipped", extra={"mcp": spec.name, "state": state})
        return
    name = f"{spec.manifest.mcpName}_{declared.tool}"
    route = hub.router.resolve(name, privileged=True)
    if route is None or not route.effects.readOnlyHint:
        why = "no such tool" if route is None else "the tool is not read-only"
        log.error("mcp warm-up refused", extra={"mcp": spec.name, "tool": name, "reason": why})
        return
    started = time.perf_counter()
    envelope = await hub.call(name, dict(declared.arguments), caller=WARM_UP)
    where = {"mcp": spec.name, "tool": name, "ms": round((time.perf_counter() - started) * 1000)}
    if envelope["success"]:
        log.info("mcp warmed up", extra=where)
    else:
        log.warning("mcp warm-up failed", extra={**where, "error": envelope.get("error")})
