"""`/help`, `/status` and `/status summary`: what is running, answered from the hub's own state.

`/status` also shows spend against each budget (agents.json `budgets`, and the limits of the skills that ran
today), from each running Thinker's `/cost-status`: its ledger is the one the limits are checked against.

`/status summary` is a digest of several sources gathered in parallel (hub, logs, Guardian, memory, skills).
The original system had an LLM write that digest; here it is assembled as text, so it costs no tokens and cannot
be steered by what it summarises. Every formatter is pure; each source that fails says so in its own line.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import anyio

from orchestrator.commands import cron, logs, security
from orchestrator.commands._helpers import data_of
from orchestrator.commands.registry import Command, CommandContext, command, commands, usage_error
from orchestrator.formatting import duration
from shared.contracts.thinker_api import BudgetLine, CostStatus
from shared.text import clip

SUMMARY_LOG_LINES = 5
SUMMARY_THREATS = 3
BUDGET_STATUS_SECONDS = 5.0
_LIMIT_WORDS = {
    "dailyTokens": "tokens today",
    "monthlyTokens": "tokens this month",
    "dailyUsd": "USD today",
    "monthlyUsd": "USD this month",
    "maxTokensPerRun": "tokens per run",
}


# -- pure formatting -------------------------------------------------------------------------------------------


def mcp_line(name: str, mcp: dict[str, Any]) -> str:
    if mcp.get("available"):
        restarts = f", {mcp['restarts']} restart(s)" if mcp.get("restarts") else ""
        return f"  up   {name}: {mcp.get('toolCount', 0)} tools{restarts}"
    if mcp.get("notStarted"):
        tools = mcp.get("toolCount", 0)
        return "  " + clip(f"not started {name} ({tools} tools, starts on first use): {mcp['notStarted']}", 198)
    why = mcp.get("lastError") or mcp.get("state") or "not running"
    need = " (required)" if mcp.get("required") else ""
    return "  " + clip(f"DOWN {name}{need}: {why}", 198)  # clip() collapses whitespace: indent after it


def agent_line(agent: dict[str, Any]) -> str:
    state = "disabled" if not agent.get("enabled", True) else str(agent.get("state", "?"))
    parts = [state]
    if agent.get("paused"):
        parts.append("PAUSED by cost controls")
    if agent.get("restarts"):
        parts.append(f"{agent['restarts']} restart(s)")
    if agent.get("lastError") and state in ("failed", "stopped"):
        parts.append(f"last error: {agent['lastError']}")
    return "  " + clip(f"{agent.get('agentId')}: {', '.join(parts)} ({agent.get('model')})", 198)


def not_started_text(mcps: dict[str, dict[str, Any]]) -> str:
    """`, 3 not started (not configured)` for the MCPs left for first use (pure); empty when there are none."""
    waiting = sum(1 for mcp in mcps.values() if mcp.get("notStarted"))
    return f", {waiting} not started (not configured)" if waiting else ""


def halt_text(halt: dict[str, Any]) -> str:
    if not halt.get("halted"):
        return "none"
    reason = f" ({halt['reason']})" if halt.get("reason") else ""
    return f"{', '.join(halt['targets'])} since {halt.get('since')}{reason}"


def jobs_text(jobs: dict[str, Any] | None) -> str | None:
    """`Jobs: 1 running (backfill 30/120 facts), 2 queued, 5 done, 1 failed` (pure); None when there are none."""
    if not jobs:
        return None
    counts = jobs.get("counts") or {}
    running = jobs.get("running") or []
    parts = []
    if running:
        shown = ", ".join(clip(f"{job.get('name')} {job.get('progress')}", 60) for job in running[:3])
        parts.append(f"{len(running)} running ({shown})")
    for state, word in (
        ("queued", "queued"),
        ("succeeded", "done"),
        ("failed", "failed"),
        ("interrupted", "interrupted"),
    ):
        if counts.get(state):
            parts.append(f"{counts[state]} {word}")
    return f"Jobs: {', '.join(parts)}" if parts else None


def format_status(status: dict[str, Any], agents: list[dict[str, Any]], halt: dict[str, Any]) -> str:
    """The `/status` answer (pure)."""
    mcps = status.get("mcps", {})
    up = sum(1 for mcp in mcps.values() if mcp.get("available"))
    guardian = status.get("guardian", {})
    lines = [
        f"Annabelle {status.get('version')}: {status.get('status')}, up {duration(status.get('uptimeSeconds', 0))}, "
        f"{status.get('toolCount', 0)} tools",
        f"MCPs ({up}/{len(mcps)} up{not_started_text(mcps)}):",
        *(mcp_line(name, mcp) for name, mcp in sorted(mcps.items())),
    ]
    if status.get("disabledMcps"):
        lines.append(f"  off  {', '.join(status['disabledMcps'])} (disabled by configuration)")
    lines.append("Agents:")
    lines.extend(agent_line(agent) for agent in agents)
    lines.append(f"Halted: {halt_text(halt)}")
    jobs = jobs_text(status.get("jobs"))
    if jobs:
        lines.append(jobs)
    lines.append(
        f"Guardian: {'available' if guardian.get('available') else 'UNAVAILABLE'}, fail mode "
        f"{guardian.get('failMode')}, {guardian.get('scans', 0)} scans, {guardian.get('blocked', 0)} blocked"
    )
    return "\n".join(lines)


def budget_line_text(agent_id: str, line: BudgetLine) -> str:
    """`  annabelle: 12,300 of 200,000 tokens today (6%), resets 2026-03-05 00:00` (pure)."""
    who = f"{agent_id} skill '{line.skill}'" if line.skill else agent_id
    words = _LIMIT_WORDS.get(line.limit, line.limit)
    if line.unit == "usd":
        figures = f"${line.used:,.2f} of ${line.limitValue:,.2f} {words}"
    else:
        figures = f"{round(line.used):,} of {round(line.limitValue):,} {words}"
    share = f" ({line.used / line.limitValue:.0%})" if line.limitValue else ""
    if not line.priced:
        share = " (not judged: no price known for its model)"
    resets = f", resets {line.resetsAt[:16].replace('T', ' ')}" if line.resetsAt else ""
    return "  " + clip(f"{who}: {figures}{share}{resets}", 200)


def format_budgets(statuses: dict[str, CostStatus | None], configured: list[str]) -> list[str]:
    """The `/status` lines about budgets: each running agent's spend against its limits; an agent with budgets
    whose Thinker is not running says so (pure). Nothing when no agent has a budget or a limited skill."""
    lines: list[str] = []
    for agent_id, status in statuses.items():
        if status is None:
            if agent_id in configured:
                lines.append(f"  {agent_id}: budgets set; its Thinker did not answer, so its spend is not shown")
            continue
        lines.extend(budget_line_text(agent_id, line) for line in status.budgets)
        if status.budgetNote:
            lines.append("  " + clip(f"{agent_id}: {status.budgetNote}", 200))
    lines.extend(
        f"  {agent_id}: budgets set; its Thinker is not running (spend shows once it is)"
        for agent_id in configured
        if agent_id not in statuses
    )
    return ["Budgets:", *lines] if lines else []


def format_status_line(status: dict[str, Any], agents: list[dict[str, Any]], halt: dict[str, Any]) -> str:
    """One line: MCPs up, agents, halt (what follows `/kill` and `/resume`) (pure)."""
    mcps = status.get("mcps", {})
    up = sum(1 for mcp in mcps.values() if mcp.get("available"))
    states = ", ".join(f"{a.get('agentId')} {'paused' if a.get('paused') else a.get('state')}" for a in agents)
    return (
        f"Status: {up}/{len(mcps)} MCPs up{not_started_text(mcps)}; agents: {states or 'none'}; "
        f"halted: {halt_text(halt)}."
    )


def format_help(table: list[Command], mcps: dict[str, dict[str, Any]]) -> str:
    """The `/help` answer: each command, then the tools per MCP (pure)."""
    lines = ["Commands (no LLM involved):"]
    lines.extend(f"  {cmd.synopsis} — {cmd.summary}" for cmd in table)
    if mcps:
        total = sum(int(meta.get("toolCount", 0)) for meta in mcps.values())
        lines.append(f"Tools ({total}):")
        for name, meta in sorted(mcps.items()):
            state = "" if meta.get("available") else " (not started)" if meta.get("notStarted") else " (DOWN)"
            lines.append(f"  {meta.get('label') or name}: {meta.get('toolCount', 0)}{state}")
    lines.append("Anything else is a message for the assistant.")
    return "\n".join(lines)


async def budget_statuses(ctx: CommandContext) -> dict[str, CostStatus | None]:
    """Each running agent's `/cost-status` (None when it did not answer within a few seconds)."""
    statuses: dict[str, CostStatus | None] = {}
    runtimes = getattr(ctx.agents, "agents", {})

    async def ask(agent_id: str, runtime: Any) -> None:
        statuses[agent_id] = None
        with anyio.move_on_after(BUDGET_STATUS_SECONDS):
            statuses[agent_id] = await ctx.agents.cost_status(runtime)

    async with anyio.create_task_group() as tasks:
        for agent_id, runtime in runtimes.items():
            if getattr(runtime, "state", None) == "running":
                tasks.start_soon(ask, agent_id, runtime)
    return {agent_id: statuses[agent_id] for agent_id in sorted(statuses)}


def status_line(ctx: CommandContext) -> str:
    return format_status_line(ctx.hub.status(), ctx.agents.describe(), ctx.halt.describe())


# -- the digest -----------------------------------------------------------------------------------------------

Source = Callable[[CommandContext], Awaitable[list[str]]]


async def _hub_source(ctx: CommandContext) -> list[str]:
    status = ctx.hub.status()
    down = [
        name for name, mcp in sorted(status["mcps"].items()) if not mcp.get("available") and not mcp.get("notStarted")
    ]
    agents = ctx.agents.describe()
    line = format_status_line(status, agents, ctx.halt.describe())
    return [line, f"MCPs down: {', '.join(down)}."] if down else [line]


async def _log_source(ctx: CommandContext) -> list[str]:
    entries, files = await anyio.to_thread.run_sync(logs.read_problems, ctx.settings.logs_dir, SUMMARY_LOG_LINES)
    if not entries:
        return [f"Logs: no warnings or errors ({files} file(s))."]
    return [f"Logs, last {len(entries)} warning(s)/error(s):", *(f"  {entry.line()}" for entry in entries)]


async def _guardian_source(ctx: CommandContext) -> list[str]:
    threats = await security.recent_threats(ctx, 50)
    recent = security.window_stats(threats, datetime.now(UTC))
    lines = [f"Guardian: {recent.threats} threat(s) in the last 24 h."]
    lines.extend(f"  {security.threat_line(entry)}" for entry in threats[:SUMMARY_THREATS])
    return lines


async def _memory_source(ctx: CommandContext) -> list[str]:
    stats = data_of(await ctx.hub.call("memory_get_memory_stats", {}, caller=ctx.caller), "memory statistics") or {}
    mode = (stats.get("search_capabilities") or {}).get("search_mode", "?")
    conversations = stats.get("conversation_count", stats.get("total_conversations", "?"))
    return [
        f"Memory: {stats.get('fact_count', '?')} facts, {conversations} conversations, "
        f"{stats.get('database_size_mb', '?')} MB, search {mode}."
    ]


async def _skills_source(ctx: CommandContext) -> list[str]:
    skills = await cron.list_skills(ctx)
    enabled = sum(1 for s in skills if s.get("enabled"))
    failing = [
        str(s.get("name")) for s in skills if s.get("enabled") and s.get("last_run_status") in ("error", "failed")
    ]
    line = f"Skills: {len(skills)} ({enabled} enabled)"
    return [line + (f"; last run failed: {', '.join(failing)}." if failing else ".")]


SUMMARY_SOURCES: dict[str, Source] = {
    "hub": _hub_source,
    "logs": _log_source,
    "guardian": _guardian_source,
    "memory": _memory_source,
    "skills": _skills_source,
}


async def gather_summary(ctx: CommandContext, sources: dict[str, Source] | None = None) -> list[str]:
    """Every source's lines, in the table's order; a source that fails or takes over 10 s gives one line saying so."""
    table = SUMMARY_SOURCES if sources is None else sources
    results: dict[str, list[str]] = {}

    async def run(name: str, source: Source) -> None:
        try:
            with anyio.fail_after(10):
                results[name] = await source(ctx)
        except TimeoutError:
            results[name] = [f"{name.capitalize()}: no answer within 10 s."]
        except Exception as exc:  # one unavailable source must not hide the others
            results[name] = [clip(f"{name.capitalize()}: unavailable ({exc}).", 200)]

    async with anyio.create_task_group() as tasks:
        for name, source in table.items():
            tasks.start_soon(run, name, source)
    return [line for name in table for line in results[name]]


# -- the commands ---------------------------------------------------------------------------------------------


@command("start", "Telegram's first message to a bot: a greeting and the commands")
async def start_command(ctx: CommandContext, args: str) -> str:
    # Telegram sends "/start" when someone opens the bot; answering it here costs no tokens.
    greeting = "Hello, I am Annabelle. Write to me in plain words; these commands answer at once:"
    return f"{greeting}\n\n{format_help(commands(), ctx.hub.mcps_metadata())}"


@command("help", "This list: commands and tools per MCP")
async def help_command(ctx: CommandContext, args: str) -> str:
    return format_help(commands(), ctx.hub.mcps_metadata())


@command(
    "status", "MCPs, agents, halt state, tools, Guardian; 'summary' adds logs, threats, memory, skills", "[summary]"
)
async def status_command(ctx: CommandContext, args: str) -> str:
    mode = args.strip().lower()
    if mode == "summary":
        return "\n".join(["Summary (assembled without an LLM):", *await gather_summary(ctx)])
    if mode:
        raise usage_error("status", f"'{args.strip()}' is not a /status option.")
    text = format_status(ctx.hub.status(), ctx.agents.describe(), ctx.halt.describe())
    configured = [agent.agentId for agent in ctx.agents.config.agents if agent.enabled and agent.budgets.any]
    budgets = format_budgets(await budget_statuses(ctx), configured)
    return "\n".join([text, *budgets])
