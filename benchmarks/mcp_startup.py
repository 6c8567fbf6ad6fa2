"""Benchmark: how fast each first-party MCP server answers `initialize` after it is spawned, and what it imports.

For every `*_mcp` package, and two baselines measured in the same run (a bare `python -c pass`, and the test
`echo_mcp`: the smallest server on the same SDK and `shared/`), the script spawns `python -m <package>` with a
fresh `ANNABELLE_HOME`, writes `initialize` on its stdin at once and times the answer, then `tools/list`. It also
records the CPU seconds the process used in all (user + system): on a shared machine wall time says as much about
the neighbours as about the server. Runs are interleaved round-robin so noise spreads over every server alike;
medians are reported with their ratio to the echo baseline.

`--compare DIR` times the servers of another checkout (say, an export of the commit before a change) in the same
interleaved run, so before/after ratios come from one run. A last pass runs each package once under
`python -X importtime` and sums import time per top-level package, so a slow start can be placed.

    python benchmarks/mcp_startup.py [--runs 7] [--top 6] [--compare DIR]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BASELINE = "echo_mcp"
INTERPRETER = "(python -c pass)"

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "mcp-startup-benchmark", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


@dataclass(frozen=True)
class Server:
    label: str
    package: str
    root: Path

    def environment(self, home: Path) -> dict[str, str]:
        # What the hub gives its children, minus developer settings that would change the work done at start-up.
        env = {key: value for key, value in os.environ.items() if not key.startswith(("ANNABELLE_", "GUARDIAN_"))}
        env.update(
            {
                "ANNABELLE_HOME": str(home),
                "ANNABELLE_STDERR_LOG_LEVEL": "WARNING",
                "PYTHONPATH": os.pathsep.join([str(self.root), str(self.root / "tests" / "mcps")]),
            }
        )
        return env


def first_party_packages(root: Path) -> list[str]:
    return sorted(path.parent.name for path in root.glob("*_mcp/manifest.json"))


def read_line(process: subprocess.Popen[bytes], deadline: float) -> bytes:
    assert process.stdout is not None
    buffer = b""
    while not buffer.endswith(b"\n"):
        ready, _, _ = select.select([process.stdout], [], [], max(deadline - time.perf_counter(), 0))
        if not ready:
            raise TimeoutError("no answer in time")
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            raise EOFError("the server closed its stdout")
        buffer += chunk
    return buffer


def spawn_and_time(server: Server, home: Path) -> tuple[float, float, float]:
    """Seconds from spawn to the `initialize` answer and to the `tools/list` answer after it, and the CPU seconds
    (user + system) the whole process used."""
    interpreter_only = server.package == INTERPRETER
    command = [sys.executable, "-c", "pass"] if interpreter_only else [sys.executable, "-m", server.package]
    started = time.perf_counter()
    home.mkdir(parents=True)
    errors = (home / "stderr.txt").open("wb")
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        env=server.environment(home),
        cwd=server.root,
    )
    errors.close()
    assert process.stdin is not None
    initialised = listed = 0.0
    try:
        if not interpreter_only:
            process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
            process.stdin.flush()
            deadline = started + 120
            answer = json.loads(read_line(process, deadline))
            initialised = time.perf_counter() - started
            if "result" not in answer:
                raise RuntimeError(f"{server.label}: initialize failed: {answer}")
            process.stdin.write((json.dumps(INITIALIZED) + "\n" + json.dumps(LIST_TOOLS) + "\n").encode())
            process.stdin.flush()
            json.loads(read_line(process, deadline))
            listed = time.perf_counter() - started
    except BaseException as exc:
        process.kill()
        process.wait()
        stderr = (home / "stderr.txt").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"{server.label} failed ({exc!r}); its stderr ends with:\n{stderr}") from None
    finally:
        process.stdin.close()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    if interpreter_only:
        initialised = listed = time.perf_counter() - started
    return initialised, listed, usage.ru_utime + usage.ru_stime


IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)")


def import_costs(server: Server, home: Path, top: int) -> list[tuple[str, float]]:
    """Milliseconds of import time per top-level package (the sum of its modules' own times) when `python -X
    importtime` imports the server module: where the start-up goes, whoever imported it first."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {server.package}.server"],
        capture_output=True,
        env=server.environment(home),
        cwd=server.root,
        text=True,
        check=False,
    )
    totals: dict[str, float] = {}
    for line in result.stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match:
            root = match.group(3).split(".")[0]
            totals[root] = totals.get(root, 0.0) + int(match.group(1)) / 1000
    return sorted(totals.items(), key=lambda item: item[1], reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="spawns per server (interleaved)")
    parser.add_argument("--top", type=int, default=6, help="top-level imports listed per server")
    parser.add_argument("--compare", type=Path, help="another checkout whose servers are timed in the same run")
    args = parser.parse_args()

    packages = first_party_packages(REPO_ROOT)
    servers = [Server(INTERPRETER, INTERPRETER, REPO_ROOT), Server(BASELINE, BASELINE, REPO_ROOT)]
    for package in packages:
        servers.append(Server(package, package, REPO_ROOT))
        if args.compare and (args.compare / package / "manifest.json").exists():
            servers.append(Server(f"{package} (compared)", package, args.compare.resolve()))

    initialise: dict[str, list[float]] = {server.label: [] for server in servers}
    listing: dict[str, list[float]] = {server.label: [] for server in servers}
    cpu: dict[str, list[float]] = {server.label: [] for server in servers}
    with tempfile.TemporaryDirectory(prefix="mcp-startup-") as workdir:
        for run in range(args.runs):
            for index, server in enumerate(servers):
                first, second, used = spawn_and_time(server, Path(workdir) / f"{index}-{run}")
                initialise[server.label].append(first)
                listing[server.label].append(second)
                cpu[server.label].append(used)
        imports = {
            server.label: import_costs(server, Path(workdir) / "imports", args.top)
            for server in servers
            if server.package not in (INTERPRETER, BASELINE)
        }

    base = statistics.median(initialise[BASELINE])
    base_cpu = statistics.median(cpu[BASELINE])
    print(f"spawn → initialize answer, median of {args.runs} interleaved runs; ratios to {BASELINE} in this run\n")
    print(f"{'server':<26} {'initialize (s)':>15} {'tools/list (s)':>15} {'÷ echo':>7} {'CPU (s)':>8} {'÷ echo':>7}")
    summary: dict[str, dict[str, float]] = {}
    for server in servers:
        init_s = statistics.median(initialise[server.label])
        list_s = statistics.median(listing[server.label])
        cpu_s = statistics.median(cpu[server.label])
        summary[server.label] = {
            "initialize_s": round(init_s, 3),
            "tools_list_s": round(list_s, 3),
            "ratio": round(init_s / base, 2),
            "cpu_s": round(cpu_s, 3),
            "cpu_ratio": round(cpu_s / base_cpu, 2),
        }
        print(
            f"{server.label:<26} {init_s:>15.3f} {list_s:>15.3f} {init_s / base:>7.2f} {cpu_s:>8.3f} "
            f"{cpu_s / base_cpu:>7.2f}"
        )
    print("\nimport time by top-level package (ms, sum of its modules' own times; one `-X importtime` run each):")
    for label, costs in imports.items():
        print(f"  {label}: " + ", ".join(f"{module} {ms:.0f}" for module, ms in costs))
    slowest = max(packages, key=lambda name: summary[name]["initialize_s"])
    print(
        json.dumps(
            {
                "benchmark": "mcp_startup",
                "runs": args.runs,
                "baseline": BASELINE,
                "servers": summary,
                "slowest": slowest,
                "slowest_ratio": summary[slowest]["ratio"],
                "max_cpu_ratio": max(summary[name]["cpu_ratio"] for name in packages),
            }
        )
    )


if __name__ == "__main__":
    main()
