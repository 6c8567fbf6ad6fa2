"""The diagnostics registry: checks run in parallel, each answering one line and a one-line fix.

Adding a check is one decorated function (another part of the hub can do it from its own module):

    @check("queue-depth", "Cron")
    async def queue_depth(ctx: CommandContext) -> Finding:
        return Finding("ok", "queue empty") if ... else Finding("warning", "1,200 jobs queued", fix="…")

Each check's judgement is a pure function of data it is handed (`orchestrator.diagnostics.judge`); the decorated
function only gathers that data (`orchestrator.diagnostics.checks`). A check registered with `needs_hub=False`
reads only files, the environment and loopback services, so `annabelle doctor` can run it while the hub is down.
A check that raises or takes longer than `CHECK_TIMEOUT_SECONDS` reports that as a warning, so one broken check
never hides the others. Results are sorted critical → warning → info → ok.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import anyio

from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics.findings import MARKS, SEVERITY_ORDER, Finding
from shared.text import clip

CHECK_TIMEOUT_SECONDS = 10.0

CheckFunction = Callable[[CommandContext], Awaitable[Finding]]


Scope = Literal["internal", "external"]


@dataclass(frozen=True)
class Check:
    name: str
    category: str
    run: CheckFunction
    needs_hub: bool = True
    """False: the check reads only files, the environment and loopback services (`annabelle doctor` without a hub)."""
    scope: Scope = "internal"
    """`external`: about the external MCP servers of external-mcps.json (system_health_check's scopes)."""


CHECKS: dict[str, Check] = {}


def check(
    name: str, category: str, *, needs_hub: bool = True, scope: Scope = "internal"
) -> Callable[[CheckFunction], CheckFunction]:
    """Register `async def fn(ctx) -> Finding` as the check `name` (shown under `category`)."""

    def register(function: CheckFunction) -> CheckFunction:
        existing = CHECKS.get(name)
        if existing is not None and existing.run is not function:
            raise ValueError(f"The diagnose check {name!r} is registered twice.")
        CHECKS[name] = Check(name, category, function, needs_hub, scope)
        return function

    return register


async def run_checks(
    ctx: CommandContext, checks: Iterable[Check] | None = None, seconds_each: float = CHECK_TIMEOUT_SECONDS
) -> list[tuple[Check, Finding]]:
    """Run every check at once; results sorted by severity, then name."""
    table = list(CHECKS.values() if checks is None else checks)
    results: list[tuple[Check, Finding]] = []

    async def run(item: Check) -> None:
        try:
            with anyio.fail_after(seconds_each):
                finding = await item.run(ctx)
        except TimeoutError:
            finding = Finding("warning", f"the check took longer than {seconds_each:g} s", "Run /diagnose again.")
        except Exception as exc:  # a broken check is itself a finding, not a failed /diagnose
            finding = Finding("warning", f"the check failed: {exc or type(exc).__name__}")
        results.append((item, finding))

    async with anyio.create_task_group() as tasks:
        for item in table:
            tasks.start_soon(run, item)
    return sorted(results, key=lambda pair: (SEVERITY_ORDER[pair[1].severity], pair[0].name))


def format_report(results: list[tuple[Check, Finding]]) -> str:
    """Problems one per line with their fix; passing checks folded into one line (pure)."""
    problems = [(c, f) for c, f in results if f.severity != "ok"]
    passed = [c.name for c, f in results if f.severity == "ok"]
    counts = {sev: sum(1 for _, f in results if f.severity == sev) for sev in ("critical", "warning", "info")}
    header = f"Diagnose: {len(results)} checks — {counts['critical']} critical, {counts['warning']} warning(s), "
    header += f"{counts['info']} note(s)."
    lines = [header]
    for item, finding in problems:
        lines.append(clip(f"{MARKS[finding.severity]} {item.name}: {finding.summary}", 300))
        if finding.fix:
            lines.append("     fix: " + clip(finding.fix, 290))
    if passed:
        lines.append(f"[ok] {', '.join(passed)}")
    return "\n".join(lines)
