"""Benchmark: our Browser MCP (Playwright for Python) against `@playwright/mcp` (Node), both on the same Chromium.

Both servers are spawned as stdio MCP processes and drive the system's Chromium headless against the same page
served on 127.0.0.1. Figures, each as ours / theirs measured in the same run (these machines are shared and noisy):

- `start_ms`: spawn, initialise and list the tools (no browser yet on either side), median of `--starts` runs
  taken alternately;
- `first_navigate_ms`: the first navigate, which starts the driver and Chromium and loads the page;
- `navigate_ms`, `snapshot_ms`, `click_ms`: medians over `--rounds` warm calls;
- `chars_per_step`: characters a model reads for one navigate + snapshot + click (theirs returns a snapshot
  with every action; ours returns a short state, the page only on snapshot);
- `rss_mb`: resident memory of the server process and every process below it (driver, Chromium), at the end.

    python benchmarks/browser.py --playwright-mcp /path/to/node_modules/@playwright/mcp/cli.js [--rounds 15]

`@playwright/mcp` is not a dependency of the project: install it anywhere with npm (set
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1) and pass its cli.js. The last line printed is the JSON summary.
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

from mcp import Client, StdioServerParameters

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from browser_mcp.chromium import BASE_SWITCHES, find_executable  # noqa: E402
from tests.fakes.browser_pages import BrowserPages  # noqa: E402


def tree_rss_mb(pid: int) -> float:
    """Resident memory of `pid` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    total_kb, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
        except OSError:
            continue
        total_kb += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
        stack.extend(children.get(current, []))
    return total_kb / 1024


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def ref_of(text: str, label: str) -> str:
    """The ref of `label` in a snapshot answer: ours is an envelope (JSON), theirs markdown with a YAML block."""
    if text.startswith("{"):
        text = json.loads(text)["data"]["snapshot"]
    line = next(line for line in text.splitlines() if label in line and "[ref=" in line)
    return line.split("[ref=")[1].split("]")[0]


async def timed(work: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await work()
    return (time.perf_counter() - started) * 1000, result


async def start_ms(parameters: StdioServerParameters) -> float:
    started = time.perf_counter()
    async with Client(parameters) as client:
        await client.list_tools()
        return (time.perf_counter() - started) * 1000


async def measure(
    name: str, parameters: StdioServerParameters, page_url: str, rounds: int, starts: list[float]
) -> dict[str, float]:
    async with Client(parameters) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        # @playwright/mcp 0.0.64 (the original's) named the element `ref`; later releases call it `target`.
        ref_key = "ref" if "ref" in tools["browser_click"].input_schema["properties"] else "target"
        first_ms, _ = await timed(lambda: client.call_tool("browser_navigate", {"url": page_url}))
        navigates, snapshots, clicks, chars = [], [], [], []
        for _ in range(rounds):
            nav_ms, navigated = await timed(lambda: client.call_tool("browser_navigate", {"url": page_url}))
            snap_ms, snapshot = await timed(lambda: client.call_tool("browser_snapshot", {}))
            ref = ref_of(text_of(snapshot), 'button "Press me"')
            click_ms, clicked = await timed(
                lambda ref=ref: client.call_tool("browser_click", {ref_key: ref, "element": "Press me"})
            )
            assert not clicked.is_error, text_of(clicked)
            navigates.append(nav_ms)
            snapshots.append(snap_ms)
            clicks.append(click_ms)
            chars.append(len(text_of(navigated)) + len(text_of(snapshot)) + len(text_of(clicked)))
        rss = sum(tree_rss_mb(pid) for pid in _server_pids(parameters))
    figures = {
        "start_ms": statistics.median(starts),
        "first_navigate_ms": first_ms,
        "navigate_ms": statistics.median(navigates),
        "snapshot_ms": statistics.median(snapshots),
        "click_ms": statistics.median(clicks),
        "chars_per_step": statistics.median(chars),
        "rss_mb": rss,
    }
    print(f"{name:>16}: " + ", ".join(f"{key} {value:.0f}" for key, value in figures.items()), flush=True)
    return figures


def _server_pids(parameters: StdioServerParameters) -> list[int]:
    """The server processes of this run: children of this process running the server's command."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and parameters.args and parameters.args[0] in cmdline:
            found.append(int(entry.name))
    return found


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--playwright-mcp", type=Path, required=True, help="path to @playwright/mcp's cli.js")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    chromium = find_executable(None)
    if chromium is None:
        raise SystemExit("Chromium is not installed (apt-get install chromium).")
    with tempfile.TemporaryDirectory() as scratch, BrowserPages() as pages:
        home = Path(scratch) / "home"
        env = {
            **os.environ,
            "ANNABELLE_HOME": str(home),
            "ANNABELLE_ENV_FILE": str(Path(scratch) / "no.env"),
            "WEB_FETCH_ALLOWED_HOSTS": "127.0.0.1",
        }
        ours = StdioServerParameters(command=sys.executable, args=["-m", "browser_mcp"], env=env, cwd=str(REPO_ROOT))
        config = Path(scratch) / "playwright-mcp.json"
        config.write_text(
            json.dumps({"browser": {"launchOptions": {"executablePath": str(chromium), "args": list(BASE_SWITCHES)}}})
        )
        theirs = StdioServerParameters(
            command="node",
            args=[str(args.playwright_mcp), "--headless", "--isolated", "--no-sandbox", "--config", str(config)],
            env={**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"},
            cwd=scratch,
        )
        page_url = f"{pages.url}/"
        print(f"Chromium {chromium}, page {page_url}, {args.rounds} warm rounds")
        our_starts: list[float] = []
        their_starts: list[float] = []
        for _ in range(args.starts):
            our_starts.append(await start_ms(ours))
            their_starts.append(await start_ms(theirs))
        our_figures = await measure("ours (python)", ours, page_url, args.rounds, our_starts)
        their_figures = await measure("@playwright/mcp", theirs, page_url, args.rounds, their_starts)
    ratios = {key: round(our_figures[key] / their_figures[key], 2) for key in our_figures if their_figures[key]}
    print("ours / theirs: " + ", ".join(f"{key} {value}" for key, value in ratios.items()))
    summary = {
        "ours": {key: round(value, 1) for key, value in our_figures.items()},
        "playwright_mcp": {key: round(value, 1) for key, value in their_figures.items()},
        "ratio": ratios,
        "rounds": args.rounds,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main())
