"""`annabelle doctor`: every diagnostics check, from the running hub (`GET /diagnose`) or, when the hub is down,
the configuration checks run here (those registered with `needs_hub=False`) plus one critical line saying so.

The exit code is 1 when any finding is critical, else 0: `annabelle doctor && echo healthy` works in scripts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import anyio

from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics.findings import MARKS, SEVERITY_ORDER, Finding, finding_from_json
from shared.agents import AgentsConfig, AgentsConfigError, load_agents_config
from shared.hub_client import HubClient, HubRefused, HubRejected, HubUnreachable
from shared.settings import ConfigError, load_settings

__all__ = ["Report", "doctor", "format_doctor", "local_report"]

HUB_TIMEOUT_SECONDS = 60.0
Report = list[tuple[str, str, Finding]]
"""(check name, category, finding), worst first."""


def format_doctor(report: Report, source: str) -> str:
    """Every finding on its own line with its mark, the fix under each problem, and a closing count (pure)."""
    ordered = sorted(report, key=lambda row: (SEVERITY_ORDER[row[2].severity], row[0]))
    lines = [f"Annabelle doctor ({source}): {len(ordered)} checks"]
    for name, _, finding in ordered:
        lines.append(f"{MARKS[finding.severity]:<4} {name}: {finding.summary}")
        if finding.fix and finding.severity != "ok":
            lines.append(f"     fix: {finding.fix}")
    counts = {severity: sum(1 for *_, f in ordered if f.severity == severity) for severity in SEVERITY_ORDER}
    lines.append(
        f"{counts['critical']} critical, {counts['warning']} warning(s), {counts['info']} note(s), {counts['ok']} ok."
    )
    return "\n".join(lines)


class _OfflineAgents:
    """What configuration checks read from the agent manager, taken from agents.json itself."""

    def __init__(self, config: AgentsConfig) -> None:
        self.config = config
        self.agents: dict[str, Any] = {}

    def describe(self) -> list[dict[str, Any]]:
        return []


class _NoHub:
    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("the hub is not running")


async def _run_local(settings: Any) -> Report:
    from orchestrator.diagnostics import checks as _checks  # noqa: F401  (the checks register themselves)
    from orchestrator.diagnostics.registry import CHECKS, run_checks
    from orchestrator.halt import HaltState

    try:
        config = load_agents_config(settings.agents_config)
    except AgentsConfigError:
        config = AgentsConfig.default()  # the agents-config check reports the problem itself
    halt = HaltState(settings.data_dir / "halt.json")
    context = CommandContext(cast(Any, _NoHub()), cast(Any, _OfflineAgents(config)), halt, settings, "cli", "doctor")
    local = [item for item in CHECKS.values() if not item.needs_hub]
    return [(item.name, item.category, finding) for item, finding in await run_checks(context, local)]


def local_report(hub_problem: Finding) -> Report:
    """The checks that need no hub, run in this process, with `hub_problem` (why the hub was not asked) first."""
    from orchestrator.settings import OrchestratorSettings

    hub_row = ("hub", "Services", hub_problem)
    try:
        settings = load_settings(OrchestratorSettings)
    except ConfigError as exc:
        return [hub_row, ("settings", "Config", Finding("critical", str(exc).replace("\n", " "), "Fix .env."))]
    return [hub_row, *anyio.run(_run_local, settings)]


def _remote(hub_url: str, token: str) -> Report | Finding:
    """The hub's findings, or a Finding saying why the hub could not answer."""
    start = "Start the hub with `annabelle up` (or `make run`, `docker compose up`)."

    async def ask() -> Any:
        async with HubClient(hub_url, token, timeout=HUB_TIMEOUT_SECONDS) as hub:
            return await hub.request("GET", "/diagnose")

    try:
        answer = anyio.run(ask)
    except HubUnreachable as exc:
        if exc.timed_out:
            return Finding("critical", f"the hub at {hub_url} did not answer within {HUB_TIMEOUT_SECONDS:g} s", start)
        return Finding("critical", f"the hub is not running at {hub_url}", start)
    except HubRefused:
        return Finding(
            "critical",
            f"the hub at {hub_url} rejected the token",
            "Use the hub's ANNABELLE_TOKEN or ANNABELLE_HOME (the token is in $ANNABELLE_HOME/annabelle.token).",
        )
    except HubRejected as exc:
        return Finding("critical", f"GET /diagnose answered HTTP {exc.status}", "See the hub log.")
    return [finding_from_json(row) for row in answer.get("findings", [])]


def doctor(hub_url: str, token: str | None, home: Path) -> tuple[str, int]:
    """The printed report and the exit code."""
    if token is None:
        problem = Finding(
            "critical",
            f"no token: the hub has never started with ANNABELLE_HOME={home}, or ANNABELLE_TOKEN is not set",
            "Start the hub once with `annabelle up`; it creates the token.",
        )
        report, source = local_report(problem), "configuration only, the hub was not asked"
    else:
        remote = _remote(hub_url, token)
        if isinstance(remote, Finding):
            report, source = local_report(remote), "configuration only, the hub did not answer"
        else:
            report, source = remote, f"hub at {hub_url}"
    code = 1 if any(finding.severity == "critical" for *_, finding in report) else 0
    return format_doctor(report, source), code
