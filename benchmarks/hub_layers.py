"""Benchmark: where the hub's CPU per tool call goes, layer by layer, in one process.

The hub's app (`create_app`, its lifespan) runs in this process with the test echo MCP as its only child (Guardian
left out, fail mode open). The same call, `echo_echo`, is made four ways in interleaved rounds, and the CPU time of
this thread per call is taken for each (the child's CPU is not counted):

- `asgi`: `POST /tools/call` sent straight into the ASGI app (no socket, no HTTP parser);
- `hub_call`: `hub.call(...)` as the owner;
- `mcp_client`: `ManagedMcp.call_tool(...)`: the `mcp` SDK's client and the hub's stdio pumps;
- `echo_app`: a bare FastAPI app answering the same body, driven like `asgi`: the baseline.

`fastapi_layer` = asgi − hub_call and `hub_own` = hub_call − mcp_client, from the medians.

    python benchmarks/hub_layers.py [--calls 1500] [--rounds 7]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from tests.hub_process import package_dir  # noqa: E402

TOKEN = "b" * 32
BODY = json.dumps({"name": "echo_echo", "arguments": {"text": "x"}}).encode()
WARMUP = 30
"""Untimed calls before each timed series."""


def prepare_environment(scratch: Path) -> None:
    root = scratch / "mcps"
    root.mkdir()
    (root / "echo_mcp").symlink_to(package_dir("echo_mcp"), target_is_directory=True)
    (scratch / "agents.json").write_text(json.dumps({"agents": [{"agentId": "annabelle", "port": 18766}]}))
    os.environ.update(
        {
            "ANNABELLE_HOME": str(scratch / "home"),
            "ANNABELLE_MCPS_ROOT": str(root),
            "AGENTS_CONFIG": str(scratch / "agents.json"),
            "ANNABELLE_ENV_FILE": str(scratch / "no.env"),
            "ANNABELLE_TOKEN": TOKEN,
            "GUARDIAN_FAIL_MODE": "open",
            "EMBEDDING_PROVIDER": "none",
            "LOG_LEVEL": "ERROR",
        }
    )


async def post(app: ASGIApp) -> bytes:
    """One `POST /tools/call` through `app`; the response body."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/tools/call",
        "raw_path": b"/tools/call",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"x-annabelle-token", TOKEN.encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(BODY)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
        "state": {},
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    if sent[0]["status"] != 200:
        raise RuntimeError(f"POST /tools/call answered {sent[0]['status']}: {sent[1].get('body')!r}")
    return bytes(sent[1]["body"])


def echo_app() -> ASGIApp:
    app = FastAPI()

    @app.post("/tools/call")
    async def echo(request: Request) -> JSONResponse:
        return JSONResponse({"success": True, "data": await request.json()})

    return app


READY_TIMEOUT_S = 60.0


async def until_serving(app: FastAPI) -> None:
    """The hub starts its MCP in the background of its lifespan: wait for it, or say why not."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not app.state.serving:
        if time.monotonic() > deadline:
            raise SystemExit(f"the hub was not serving after {READY_TIMEOUT_S:.0f} s: {app.state.hub.status()}")
        await asyncio.sleep(0.05)


async def cpu_ms_per_call(calls: int, one: Callable[[], Awaitable[object]]) -> float:
    for _ in range(WARMUP):
        await one()
    started = time.thread_time()
    for _ in range(calls):
        await one()
    return (time.thread_time() - started) / calls * 1000


async def main(calls: int, rounds: int) -> dict[str, Any]:
    from orchestrator.app import create_app
    from orchestrator.callers import OWNER
    from orchestrator.settings import OrchestratorSettings
    from shared.settings import load_settings

    app = create_app(load_settings(OrchestratorSettings))
    hub = app.state.hub
    baseline = echo_app()

    async def asgi() -> None:
        if b'"success":true' not in await post(app):
            raise RuntimeError("the echo call through the hub failed")

    async def hub_call() -> None:
        envelope = await hub.call("echo_echo", {"text": "x"}, caller=OWNER)
        if not envelope["success"]:
            raise RuntimeError(f"the echo call failed: {envelope}")

    async def mcp_client() -> None:
        await hub.mcps["echo"].call_tool("echo", {"text": "x"})

    async def echo() -> None:
        await post(baseline)

    ways = {"asgi": asgi, "hub_call": hub_call, "mcp_client": mcp_client, "echo_app": echo}
    samples: dict[str, list[float]] = {name: [] for name in ways}
    async with app.router.lifespan_context(app):
        await until_serving(app)
        for _ in range(rounds):
            for name, one in ways.items():
                samples[name].append(await cpu_ms_per_call(calls, one))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    return {
        "calls": calls,
        "rounds": rounds,
        "cpu_ms_per_call": {name: round(value, 4) for name, value in medians.items()},
        "fastapi_layer_ms": round(medians["asgi"] - medians["hub_call"], 4),
        "hub_own_ms": round(medians["hub_call"] - medians["mcp_client"], 4),
    }


if __name__ == "__main__":  # the guard matters: the hub starts a multiprocessing fork server
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1500, help="timed calls per series (default 1500)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds; medians are reported (default 7)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="annabelle-hub-layers-") as scratch:
        prepare_environment(Path(scratch))
        print(json.dumps(asyncio.run(main(options.calls, options.rounds))))
