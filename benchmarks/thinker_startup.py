"""Benchmark: how soon a Thinker answers `/health` ready after it is spawned, and when its start-up work is done.

A hub with Filer runs (so the Thinker has tools to index); then, medians over `--runs`:

- **ready**: spawning `python -m thinker` until `GET /health` answers 200 (goal: ≤ 2 s);
- **warmed up**: spawning until the Thinker logs "thinker warmed up": litellm imported and warmed, the hub's
  tools listed and embedded with the local model (`EMBEDDING_PROVIDER=local`). A message that arrives earlier
  waits for this;
- baseline: spawning a bare FastAPI app on uvicorn until it answers, measured in the same run.

    python benchmarks/thinker_startup.py [--runs 3]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.tool_call import start_echo_server  # noqa: E402
from tests.hub_process import free_port, start_hub, stop_process_group  # noqa: E402


def wait_until(check: Any, timeout: float = 120) -> float:
    started = time.perf_counter()
    deadline = started + timeout
    while time.perf_counter() < deadline:
        if check():
            return time.perf_counter()
        time.sleep(0.02)
    raise RuntimeError("timed out")


def answers_ok(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def one_thinker(workdir: Path, hub_url: str, token: str) -> tuple[float, float]:
    port = free_port()
    config = workdir / "agents.json"
    agent = {"agentId": "annabelle", "port": port, "model": "openai/fake", "apiBase": "http://127.0.0.1:9/v1"}
    config.write_text(json.dumps({"agents": [agent]}))
    env = {
        **os.environ,
        "ANNABELLE_HOME": str(workdir / "home"),
        "AGENTS_CONFIG": str(config),
        "ORCHESTRATOR_URL": hub_url,
        "ANNABELLE_AGENT_TOKEN": token,
        "OPENAI_API_KEY": "test",
        "EMBEDDING_PROVIDER": "local",
        "LOG_LEVEL": "INFO",
        "ANNABELLE_STDERR_LOG_LEVEL": "INFO",
    }
    log_path = workdir / "thinker.log"
    with log_path.open("wb") as log_file:
        started = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-m", "thinker", "--agent-id", "annabelle"],
            cwd=REPO_ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        ready = wait_until(lambda: answers_ok(f"http://127.0.0.1:{port}/health")) - started
        # Before start-up ran in the background (an older checkout), "ready" was logged once everything had loaded.
        marker = (
            "thinker warmed up" if "_warm_up" in (REPO_ROOT / "thinker" / "runtime.py").read_text() else "thinker ready"
        )
        warmed = wait_until(lambda: marker in log_path.read_text(errors="replace")) - started
    finally:
        stop_process_group(process)
    return ready, warmed


def one_echo() -> float:
    started = time.perf_counter()
    process, _ = start_echo_server()
    elapsed = time.perf_counter() - started
    process.terminate()
    process.wait()
    return elapsed


def main(runs: int) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="bench-thinker-"))
    (scratch / "hub").mkdir()
    hub = start_hub(
        scratch / "hub",
        scratch / "hub" / "home",
        ["filer_mcp"],
        env={"LOG_LEVEL": "WARNING", "THINKER_WARM_START": "false"},
    )
    readies, warms, echoes = [], [], []
    try:
        for attempt in range(runs):
            workdir = scratch / f"thinker-{attempt}"
            workdir.mkdir()
            ready, warmed = one_thinker(workdir, hub.url, hub.token)
            readies.append(ready)
            warms.append(warmed)
            echoes.append(one_echo())
    finally:
        hub.stop()
    ready_s, warmed_s, echo_s = (round(statistics.median(values), 3) for values in (readies, warms, echoes))
    return {
        "runs": runs,
        "thinker_ready_s": ready_s,
        "thinker_warmed_up_s": warmed_s,
        "bare_uvicorn_app_ready_s": echo_s,
        "ratios": {"ready_over_bare_app": round(ready_s / echo_s, 3)},
        "targets": {"thinker_ready_s": "<= 2"},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="spawns of each (default 3)")
    options = parser.parse_args()
    print(json.dumps(main(options.runs)))
