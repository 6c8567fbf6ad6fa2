"""Benchmark: what CodeExec's sandbox adds to running a program.

Each round runs the same trivial program (`python3 -c pass`, and `bash -c true` for the smallest base cost)
five ways, interleaved so that the shared machine's noise falls on all of them alike:

- bare: an asyncio subprocess, as a naive implementation would start it (the baseline);
- limits-only: the same behind `setpriv` and `prlimit` (the fallback mode's chain);
- bwrap_minimal: bubblewrap alone with all its namespaces and only the system folders bound (what any
  bubblewrap sandbox costs, to tell it apart from what CodeExec adds);
- bwrap: the full sandbox command line (namespaces, mounts, privilege drop, user namespace, limits), run by
  the same runner CodeExec uses, which also waits until the sandbox's PID namespace is empty;
- service: `CodeExec.execute_code` end to end (code folder, working folder, artifact snapshots, output).

Printed: p50/p90 wall time per way, the ratio of each p50 to bare's, and the per-call overhead (p50 minus
bare's p50), with the load average before and after: on a busy machine every extra process in the chain
(bubblewrap forks twice, then setpriv, unshare, setpriv, prlimit) also waits to be scheduled.
Needs bubblewrap (apt-get install bubblewrap) and a host that allows namespaces.

    python benchmarks/codexec_sandbox.py [--rounds 40]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.latency import percentile  # noqa: E402
from codexec_mcp.host import build_host  # noqa: E402
from codexec_mcp.limits import Limits  # noqa: E402
from codexec_mcp.process import NamespaceWatch, run_to_completion  # noqa: E402
from codexec_mcp.sandbox import RunSpec, build_argv, launcher_env, sandbox_env, view  # noqa: E402
from codexec_mcp.service import CodeExec  # noqa: E402
from codexec_mcp.settings import CodexecSettings  # noqa: E402
from shared.settings import load_settings  # noqa: E402

LIMITS = Limits(wall_seconds=30, cpu_seconds=30, memory_mb=1024, max_processes=64, max_file_mb=50)
PROGRAMS = {"python": ["/usr/bin/python3", "-c", "pass"], "bash": ["/bin/bash", "-c", "true"]}


async def main(rounds: int) -> dict[str, object]:
    home = Path(tempfile.mkdtemp(prefix="codexec-bench-"))
    code_dir = Path(tempfile.mkdtemp(prefix="codexec-bench-code-"))
    os.chmod(code_dir, 0o755)
    try:
        settings = load_settings(CodexecSettings, annabelle_home=home)
        host = build_host(settings)
        limits_only = replace(host.plan, isolation="limits-only")
        service = CodeExec(settings, host, None)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}

        async def run(argv: list[str], run_env: dict[str, str], watch: NamespaceWatch | None = None) -> None:
            outcome = await run_to_completion(
                argv, run_env, None, LIMITS, head_chars=4000, tail_chars=4000, grace_seconds=1, watch=watch
            )
            assert outcome.returncode == 0, (argv, outcome.stderr.render(2000, 1000, 1000))

        def ways(program: list[str]) -> dict[str, Callable[[], Awaitable[None]]]:
            spec = RunSpec(command=program, workdir=(), code_dir=code_dir, limits=LIMITS)
            plain_env = sandbox_env(limits_only, view(limits_only, code_dir))
            fenced_env = sandbox_env(host.plan, view(host.plan, code_dir))
            language = "python" if "python" in program[0] else "bash"
            source = "pass" if language == "python" else "true"

            async def sandboxed() -> None:
                watch = NamespaceWatch()
                argv = build_argv(host.plan, spec, fenced_env, watch.write_end)
                await run(argv, launcher_env(host.plan, fenced_env), watch)

            async def end_to_end() -> None:
                result = await service.execute_code(language, source, None, None)  # type: ignore[arg-type]
                assert result.exit_code == 0, result

            minimal = [host.plan.tools.bwrap or "bwrap", "--unshare-all", "--die-with-parent"]
            for mount in host.plan.system_mounts:
                minimal += mount.args()
            minimal += ["--proc", "/proc", "--dev", "/dev", *program]
            return {
                "bare": lambda: run(program, env),
                "limits_only": lambda: run(build_argv(limits_only, spec, plain_env), plain_env),
                "bwrap_minimal": lambda: run(minimal, env),
                "bwrap": sandboxed,
                "service": end_to_end,
            }

        summary: dict[str, object] = {"rounds": rounds, "running_as_root": host.plan.running_as_root}
        for name, program in PROGRAMS.items():
            table = ways(program)
            times: dict[str, list[float]] = {way: [] for way in table}
            for way in table.values():  # warm-up: page cache, imports
                await way()
            for _ in range(rounds):
                for way, call in table.items():
                    started = time.perf_counter()
                    await call()
                    times[way].append((time.perf_counter() - started) * 1000)
            bare = statistics.median(times["bare"])
            figures = {}
            print(f"\n{name}: {' '.join(PROGRAMS[name])}  ({rounds} rounds, interleaved)")
            print(f"  {'way':<12} {'p50 ms':>8} {'p90 ms':>8} {'× bare':>7} {'+ms/call':>9}")
            for way, values in times.items():
                p50, p90 = statistics.median(values), percentile(values, 0.9)
                figures[way] = {
                    "p50_ms": round(p50, 1),
                    "p90_ms": round(p90, 1),
                    "ratio_to_bare": round(p50 / bare, 2),
                    "overhead_ms": round(p50 - bare, 1),
                }
                print(f"  {way:<12} {p50:8.1f} {p90:8.1f} {p50 / bare:7.2f} {p50 - bare:9.1f}")
            summary[name] = figures
        return summary
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(code_dir, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=40)
    arguments = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    result = asyncio.run(main(arguments.rounds))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(json.dumps(result))
