"""Benchmark: how fast a direct-tier skill fires through the hub, and what a scheduler tick costs with 1,000 skills.

Everything runs in one process against the real hub object (`create_app`, its lifespan) with the real Memorizer
and echo MCPs as stdio children; Guardian is left out (fail mode open) so the figures are the scheduler's own.
The scheduler's clock is a fake that the benchmark moves, so nothing waits for real time.

- baseline: `hub.call("echo_echo")`, a bare routed tool call, in the same run;
- direct-tier fire: one skill whose plan is that same `echo_echo` call, due on each iteration: (a) the run itself
  (pre-flight check, plan, the tool call through the hub), (b) a whole tick: due decision, run, and the run record
  written to Memorizer. Target: (a) p50 ≤ 5 ms;
- tick overhead: a tick with 1,000 enabled skills of which none is due (cron and interval mixed; the scheduler
  remembers when to look at each skill again), the pure due decision without that memory (what the first tick
  after a start or a refresh that changed every skill costs), and re-reading the 1,000 skills from Memorizer
  (done every SKILL_REFRESH_SECONDS).

    python benchmarks/skills.py [--fires 500] [--skills 1000] [--ticks 50]

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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.latency import summary, timed  # noqa: E402
from tests.hub_process import package_dir  # noqa: E402

WARMUP = 20
"""Untimed calls before each timed series."""


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def prepare_environment(scratch: Path) -> None:
    root = scratch / "mcps"
    root.mkdir()
    for name in ("memorizer_mcp", "echo_mcp"):
        (root / name).symlink_to(package_dir(name), target_is_directory=True)
    (scratch / "agents.json").write_text(json.dumps({"agents": [{"agentId": "annabelle", "port": 18766}]}))
    os.environ.update(
        {
            "ANNABELLE_HOME": str(scratch / "home"),
            "ANNABELLE_MCPS_ROOT": str(root),
            "AGENTS_CONFIG": str(scratch / "agents.json"),
            "GUARDIAN_FAIL_MODE": "open",
            "EMBEDDING_PROVIDER": "none",
            "ANNABELLE_TIMEZONE": "UTC",
            "ANNABELLE_ENV_FILE": str(scratch / "no.env"),
            "LOG_LEVEL": "ERROR",
        }
    )


def many_skills(count: int, month: int) -> list[dict[str, Any]]:
    """Cron skills (in `month`, spread over its days and hours) and hourly-or-slower interval skills: none is due
    in the minute after they were created."""
    skills = []
    for number in range(count):
        if number % 2:
            trigger: dict[str, Any] = {"schedule": f"{number % 60} {number % 24} {1 + number % 28} {month} *"}
        else:
            trigger = {"interval_minutes": 60 + number % 120}
        skills.append(
            {
                "name": f"Bench {number}",
                "instructions": "Nothing.",
                "trigger_type": "cron",
                "trigger_config": trigger,
                "execution_plan": [{"id": "step1", "toolName": "echo_echo", "parameters": {"text": "x"}}],
            }
        )
    return skills


READY_TIMEOUT_S = 120.0


async def until_ready(hub: Any) -> None:
    """The hub starts its MCPs in the background of its lifespan: wait for them, or say why not."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not hub.ready:
        if time.monotonic() > deadline:
            raise SystemExit(f"the hub was not ready after {READY_TIMEOUT_S:.0f} s: {hub.status()}")
        await asyncio.sleep(0.05)


async def main(fires: int, skill_count: int, ticks: int) -> dict[str, Any]:
    from orchestrator.app import create_app
    from orchestrator.callers import OWNER
    from orchestrator.settings import OrchestratorSettings
    from orchestrator.skills.runs import due_skills
    from shared.settings import load_settings

    settings = load_settings(OrchestratorSettings, skill_refresh_seconds=3600)
    app = create_app(settings)
    hub = app.state.hub
    scheduler = app.state.skills
    scheduler.run_loop = False
    clock = Clock(datetime.now(UTC).replace(microsecond=0))
    scheduler.clock = clock
    async with app.router.lifespan_context(app):
        await until_ready(hub)

        async def echo() -> None:
            envelope = await hub.call("echo_echo", {"text": "x"}, caller=OWNER)
            assert envelope["success"], envelope

        baseline = await timed(fires, echo, warmup=WARMUP)

        plan = [{"toolName": "echo_echo", "parameters": {"text": "x"}}]
        stored = await hub.call(
            "memory_store_skill",
            {"name": "Bench fire", "interval_minutes": 1, "execution_plan": plan, "notify_on_completion": False},
            caller=OWNER,
        )
        assert stored["success"], stored
        await scheduler.refresh()
        skill = next(s for s in scheduler.skills() if s["name"] == "Bench fire")

        async def run_only() -> None:
            outcome = await scheduler.execute(skill, clock.now)
            assert outcome.status == "success", outcome

        fire = await timed(fires, run_only, warmup=WARMUP)

        async def whole_tick() -> None:
            clock.now += timedelta(minutes=1)
            due = await scheduler.tick(wait=True)
            assert len(due) == 1, due

        clock.now = datetime.now(UTC)  # the skill was created (by Memorizer's real clock) after the clock's start
        tick_with_run = await timed(fires, whole_tick, warmup=WARMUP)
        await hub.call("memory_update_skill", {"skill_id": skill["id"], "enabled": False}, caller=OWNER)

        next_month = datetime.now(UTC).month % 12 + 1
        for args in many_skills(skill_count, next_month):
            envelope = await hub.call("memory_store_skill", args, caller=OWNER)
            assert envelope["success"], envelope
        started = time.perf_counter()
        await scheduler.refresh()
        refresh_s = time.perf_counter() - started
        enabled = [s for s in scheduler.skills() if s.get("enabled") and s.get("trigger_type") == "cron"]
        clock.now = datetime.now(UTC) + timedelta(minutes=1)
        idle_tick = await timed(ticks, lambda: scheduler.tick(wait=True), warmup=3)
        decisions = []
        for _ in range(ticks):
            started = time.perf_counter()
            due = due_skills(enabled, clock.now, default_tz="UTC")
            decisions.append(time.perf_counter() - started)
        assert due == [], due

    return {
        "baseline_tool_call": summary(baseline),
        "direct_fire": summary(fire),
        "direct_fire_ratio_p50": round(statistics.median(fire) / statistics.median(baseline), 2),
        "tick_with_run_and_record": summary(tick_with_run),
        "enabled_skills": len(enabled),
        "idle_tick_1000": summary(idle_tick),
        "due_decision_cold_1000": summary(decisions),
        "refresh_1000_ms": round(refresh_s * 1000, 1),
        "idle_tick_cpu_share": round(statistics.median(idle_tick) / 1.0, 4),  # one tick a second
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fires", type=int, default=500)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--ticks", type=int, default=50)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="annabelle-skills-bench-") as scratch:
        prepare_environment(Path(scratch))
        result = asyncio.run(main(options.fires, options.skills, options.ticks))
    print(json.dumps(result))
