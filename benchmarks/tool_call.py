"""Benchmark: what the hub adds to a tool call, and how fast it starts.

All figures are ratios to baselines measured in the same run (these machines are shared and noisy):

- latency: `/tools/call` for a trivial Filer call (`filer_read_file` of a 100-byte file) through the hub, with
  Filer's Guardian scanning off and on, against (a) the same call on a direct `mcp` ClientSession to a Filer
  process and (b) a bare FastAPI echo endpoint on uvicorn. Target: hub p50 ≤ 1.2 × (direct p50 + echo p50).
- throughput with 32 concurrent clients: hub (scanning off) against the bare echo endpoint. Target ≥ 0.5 ×.
  The CPU each process (hub, each MCP child, echo server, the benchmark's own client) spends per request is
  printed beside it, so a shortfall can be placed.
- start-up to all MCPs ready (every first-party MCP in the repository; one left for first use because it is not
  configured is not started, see orchestrator/on_demand.py) against the spawn-and-initialise time of the slowest
  single MCP the hub starts, medians of three. Target ≤ 1.5 ×. `--configured` gives every MCP its setting.

    python benchmarks/tool_call.py [--calls 2000] [--concurrency 32] [--startup-only] [--configured]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from mcp import Client, StdioServerParameters

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.configured import configure_all  # noqa: E402
from benchmarks.latency import summary, timed  # noqa: E402
from tests.hub_process import free_port, start_hub  # noqa: E402

WARMUP = 50
"""Untimed calls before each timed series."""


def first_party_packages() -> list[str]:
    """Every MCP package in the repository: the start-up figure covers all of them."""
    return sorted(path.parent.name for path in REPO_ROOT.glob("*_mcp/manifest.json"))


ECHO_APP = textwrap.dedent(
    """
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse
    app = FastAPI()

    @app.post("/echo")
    async def echo(request: Request) -> JSONResponse:
        return JSONResponse({"success": True, "data": await request.json()})
    """
)


async def throughput(total: int, concurrency: int, one: Callable[[], Awaitable[Any]]) -> float:
    for _ in range(50):
        await one()
    remaining = total

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            await one()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return total / (time.perf_counter() - started)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process so far (Linux /proc); 0 where /proc is missing."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def throughput_with_cpu(
    total: int, concurrency: int, one: Callable[[], Awaitable[Any]], servers: dict[str, int]
) -> dict[str, Any]:
    """Requests per second, and the CPU milliseconds each process spent per request meanwhile."""
    before = {name: cpu_seconds(pid) for name, pid in servers.items()}
    client_before = time.process_time()
    rps = await throughput(total, concurrency, one)
    cpu = {name: round((cpu_seconds(pid) - before[name]) / total * 1000, 3) for name, pid in servers.items()}
    cpu["benchmark_client"] = round((time.process_time() - client_before) / total * 1000, 3)
    return {"throughput_rps": round(rps, 1), "cpu_ms_per_call": cpu}


def filer_env(home: Path, workspace: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ANNABELLE_HOME": str(home),
        "FILER_WORKSPACE": str(workspace),
        "ANNABELLE_STDERR_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(REPO_ROOT),
    }


async def spawn_and_initialise(package: str, env: dict[str, str]) -> float:
    params = StdioServerParameters(command=sys.executable, args=["-m", package], env=env, cwd=str(REPO_ROOT))
    started = time.perf_counter()
    async with Client(params) as client:
        await client.list_tools()
        return time.perf_counter() - started


async def direct_filer(calls: int, env: dict[str, str]) -> list[float]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "filer_mcp"], env=env, cwd=str(REPO_ROOT))
    async with Client(params) as client:
        return await timed(calls, lambda: client.call_tool("read_file", {"path": "note.txt"}), warmup=WARMUP)


def start_echo_server() -> tuple[subprocess.Popen[bytes], str]:
    folder = Path(tempfile.mkdtemp(prefix="echo-app-"))
    (folder / "echo_app.py").write_text(ECHO_APP)
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "echo_app:app",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=folder,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.post(f"{url}/echo", json={}, timeout=1)
            return process, url
        except httpx.HTTPError:
            time.sleep(0.05)
    raise RuntimeError("echo server did not start")


def hub_root_with_filer_scan(workdir: Path, scan: bool) -> list[str]:
    """Copy Filer beside Guardian with its `guardianScan` switched as asked; returns the packages to link."""
    copy = workdir / "mcps-root" / "filer_mcp"
    shutil.copytree(REPO_ROOT / "filer_mcp", copy, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["guardianScan"] = {"input": scan, "output": scan}
    (copy / "manifest.json").write_text(json.dumps(manifest))
    return ["guardian_mcp"]


async def measure_hub(hub: Any, calls: int, concurrency: int, with_throughput: bool) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"X-Annabelle-Token": hub.token}
    async with httpx.AsyncClient(base_url=hub.url, headers=headers, limits=limits, timeout=60) as client:
        body = {"name": "filer_read_file", "arguments": {"path": "note.txt"}}

        async def one() -> None:
            response = await client.post("/tools/call", json=body)
            assert response.json()["success"], response.text

        result: dict[str, Any] = {"latency": summary(await timed(calls, one, warmup=WARMUP))}
        if with_throughput:
            servers = {"hub": hub.process.pid}
            servers.update({f"mcp_{name}": mcp["pid"] for name, mcp in hub.status()["mcps"].items()})
            result.update(await throughput_with_cpu(calls * 2, concurrency, one, servers))
        return result


async def measure_echo(url: str, pid: int, calls: int, concurrency: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        body = {"name": "filer_read_file", "arguments": {"path": "note.txt"}}

        async def one() -> None:
            (await client.post("/echo", json=body)).raise_for_status()

        latency = summary(await timed(calls, one, warmup=WARMUP))
        return {"latency": latency, **await throughput_with_cpu(calls * 2, concurrency, one, {"echo_server": pid})}


def run_hub(workdir: Path, scan: bool) -> Any:
    home = workdir / "home"
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    (workspace / "note.txt").write_text("A short note kept in the workspace for the benchmark. " * 2)
    packages = hub_root_with_filer_scan(workdir, scan)
    return start_hub(workdir, home, packages, env={"FILER_WORKSPACE": str(workspace), "LOG_LEVEL": "WARNING"})


async def measure_startup(scratch: Path, repeats: int, configured: bool) -> dict[str, Any]:
    """Median spawn-and-initialise of each MCP alone, against the median hub start with all of them.

    The hub is ready once every MCP it starts has initialised; an MCP left for first use (not configured, see
    orchestrator/on_demand.py) is not started, so the baseline is the slowest MCP the hub did start
    (`slowest_single_s`); the slowest of all packages is reported beside it. `configured` gives every MCP its
    setting (benchmarks/configured.py), so that the hub starts all of them."""
    packages = first_party_packages()
    home = scratch / "startup-home"
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    env = {**filer_env(home, workspace), "EMBEDDING_PROVIDER": "local"}
    if configured:
        env.update(configure_all(home))
    alone = {
        package: statistics.median([await spawn_and_initialise(package, env) for _ in range(repeats)])
        for package in packages
    }
    hub_starts = []
    not_started: set[str] = set()
    for attempt in range(repeats):
        workdir = scratch / f"startup-{attempt}"
        workdir.mkdir()
        hub_home = workdir / "home"
        hub_env = {"LOG_LEVEL": "WARNING", **(configure_all(hub_home) if configured else {})}
        started = time.perf_counter()
        hub = start_hub(workdir, hub_home, packages, env=hub_env)
        hub_starts.append(time.perf_counter() - started)
        not_started |= {name for name, mcp in hub.status()["mcps"].items() if mcp.get("notStarted")}
        hub.stop()
    prefixes = {
        package: json.loads((REPO_ROOT / package / "manifest.json").read_text())["mcpName"] for package in packages
    }
    started_alone = [seconds for package, seconds in alone.items() if prefixes[package] not in not_started]
    return {
        "packages": packages,
        "configured": configured,
        "not_started_by_the_hub": sorted(not_started),
        "spawn_and_initialise_s": {package: round(seconds, 3) for package, seconds in alone.items()},
        "hub_startup_s": round(statistics.median(hub_starts), 3),
        "hub_starts_s": [round(seconds, 3) for seconds in hub_starts],
        "slowest_single_s": round(max(started_alone), 3),
        "slowest_single_of_all_packages_s": round(max(alone.values()), 3),
        "load_1min": round(os.getloadavg()[0], 2),
    }


async def main(calls: int, concurrency: int, startup_only: bool, configured: bool) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="bench-tool-call-"))
    results: dict[str, Any] = {"calls": calls, "concurrency": concurrency}

    # Start-up: the hub with every first-party MCP against the slowest of them alone.
    results["startup"] = await measure_startup(scratch, repeats=3, configured=configured)
    if startup_only:
        ratio = results["startup"]["hub_startup_s"] / results["startup"]["slowest_single_s"]
        results["ratios"] = {"startup_over_slowest_spawn": round(ratio, 3)}
        results["targets"] = {"startup_over_slowest_spawn": "<= 1.5"}
        shutil.rmtree(scratch, ignore_errors=True)
        return results

    # Baseline: the Filer call on a direct MCP session.
    home = scratch / "single-home"
    workspace = home / "workspace"
    workspace.mkdir(parents=True)
    (workspace / "note.txt").write_text("A short note kept in the workspace for the benchmark. " * 2)
    env = filer_env(home, workspace)
    results["direct_mcp"] = summary(await direct_filer(calls, env))

    # Baseline: a bare FastAPI echo endpoint.
    echo_process, echo_url = start_echo_server()
    try:
        results["bare_echo"] = await measure_echo(echo_url, echo_process.pid, calls, concurrency)
    finally:
        echo_process.terminate()
        echo_process.wait()

    # The hub, Filer's scanning off, then on.
    for label, scan in (("hub_scan_off", False), ("hub_scan_on", True)):
        hub = run_hub(scratch / label, scan)
        try:
            results[label] = await measure_hub(hub, calls, concurrency, with_throughput=not scan)
        finally:
            hub.stop()

    direct_p50 = results["direct_mcp"]["p50_ms"]
    echo_p50 = results["bare_echo"]["latency"]["p50_ms"]
    results["ratios"] = {
        "hub_p50_over_direct_plus_echo": round(
            results["hub_scan_off"]["latency"]["p50_ms"] / (direct_p50 + echo_p50), 3
        ),
        "hub_scan_on_p50_over_direct_plus_echo": round(
            results["hub_scan_on"]["latency"]["p50_ms"] / (direct_p50 + echo_p50), 3
        ),
        "throughput_hub_over_echo": round(
            results["hub_scan_off"]["throughput_rps"] / results["bare_echo"]["throughput_rps"], 3
        ),
        "startup_over_slowest_spawn": round(
            results["startup"]["hub_startup_s"] / results["startup"]["slowest_single_s"], 3
        ),
    }
    results["targets"] = {
        "hub_p50_over_direct_plus_echo": "<= 1.2",
        "throughput_hub_over_echo": ">= 0.5",
        "startup_over_slowest_spawn": "<= 1.5",
    }
    shutil.rmtree(scratch, ignore_errors=True)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per measurement (default 2000)")
    parser.add_argument("--concurrency", type=int, default=32, help="concurrent clients for throughput (default 32)")
    parser.add_argument("--startup-only", action="store_true", help="measure the start-up ratio only")
    parser.add_argument(
        "--configured", action="store_true", help="give every MCP its setting, so that the hub starts all of them"
    )
    options = parser.parse_args()
    outcome = asyncio.run(main(options.calls, options.concurrency, options.startup_only, options.configured))
    print(json.dumps(outcome))
