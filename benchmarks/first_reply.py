"""Benchmark: the first chat reply after the hub says ready, against the next one (the model's own time).

The hub runs every first-party MCP of the repository with one agent on a scripted OpenAI-compatible model that
answers at once (`tests/fakes/openai_server.py`); the default embedding provider is kept, so the Thinker loads its
embedding model as a real install does. Per run, from a fresh hub:

- **first reply**: `POST /message` sent `--after` seconds after `/health` says ok (default 0: the moment it does),
  until its answer. The hub starts the default agent's Thinker once it is ready (`THINKER_WARM_START`, taken from
  the environment: `THINKER_WARM_START=false` measures the Thinker started by this first message); whatever of
  its spawn and warm-up is not done yet, and Guardian's first model scan, are in this figure;
- **next reply**: the same message again, everything warm: the hub, the Thinker and the model's own time.

Goal (issue 17): first reply ≤ 1 s plus the model's own time, i.e. `first − next ≤ 1 s`. Medians over `--runs`.

    python benchmarks/first_reply.py [--runs 3] [--after SECONDS] [--keep]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.tool_call import first_party_packages  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI  # noqa: E402
from tests.hub_process import fake_llm_agent_env, start_hub  # noqa: E402

MESSAGE = "What time is it in Lisbon?"


def timed_message(client: httpx.Client) -> float:
    started = time.perf_counter()
    answer = client.post("/message", json={"message": MESSAGE}, timeout=300).json()
    elapsed = time.perf_counter() - started
    if not answer.get("success"):
        raise RuntimeError(f"the message failed: {answer}")
    return elapsed


def one_run(workdir: Path, api_base: str, after: float) -> tuple[float, float]:
    env = fake_llm_agent_env(workdir, api_base)
    del env["EMBEDDING_PROVIDER"]  # as installed: the Thinker loads its embedding model
    env["LOG_LEVEL"] = "WARNING"
    hub = start_hub(workdir, workdir / "home", first_party_packages(), env=env, timeout=300)
    with hub, hub.client() as client:
        time.sleep(after)
        first = timed_message(client)
        following = timed_message(client)
    return first, following


def main(runs: int, keep: bool, after: float) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="bench-first-reply-"))
    firsts, nexts = [], []
    try:
        with FakeOpenAI(default="It is half past ten in Lisbon.") as llm:
            for attempt in range(runs):
                workdir = scratch / f"run-{attempt}"
                workdir.mkdir()
                first, following = one_run(workdir, llm.api_base, after)
                firsts.append(first)
                nexts.append(following)
                print(f"run {attempt + 1}: first reply {first:.3f} s, next {following:.3f} s", flush=True)
    finally:
        if keep:
            print(f"kept: {scratch} (each run's home/logs/traces.jsonl says where the first reply's time went)")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    first_s, next_s = round(statistics.median(firsts), 3), round(statistics.median(nexts), 3)
    return {
        "runs": runs,
        "after_ready_s": after,
        "warm_start": os.environ.get("THINKER_WARM_START", "true"),
        "first_reply_s": first_s,
        "next_reply_s": next_s,
        "first_minus_next_s": round(first_s - next_s, 3),
        "load_1min": round(os.getloadavg()[0], 2),
        "targets": {"first_minus_next_s": "<= 1"},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh hubs (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep the runs' homes (logs and traces)")
    parser.add_argument(
        "--after", type=float, default=0.0, help="seconds between /health ok and the first message (default 0)"
    )
    options = parser.parse_args()
    print(json.dumps(main(options.runs, options.keep, options.after)))
