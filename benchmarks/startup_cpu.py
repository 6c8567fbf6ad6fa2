"""Benchmark: the CPU the hub's start-up needs, per process and per step, whatever the machine's load.

Wall-clock start-up (`tool_call.py --startup-only`) on a shared two-core machine measures the neighbours as much as
the hub. CPU seconds do not depend on the load (much), so this script starts the real hub (`python -m orchestrator`
with every first-party MCP of the checkout, as `tool_call.py` does) and reads, the moment `/health` says ok:

- each process's CPU (user + system from `/proc`, with the CPU of children it already reaped), named by `/status`:
  the hub, every MCP child, and whatever else runs (the fork server, started once the hub is ready);
- the hub's own timeline (`time.process_time()` in the hub): when it forks its first and last MCP, when it starts
  importing its web stack (`uvicorn`), the app (`orchestrator.app`) and a few heavy libraries, and when it binds
  its HTTP port. A `sitecustomize` on the hub's `PYTHONPATH` records these from an audit hook (`os.fork`, `import`,
  `socket.bind` events), so the hub runs its own code unchanged.

`--compare DIR` (repeatable) runs another checkout (say, an export of the commit before a change) alternately with
this one, so before/after figures come from the same minutes. Medians over `--runs` starts.

    python benchmarks/startup_cpu.py [--runs 5] [--compare DIR ...] [--configured]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.configured import configure_all  # noqa: E402
from tests.hub_process import free_port, stop_process_group  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
# The imports whose start the hub's timeline marks: the first `import` statement naming each in the hub
# (`importlib.import_module` raises no audit event, so PRELOAD itself is not seen; the first fork ends it).
MARKED_IMPORTS = (
    "orchestrator.settings",
    "orchestrator.warm_start",
    "orchestrator.discovery",
    "uvicorn",
    "fastapi",
    "orchestrator.app",
    "apscheduler",
    "sqlalchemy",
    "croniter",
    "httpcore",
)
SITECUSTOMIZE = textwrap.dedent(
    """
    # Written by benchmarks/startup_cpu.py: a timeline in each process's own CPU seconds (the script keeps the hub's).
    import os, sys, time
    _PATH = os.environ.get("STARTUP_CPU_TIMELINE")
    _MARKED = set(os.environ.get("STARTUP_CPU_IMPORTS", "").split(","))
    _PID = os.getpid()
    _PORT = os.environ.get("ORCHESTRATOR_PORT")
    _SEEN = set()

    def _mark(what):
        with open(_PATH, "a") as out:
            out.write(f"{_PID}\\t{what}\\t{time.process_time()}\\n")

    def _hook(event, args):
        if os.getpid() != _PID:
            return  # a forked child
        if event == "import" and args[0] in _MARKED and args[0] not in _SEEN:
            _SEEN.add(args[0])
            _mark("import " + args[0])
        elif event == "os.fork":
            _mark("fork")
        elif event == "socket.bind" and isinstance(args[1], tuple) and str(args[1][1]) == _PORT:
            _mark("bind hub port")  # the port probe first, uvicorn's listening socket last

    if _PATH:
        _mark("start")
        sys.addaudithook(_hook)
    """
)


@dataclass
class Run:
    checkout: str
    wall_to_ready_s: float
    cpu_s: dict[str, float]
    timeline: dict[str, float]
    load: float
    extra: dict[str, Any] = field(default_factory=dict)


def proc_stat(pid: int) -> tuple[int, float, float] | None:
    """(parent pid, own CPU seconds, CPU seconds of reaped children) of a live process, or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    # After the command: state, ppid, ..., utime (14th field of the line), stime, cutime, cstime.
    utime, stime, cutime, cstime = (int(value) for value in fields[11:15])
    return int(fields[1]), (utime + stime) / TICKS, (cutime + cstime) / TICKS


def descendants(root: int) -> dict[int, tuple[float, float]]:
    """Every live process under `root` (and `root`): pid → (own CPU, reaped children's CPU)."""
    stats: dict[int, tuple[int, float, float]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = proc_stat(int(entry))
            if stat is not None:
                stats[int(entry)] = stat
    found = {root}
    changed = True
    while changed:
        changed = False
        for pid, (parent, _, _) in stats.items():
            if parent in found and pid not in found:
                found.add(pid)
                changed = True
    return {pid: (stats[pid][1], stats[pid][2]) for pid in found if pid in stats}


def thread_cpu(pid: int) -> float:
    """CPU seconds of a process's main thread alone."""
    fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text()
    after = fields[fields.rindex(")") + 2 :].split()
    return (int(after[11]) + int(after[12])) / TICKS


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def start_once(checkout: Path, label: str, scratch: Path, configured: bool = False) -> Run:
    """Start the hub of `checkout` with all its first-party MCPs; CPU per process the moment it is ready.

    `configured`: every MCP gets its setting (benchmarks/configured.py), so none is left for first use."""
    workdir = Path(tempfile.mkdtemp(dir=scratch))
    root = workdir / "mcps-root"
    root.mkdir()
    for manifest in sorted(checkout.glob("*_mcp/manifest.json")):
        (root / manifest.parent.name).symlink_to(manifest.parent, target_is_directory=True)
    hooks = workdir / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE)
    timeline_path = workdir / "timeline.tsv"
    port = free_port()
    env = {
        **os.environ,
        "ANNABELLE_HOME": str(workdir / "home"),
        "ANNABELLE_MCPS_ROOT": str(root),
        "ORCHESTRATOR_PORT": str(port),
        "LOG_LEVEL": "WARNING",
        # The start-up of the hub and its MCPs, as before the Thinker's warm start (which follows /health ok).
        "THINKER_WARM_START": "false",
        "PYTHONPATH": str(hooks),
        "STARTUP_CPU_TIMELINE": str(timeline_path),
        "STARTUP_CPU_IMPORTS": ",".join(MARKED_IMPORTS),
        **(configure_all(workdir / "home") if configured else {}),
    }
    load = os.getloadavg()[0]
    launched = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "orchestrator"],
        cwd=checkout,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=(workdir / "hub.log").open("wb"),
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=5) as client:
            deadline = launched + 120
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"hub exited: {(workdir / 'hub.log').read_text(errors='replace')[-2000:]}")
                if time.perf_counter() > deadline:
                    raise RuntimeError("hub not ready within 120 s")
                try:
                    if client.get("/health").json().get("status") == "ok":
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
            ready = time.perf_counter()
            cpu = descendants(process.pid)
            main_thread = thread_cpu(process.pid)
            token = (workdir / "home" / "annabelle.token").read_text().strip()
            status = client.get("/status", headers={"X-Annabelle-Token": token}).json()
    finally:
        stop_process_group(process)
    names = {mcp["pid"]: name for name, mcp in status["mcps"].items() if mcp.get("pid")}
    by_name: dict[str, float] = {}
    for pid, (own, reaped) in cpu.items():
        if pid == process.pid:
            name = "hub"
        elif pid in names:
            name = names[pid]
        elif "forkserver" in command_line(pid):
            name = "(fork server)"
        else:
            name = "(other)"
        by_name[name] = by_name.get(name, 0.0) + own
        if reaped:
            by_name["(reaped children)"] = by_name.get("(reaped children)", 0.0) + reaped
    timeline: dict[str, float] = {}
    forks = 0
    for line in timeline_path.read_text().splitlines():
        pid, what, cpu_at = line.split("\t")
        if int(pid) != process.pid:
            continue
        if what == "fork":
            forks += 1
            timeline.setdefault("first fork", float(cpu_at))
            timeline["last fork"] = float(cpu_at)
        elif what == "bind hub port":
            timeline["uvicorn listens"] = float(cpu_at)
        else:
            timeline.setdefault(what, float(cpu_at))
    timeline["ready"] = by_name["hub"]
    # What the hub's other threads did up to that moment (work handed to worker threads, such as imports the hub
    # does once it serves, races the /health answer) is the difference.
    timeline["ready (main thread)"] = main_thread
    shutil.rmtree(workdir, ignore_errors=True)
    return Run(label, round(ready - launched, 3), by_name, timeline, load, {"forks": forks})


def median_of(runs: list[Run], pick: str, key: str) -> float | None:
    values = [getattr(run, pick).get(key) for run in runs]
    present = [value for value in values if value is not None]
    return round(statistics.median(present), 3) if present else None


def summarise(runs: list[Run]) -> dict[str, Any]:
    names = sorted({name for run in runs for name in run.cpu_s})
    steps = sorted({step for run in runs for step in run.timeline}, key=lambda s: median_of(runs, "timeline", s) or 0)
    mcps = [name for name in names if name != "hub" and not name.startswith("(")]
    totals = [sum(run.cpu_s.values()) for run in runs]
    children = [sum(run.cpu_s.get(name, 0.0) for name in mcps) for run in runs]
    return {
        "runs": len(runs),
        "load_1min": [round(run.load, 2) for run in runs],
        "wall_to_ready_s": [run.wall_to_ready_s for run in runs],
        "total_cpu_s": round(statistics.median(totals), 3),
        "hub_cpu_s": median_of(runs, "cpu_s", "hub"),
        "mcps_cpu_s": round(statistics.median(children), 3),
        "cpu_s": {name: median_of(runs, "cpu_s", name) for name in names},
        "hub_timeline_cpu_s": {step: median_of(runs, "timeline", step) for step in steps},
        "forks": [run.extra["forks"] for run in runs],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--configured", action="store_true", help="give every MCP its setting, so that the hub starts all of them"
    )
    parser.add_argument(
        "--compare", type=Path, action="append", default=[], help="another checkout, run alternately with this one"
    )
    options = parser.parse_args()
    checkouts = {str(path): path.resolve() for path in options.compare} | {"this": REPO_ROOT}
    scratch = Path(tempfile.mkdtemp(prefix="bench-startup-cpu-"))
    runs: dict[str, list[Run]] = {label: [] for label in checkouts}
    try:
        for attempt in range(options.runs):
            for label, checkout in checkouts.items():
                run = start_once(checkout, label, scratch, options.configured)
                runs[label].append(run)
                print(
                    f"run {attempt + 1} {label}: ready after {run.wall_to_ready_s} s (load {run.load:.1f}); "
                    f"CPU hub {run.cpu_s['hub']:.2f} s, all {sum(run.cpu_s.values()):.2f} s",
                    flush=True,
                )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(json.dumps({label: summarise(found) for label, found in runs.items()}, indent=2))


if __name__ == "__main__":
    main()
