"""`/diagnose`: a registry of health checks run in parallel, each answering one line and a one-line fix.

Adding a check is one decorated function (another part of the hub can do it from its own module):

    @check("queue-depth", "Cron")
    async def queue_depth(ctx: CommandContext) -> Finding:
        return Finding("ok", "queue empty") if ... else Finding("warning", "1,200 jobs queued", fix="…")

Each check's judgement is a pure function of data it is handed (`judge_*`); the decorated function only
gathers that data. A check registered with `needs_hub=False` reads only files, the environment and loopback
services, so `annabelle doctor` can run it while the hub is down. More checks live in `orchestrator.diagnostics`
and register themselves when this module is imported. A check that raises or takes longer than `CHECK_TIMEOUT_SECONDS` reports that as a warning,
so one broken check never hides the others. Results are sorted critical → warning → info → ok.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from orchestrator.commands._helpers import clip
from orchestrator.commands.registry import CommandContext, command
from orchestrator.diagnostics.findings import MARKS, MB, SEVERITY_ORDER, Finding, Severity
from orchestrator.halt import ALL, TARGETS
from shared.agents import AgentDefinition

__all__ = ["CHECKS", "MARKS", "MB", "SEVERITY_ORDER", "Check", "Finding", "Severity", "check", "format_report"]
__all__ += ["run_checks"]

CHECK_TIMEOUT_SECONDS = 10.0
# Rotation keeps each file under LOG_MAX_BYTES × (LOG_BACKUP_COUNT + 1) (60 MB by default); more than this means
# a writer outside rotation, or rotation settings raised far beyond their defaults.
LOG_DIR_LIMIT = 300 * MB
MEMORY_DB_LIMIT = 50 * MB
AGENT_RESTART_LIMIT = 3

# litellm provider prefix → the variable that holds its key. Local providers (ollama, ollama_chat) need none;
# `openai/` with an apiBase is a local OpenAI-compatible server, which the Thinker serves with a placeholder key.
PROVIDER_KEYS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "groq": "GROQ_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
}


CheckFunction = Callable[[CommandContext], Awaitable[Finding]]


@dataclass(frozen=True)
class Check:
    name: str
    category: str
    run: CheckFunction
    needs_hub: bool = True
    """False: the check reads only files, the environment and loopback services (`annabelle doctor` without a hub)."""


CHECKS: dict[str, Check] = {}


def check(name: str, category: str, *, needs_hub: bool = True) -> Callable[[CheckFunction], CheckFunction]:
    """Register `async def fn(ctx) -> Finding` as the check `name` (shown under `category`)."""

    def register(function: CheckFunction) -> CheckFunction:
        existing = CHECKS.get(name)
        if existing is not None and existing.run is not function:
            raise ValueError(f"The diagnose check {name!r} is registered twice.")
        CHECKS[name] = Check(name, category, function, needs_hub)
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


@command("diagnose", "Run every health check and say what to fix")
async def diagnose_command(ctx: CommandContext, args: str) -> str:
    return format_report(await run_checks(ctx))


# -- judgements (pure) --------------------------------------------------------------------------------------------


def judge_mcps(status: dict[str, Any]) -> Finding:
    down = {
        name: mcp
        for name, mcp in status.get("mcps", {}).items()
        if not mcp.get("available") and mcp.get("role") != "guardian"
    }
    if not down:
        return Finding("ok", "every MCP is up")
    required = sorted(name for name, mcp in down.items() if mcp.get("required"))
    detail = "; ".join(clip(f"{name}: {mcp.get('lastError') or mcp.get('state')}", 100) for name, mcp in down.items())
    names = ", ".join(sorted(down))
    return Finding(
        "critical" if required else "warning",
        f"{len(down)} MCP(s) down: {detail}",
        f"Read the hub log (/logs) for {names}; fix the cause or disable with <NAME>_MCP_ENABLED=false and restart.",
    )


def judge_guardian(status: dict[str, Any]) -> Finding:
    guardian = status.get("guardian", {})
    if guardian.get("available"):
        return Finding("ok", "Guardian is scanning")
    if guardian.get("failMode") == "open":
        return Finding(
            "critical",
            "Guardian is unavailable and the fail mode is open: scanned tools run unscanned",
            "Fix Guardian (see /logs) or set GUARDIAN_FAIL_MODE=closed.",
        )
    return Finding(
        "critical",
        "Guardian is unavailable: every scanned tool call is blocked (fail mode closed)",
        "See /logs for why Guardian stopped; restart the hub once fixed.",
    )


def judge_agents(agents: list[dict[str, Any]]) -> Finding:
    failed = [a for a in agents if a.get("state") == "failed"]
    restarting = [a for a in agents if int(a.get("restarts") or 0) > AGENT_RESTART_LIMIT]
    paused = [a for a in agents if a.get("paused")]
    if failed:
        detail = "; ".join(clip(f"{a.get('agentId')}: {a.get('lastError')}", 120) for a in failed)
        return Finding(
            "critical",
            f"agent(s) failed to start: {detail}",
            "Check the agent's model and key in agents.json, then send a message to retry.",
        )
    if restarting:
        names = ", ".join(f"{a.get('agentId')} ({a.get('restarts')})" for a in restarting)
        return Finding(
            "warning",
            f"agent(s) restarted more than {AGENT_RESTART_LIMIT} times: {names}",
            "See the Thinker log (/logs).",
        )
    if paused:
        names = ", ".join(str(a.get("agentId")) for a in paused)
        return Finding(
            "warning", f"agent(s) paused by cost controls: {names}", "POST /agents/<id>/resume when it is safe."
        )
    return Finding("ok", "agents healthy")


def judge_halt(halt: dict[str, Any]) -> Finding:
    if not halt.get("halted"):
        return Finding("ok", "nothing halted")
    targets = list(halt.get("targets", []))
    reason = f" ({halt['reason']})" if halt.get("reason") else ""
    resume = ALL if len(targets) == len(TARGETS) else " / ".join(targets)
    return Finding(
        "warning", f"halted: {', '.join(targets)} since {halt.get('since')}{reason}", f"Send /resume {resume}."
    )


def judge_size(what: str, size: int | None, limit: int, fix: str) -> Finding:
    if size is None:
        return Finding("ok", f"{what} does not exist yet")
    shown = f"{size / MB:.1f} MB"
    if size > limit:
        return Finding("warning", f"{what} is {shown} (over {limit // MB} MB)", fix)
    return Finding("ok", f"{what} is {shown}")


def judge_permissions(modes: Mapping[Path, int]) -> Finding:
    """`modes`: each secret file that exists → its st_mode. Anything readable by group or others is critical."""
    loose = sorted(path for path, mode in modes.items() if stat.S_IMODE(mode) & 0o077)
    if not loose:
        return Finding("ok", f"{len(modes)} secret file(s) are private (0600)")
    listed = " ".join(str(path) for path in loose)
    return Finding("critical", f"readable by other users: {listed}", f"chmod 600 {listed}")


def model_key_variable(model: str, api_base: str | None) -> str | None:
    """The key variable an agent's model needs, or None (local providers, local OpenAI-compatible servers)."""
    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider == "openai" and api_base:
        return None
    return PROVIDER_KEYS.get(provider)


def judge_provider_keys(agents: list[AgentDefinition], environ: Mapping[str, str]) -> Finding:
    if environ.get("THINKER_API_KEY"):
        return Finding("ok", "THINKER_API_KEY is set for every agent")
    missing = [
        (agent.agentId, agent.model, variable)
        for agent in agents
        if agent.enabled and (variable := model_key_variable(agent.model, agent.apiBase)) and not environ.get(variable)
    ]
    if not missing:
        return Finding("ok", "every agent's model has its provider key")
    detail = "; ".join(f"{agent} uses {model} but {variable} is not set" for agent, model, variable in missing)
    variables = ", ".join(dict.fromkeys(variable for _, _, variable in missing))
    return Finding("critical", detail, f"Set {variables} in .env (or the environment) and restart the hub.")


# -- the built-in checks (gathering only) ---------------------------------------------------------------------------


def _size_of(path: Path) -> int | None:
    if path.is_file():
        return path.stat().st_size
    if not path.is_dir():
        return None
    return sum(child.stat().st_size for child in path.rglob("*") if child.is_file())


def _environment() -> dict[str, str]:
    from orchestrator.hub import effective_environment  # the process environment over .env, as settings see it

    return effective_environment()


@check("mcp-health", "Services")
async def mcp_health(ctx: CommandContext) -> Finding:
    return judge_mcps(ctx.hub.status())


@check("guardian-availability", "Services")
async def guardian_availability(ctx: CommandContext) -> Finding:
    return judge_guardian(ctx.hub.status())


@check("agent-health", "Services")
async def agent_health(ctx: CommandContext) -> Finding:
    return judge_agents(ctx.agents.describe())


@check("halt-state", "Services", needs_hub=False)
async def halt_state(ctx: CommandContext) -> Finding:
    return judge_halt(ctx.halt.describe())


@check("log-dir-size", "Logs", needs_hub=False)
async def log_dir_size(ctx: CommandContext) -> Finding:
    size = await anyio.to_thread.run_sync(_size_of, ctx.settings.logs_dir)
    fix = f"Delete old rotated logs (*.log.1 …) in {ctx.settings.logs_dir}."
    return judge_size("the log folder", size, LOG_DIR_LIMIT, fix)


def _memory_db(data_dir: Path) -> tuple[Path, int | None]:
    configured = _environment().get("MEMORY_DB_PATH")
    path = Path(configured).expanduser() if configured else data_dir / "memory.db"
    return path, _size_of(path)


@check("memory-db-size", "Data", needs_hub=False)
async def memory_db_size(ctx: CommandContext) -> Finding:
    path, size = await anyio.to_thread.run_sync(_memory_db, ctx.settings.data_dir)
    fix = "Export with memory_export_memory, then prune old conversations (memory_delete_conversation)."
    return judge_size(f"the memory database ({path.name})", size, MEMORY_DB_LIMIT, fix)


def _secret_file_modes(home: Path) -> dict[Path, int]:
    """The master token and Gmail's OAuth files, those that exist, with their modes."""
    environ = _environment()
    gmail = home / "gmail"
    candidates = [
        home / "annabelle.token",
        Path(environ.get("GMAIL_TOKEN_PATH") or gmail / "token.json").expanduser(),
        Path(environ.get("GMAIL_CREDENTIALS_PATH") or gmail / "credentials.json").expanduser(),
    ]
    return {path: os.stat(path).st_mode for path in candidates if path.is_file()}


@check("token-permissions", "Security", needs_hub=False)
async def token_permissions(ctx: CommandContext) -> Finding:
    return judge_permissions(await anyio.to_thread.run_sync(_secret_file_modes, ctx.settings.annabelle_home))


@check("provider-keys", "Models", needs_hub=False)
async def provider_keys(ctx: CommandContext) -> Finding:
    environ = await anyio.to_thread.run_sync(_environment)
    return judge_provider_keys(list(ctx.agents.config.agents), environ)


# The checks of orchestrator/diagnostics register themselves on import; imported last because they use `check`.
from orchestrator.diagnostics import checks as _more_checks  # noqa: E402, F401
