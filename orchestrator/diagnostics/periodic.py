"""The checks run inside the hub every `DIAGNOSE_INTERVAL_MINUTES`, telling the owner only what changed.

A problem is a check whose finding is a warning or critical; its identity is (check name, severity), not the
summary, whose figures move every run ("4 errors in the last hour") and would otherwise notify each time. The
last set is kept in `$ANNABELLE_HOME/data/diagnose-last.json`, so a restart neither repeats nor forgets it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics.findings import MARKS, SEVERITY_ORDER, Finding, finding_json
from orchestrator.diagnostics.probes import write_json_atomically
from orchestrator.diagnostics.registry import Check, run_checks
from shared.text import clip

if TYPE_CHECKING:
    from orchestrator.agents import AgentManager
    from orchestrator.halt import HaltState
    from orchestrator.hub import Hub
    from orchestrator.settings import OrchestratorSettings

__all__ = ["LAST_FILENAME", "NOTIFY_KIND", "PeriodicDiagnose", "change_message", "diagnose_json", "problems_of"]

log = logging.getLogger(__name__)

LAST_FILENAME = "diagnose-last.json"
NOTIFY_KIND = "health"
FIRST_RUN_DELAY_SECONDS = 120.0
"""The first run waits this long after start-up, so MCPs and Thinkers that are still starting are not reported."""

Results = list[tuple[Check, Finding]]
Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]
Notify = Callable[[str], Awaitable[bool]]


def diagnose_json(results: Results) -> dict[str, Any]:
    """`GET /diagnose`'s answer: every finding, worst first, and the count per severity."""
    counts = {severity: sum(1 for _, f in results if f.severity == severity) for severity in SEVERITY_ORDER}
    return {
        "findings": [finding_json(item.name, item.category, finding) for item, finding in results],
        "counts": counts,
        "critical": counts["critical"] > 0,
    }


def problems_of(results: Results) -> dict[str, str]:
    """Check name → severity, for the warning and critical findings only."""
    return {item.name: f.severity for item, f in results if f.severity in ("critical", "warning")}


def change_message(previous: dict[str, str], results: Results) -> str | None:
    """The notification for a changed set of problems (None when nothing changed) — pure."""
    current = problems_of(results)
    if current == previous:
        return None
    new = [(item, f) for item, f in results if item.name in current and previous.get(item.name) != f.severity]
    resolved = sorted(name for name in previous if name not in current)
    lines = [f"Health check: {len(current)} problem(s) now" + (f", {len(new)} new or changed." if new else ".")]
    for item, finding in new:
        lines.append(clip(f"{MARKS[finding.severity]} {item.name}: {finding.summary}", 300))
        if finding.fix:
            lines.append("     fix: " + clip(finding.fix, 290))
    if resolved:
        lines.append("Resolved: " + ", ".join(resolved))
    if not current:
        lines.append("Everything is healthy again.")
    return "\n".join(lines)


class PeriodicDiagnose:
    """Run the checks now and then; notify when the set of problems differs from the last one saved."""

    def __init__(
        self,
        context: CommandContext,
        notify: Notify,
        state_path: Path,
        *,
        interval_seconds: float,
        first_delay_seconds: float = FIRST_RUN_DELAY_SECONDS,
        clock: Clock = lambda: datetime.now(UTC),
        sleep: Sleep = anyio.sleep,
        run: Callable[[CommandContext], Awaitable[Results]] = run_checks,
    ) -> None:
        self.context = context
        self.notify = notify
        self.state_path = state_path
        self.interval_seconds = interval_seconds
        self.first_delay_seconds = first_delay_seconds
        self.clock = clock
        self.sleep = sleep
        self._run = run

    def _previous(self) -> dict[str, str]:
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # no file (first run) or a damaged one: every current problem counts as new
        problems = data.get("problems") if isinstance(data, dict) else None
        return {str(k): str(v) for k, v in problems.items()} if isinstance(problems, dict) else {}

    async def run_once(self) -> str | None:
        """One run; returns the notification sent (None when nothing changed)."""
        results = await self._run(self.context)
        previous = await anyio.to_thread.run_sync(self._previous)
        message = change_message(previous, results)
        if message is not None:
            await self.notify(message)
            state = {"checkedAt": self.clock().isoformat(timespec="seconds"), "problems": problems_of(results)}
            await anyio.to_thread.run_sync(write_json_atomically, self.state_path, state)
        log.info("periodic diagnose", extra={"problems": sorted(problems_of(results)), "notified": bool(message)})
        return message

    async def run_forever(self) -> None:
        await self.sleep(self.first_delay_seconds)
        while True:
            try:
                await self.run_once()
            except Exception:  # one failed run must not end the schedule (or the hub's task group)
                log.exception("periodic diagnose failed")
            await self.sleep(self.interval_seconds)


def periodic_for_hub(
    hub: Hub, agents: AgentManager, halt: HaltState, settings: OrchestratorSettings
) -> PeriodicDiagnose | None:
    """The hub's periodic run, or None when `DIAGNOSE_INTERVAL_MINUTES=0`."""
    minutes = settings.diagnose_interval_minutes
    if minutes <= 0:
        return None
    context = CommandContext(hub, agents, halt, settings, "scheduler", "", command="diagnose")

    async def notify(text: str) -> bool:
        return await hub.notifier.notify(text, kind=NOTIFY_KIND)

    return PeriodicDiagnose(context, notify, settings.data_dir / LAST_FILENAME, interval_seconds=minutes * 60)
