"""The diagnostics checks beyond the first eight of `orchestrator.commands.diagnose`: each gathers its data and
hands it to a pure judgement of `orchestrator.diagnostics.judge`.

`needs_hub=False` checks read only files, the environment (process over `.env`) and the model servers the user
configured, so `annabelle doctor` runs them while the hub is down.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics import judge, probes
from orchestrator.diagnostics.findings import Finding
from orchestrator.diagnostics.registry import check
from orchestrator.jobs.model import MAX_ACTIVE_JOBS
from shared.agents import AgentDefinition, AgentsConfigError, load_agents_config
from shared.embeddings.base import EmbeddingError, EmbeddingSettings
from shared.embeddings.factory import OLLAMA_DEFAULT_MODEL, cache_dir
from shared.embeddings.minilm_files import MINILM
from shared.embeddings.multilingual_files import USE_MULTILINGUAL
from shared.embeddings.package_files import ModelPackage
from shared.logs import LogFileSettings
from shared.settings import REPO_ROOT, ConfigError, load_settings, process_environment
from shared.traces import TRACES_FILENAME

if TYPE_CHECKING:
    from orchestrator.jobs.runner import JobRunner

TOOL_SNAPSHOT_FILENAME = "tool-snapshot.json"
DEFAULT_OLLAMA_HOST = "http://localhost:11434"
_FALSE = ("false", "0", "no", "off")


def _environment() -> dict[str, str]:
    return process_environment()


def _enabled(environ: dict[str, str], mcp: str) -> bool:
    return environ.get(f"{mcp.upper()}_MCP_ENABLED", "true").strip().lower() not in _FALSE


def _agents(ctx: CommandContext) -> list[AgentDefinition]:
    return [agent for agent in ctx.agents.config.agents if agent.enabled]


def _now() -> datetime:
    return datetime.now(UTC)


# -- services, logs, data, security, models (the first checks) ---------------------------------------------------------------------------


@check("mcp-health", "Services")
async def mcp_health(ctx: CommandContext) -> Finding:
    return judge.judge_mcps(ctx.hub.status())


@check("external-mcp-health", "Services", scope="external")
async def external_mcp_health(ctx: CommandContext) -> Finding:
    return judge.judge_mcps(ctx.hub.status(), external=True)


@check("guardian-availability", "Services")
async def guardian_availability(ctx: CommandContext) -> Finding:
    return judge.judge_guardian(ctx.hub.status())


@check("agent-health", "Services")
async def agent_health(ctx: CommandContext) -> Finding:
    return judge.judge_agents(ctx.agents.describe())


@check("halt-state", "Services", needs_hub=False)
async def halt_state(ctx: CommandContext) -> Finding:
    return judge.judge_halt(ctx.halt.describe())


@check("log-dir-size", "Logs", needs_hub=False)
async def log_dir_size(ctx: CommandContext) -> Finding:
    size = await anyio.to_thread.run_sync(probes.folder_size, ctx.settings.logs_dir)
    fix = f"Delete old rotated logs (*.log.1 …) in {ctx.settings.logs_dir}."
    return judge.judge_size("the log folder", size, judge.LOG_DIR_LIMIT, fix)


def _memory_db(data_dir: Path) -> tuple[Path, int | None]:
    configured = _environment().get("MEMORY_DB_PATH")
    path = Path(configured).expanduser() if configured else data_dir / "memory.db"
    return path, probes.folder_size(path)


@check("memory-db-size", "Data", needs_hub=False)
async def memory_db_size(ctx: CommandContext) -> Finding:
    path, size = await anyio.to_thread.run_sync(_memory_db, ctx.settings.data_dir)
    fix = "Export with memory_export_memory, then prune old conversations (memory_delete_conversation)."
    return judge.judge_size(f"the memory database ({path.name})", size, judge.MEMORY_DB_LIMIT, fix)


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
    return judge.judge_permissions(await anyio.to_thread.run_sync(_secret_file_modes, ctx.settings.annabelle_home))


@check("provider-keys", "Models", needs_hub=False)
async def provider_keys(ctx: CommandContext) -> Finding:
    environ = await anyio.to_thread.run_sync(_environment)
    return judge.judge_provider_keys(list(ctx.agents.config.agents), environ)


# -- services (hub) ---------------------------------------------------------------------------------------------


@check("cost-status", "Services")
async def cost_status(ctx: CommandContext) -> Finding:
    runtimes = getattr(ctx.agents, "agents", {})
    statuses: dict[str, dict[str, Any]] = {}
    for agent_id, runtime in runtimes.items():
        if runtime.state == "running":
            status = await ctx.agents.cost_status(runtime)
            statuses[agent_id] = status.model_dump() if status is not None else {}
    return judge.judge_cost(statuses)


@check("telegram-pairing", "Config")
async def telegram_pairing(ctx: CommandContext) -> Finding:
    environ = await anyio.to_thread.run_sync(_environment)
    owner = getattr(getattr(ctx.hub, "notifier", None), "owner_chat_id", None)
    return judge.judge_telegram(
        token_set=bool(environ.get("TELEGRAM_BOT_TOKEN", "").strip()),
        enabled=_enabled(environ, "telegram"),
        allowed=environ.get("TELEGRAM_ALLOWED_CHAT_IDS", ""),
        notify_chat=environ.get("NOTIFY_CHAT_ID", ""),
        owner=owner,
    )


# -- cron (hub) -------------------------------------------------------------------------------------------------


async def _skills(ctx: CommandContext) -> list[dict[str, Any]] | Finding:
    envelope = await ctx.hub.call("memory_list_skills", {"agent_id": "*", "detail": "full"}, caller=ctx.caller)
    if not envelope.get("success"):
        return Finding("info", f"cannot list the skills: {envelope.get('error')}", "See mcp-health for Memorizer.")
    return list((envelope.get("data") or {}).get("skills") or [])


@check("failed-skills", "Cron")
async def failed_skills(ctx: CommandContext) -> Finding:
    skills = await _skills(ctx)
    return skills if isinstance(skills, Finding) else judge.judge_failed_skills(skills)


@check("overdue-skills", "Cron")
async def overdue_skills(ctx: CommandContext) -> Finding:
    skills = await _skills(ctx)
    if isinstance(skills, Finding):
        return skills
    zone = ctx.settings.annabelle_timezone or "UTC"
    return judge.judge_overdue_skills(skills, _now(), zone)


def _jobs(ctx: CommandContext) -> JobRunner | Finding:
    jobs = ctx.hub.jobs
    if jobs is None:
        return Finding("info", "background jobs are not set up in this process")
    if not jobs.started:
        return Finding("warning", "background jobs are not running", "See the hub log (jobs) and restart the hub.")
    return jobs


@check("failed-jobs", "Cron")
async def failed_jobs(ctx: CommandContext) -> Finding:
    jobs = _jobs(ctx)
    if isinstance(jobs, Finding):
        return jobs
    records = await anyio.to_thread.run_sync(jobs.store.with_status, "failed", "interrupted")
    return judge.judge_failed_jobs(records, _now())


@check("job-queue-depth", "Cron")
async def job_queue_depth(ctx: CommandContext) -> Finding:
    jobs = _jobs(ctx)
    if isinstance(jobs, Finding):
        return jobs
    queued = await anyio.to_thread.run_sync(jobs.store.with_status, "queued")
    running = len(await anyio.to_thread.run_sync(jobs.store.with_status, "running"))
    return judge.judge_job_queue(queued, running, MAX_ACTIVE_JOBS, _now())


# -- tools and security (hub) -----------------------------------------------------------------------------------


@check("tool-count-drift", "Tools")
async def tool_count_drift(ctx: CommandContext) -> Finding:
    path = ctx.settings.data_dir / TOOL_SNAPSHOT_FILENAME
    names = sorted(str(tool["name"]) for tool in ctx.hub.tool_listing())
    snapshot = await anyio.to_thread.run_sync(probes.read_snapshot, path)
    # An MCP left for first use lists its shipped tools, so it counts as complete here.
    mcps = ctx.hub.status().get("mcps", {}).values()
    everything_up = all(mcp.get("available") or mcp.get("notStarted") for mcp in mcps)
    if snapshot is None and everything_up:
        # Only a complete set is a baseline: a snapshot taken with an MCP down would warn once it is back.
        data = {"savedAt": _now().isoformat(timespec="seconds"), "count": len(names), "tools": names}
        await anyio.to_thread.run_sync(probes.write_json_atomically, path, data)
    return judge.judge_tool_drift(snapshot, names, path)


@check("threat-rate", "Security")
async def threat_rate(ctx: CommandContext) -> Finding:
    envelope = await ctx.hub.call("guardian_get_scan_log", {"limit": 200, "threats_only": True}, caller=ctx.caller)
    if not envelope.get("success"):
        return Finding("info", f"cannot read Guardian's scan log: {envelope.get('error')}")
    entries = list((envelope.get("data") or {}).get("entries") or [])
    return judge.judge_threat_rate(entries, _now())


@check("guardian-scan-quality", "Security")
async def guardian_scan_quality(ctx: CommandContext) -> Finding:
    envelope = await ctx.hub.call("guardian_get_scan_log", {"limit": 1000}, caller=ctx.caller)
    if not envelope.get("success"):
        return Finding("info", f"cannot read Guardian's scan log: {envelope.get('error')}")
    entries = list((envelope.get("data") or {}).get("entries") or [])
    return judge.judge_scan_quality(entries, _now())


def _first_party_tools(ctx: CommandContext) -> list[tuple[str, str]]:
    """(exposed, own name) of the hub's own tools and every first-party MCP's."""
    status = ctx.hub.status().get("mcps", {})
    pairs = []
    for tool in ctx.hub.tool_listing():
        route = ctx.hub.router.resolve(tool["name"])
        if route is None:
            pairs.append((tool["name"], tool["name"]))
        elif not status.get(route.mcp, {}).get("external"):
            pairs.append((route.exposed, route.tool))
    return pairs


def _documentation() -> tuple[str, Path | None]:
    folder = REPO_ROOT / "docs"
    if not folder.is_dir():
        return "", None
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in sorted(folder.glob("*.md"))]
    readme = REPO_ROOT / "README.md"
    if readme.is_file():
        texts.append(readme.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(texts), folder


@check("doc-freshness", "Tools")
async def doc_freshness(ctx: CommandContext) -> Finding:
    docs, folder = await anyio.to_thread.run_sync(_documentation)
    return judge.judge_doc_coverage(_first_party_tools(ctx), docs, folder)


# -- embeddings (local) -----------------------------------------------------------------------------------------


def _embedding_settings(home: Path) -> EmbeddingSettings:
    # Imported at module level: two checks importing shared.embeddings at once in worker threads would each see
    # the other's half-initialised module.
    return load_settings(EmbeddingSettings, annabelle_home=home)


_OFFLINE_MODELS: dict[str, ModelPackage] = {"local": MINILM, "multilingual": USE_MULTILINGUAL}
"""Provider → its model package. all-MiniLM-L6-v2 is an optional package: its absence is a finding, never an
import error of the doctor."""


def _offline_model_files(provider: str) -> judge.OfflineModel:
    package = _OFFLINE_MODELS[provider]
    try:
        folder = package.folder()
    except EmbeddingError as exc:
        return judge.OfflineModel(package.model, None, [], str(exc), package.fix)
    missing = [name for name in package.files if not (folder / name).is_file()]
    return judge.OfflineModel(package.model, folder, missing, None, package.fix)


@check("embedding-provider", "Embedding", needs_hub=False)
async def embedding_provider(ctx: CommandContext) -> Finding:
    try:
        settings = await anyio.to_thread.run_sync(_embedding_settings, ctx.settings.annabelle_home)
    except ConfigError as exc:
        return Finding("critical", str(exc).replace("\n", " "), "Fix the variable in .env.")
    if settings.embedding_provider == "none":
        return Finding("ok", "EMBEDDING_PROVIDER=none: memory search by text only")
    if settings.embedding_provider == "ollama":
        model = settings.embedding_model or OLLAMA_DEFAULT_MODEL
        return judge.judge_ollama_embeddings(await probes.probe_ollama("embeddings", model, settings.ollama_host))
    return judge.judge_offline_model(await anyio.to_thread.run_sync(_offline_model_files, settings.embedding_provider))


def _cache_size(home: Path) -> int | None:
    return probes.folder_size(cache_dir(_embedding_settings(home)))


@check("embedding-cache-size", "Embedding", needs_hub=False)
async def embedding_cache_size(ctx: CommandContext) -> Finding:
    try:
        size = await anyio.to_thread.run_sync(_cache_size, ctx.settings.annabelle_home)
    except ConfigError:
        return Finding("ok", "see embedding-provider")
    fix = "Delete the cache folder (EMBEDDING_CACHE_DIR, default data/embedding-cache); vectors are recomputed."
    return judge.judge_size("the embedding cache", size, judge.EMBEDDING_CACHE_LIMIT, fix)


# -- logs and data (local) --------------------------------------------------------------------------------------


@check("error-rate", "Logs", needs_hub=False)
async def error_rate(ctx: CommandContext) -> Finding:
    counts = await anyio.to_thread.run_sync(probes.log_level_counts, ctx.settings.logs_dir)
    return judge.judge_error_rate(counts)


def _modified(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None


def _trace_times(home: Path, logs_dir: Path) -> tuple[bool, datetime | None, datetime | None]:
    enabled = load_settings(LogFileSettings).traces_enabled
    sessions = home / "sessions"
    newest = None
    if sessions.is_dir():
        times = [moment for path in sessions.rglob("*.json*") if (moment := _modified(path)) is not None]
        newest = max(times, default=None)
    return enabled, _modified(logs_dir / TRACES_FILENAME), newest


@check("trace-log-freshness", "Logs", needs_hub=False)
async def trace_log_freshness(ctx: CommandContext) -> Finding:
    logs_dir = ctx.settings.logs_dir
    enabled, last_trace, last_activity = await anyio.to_thread.run_sync(
        _trace_times, ctx.settings.annabelle_home, logs_dir
    )
    return judge.judge_trace_freshness(enabled, last_trace, last_activity, logs_dir / TRACES_FILENAME)


@check("data-dir-size", "Data", needs_hub=False)
async def data_dir_size(ctx: CommandContext) -> Finding:
    size = await anyio.to_thread.run_sync(probes.folder_size, ctx.settings.data_dir)
    fix = f"See what is large in {ctx.settings.data_dir} (du -sh *): old exports and caches can go."
    return judge.judge_size("the data folder", size, judge.DATA_DIR_LIMIT, fix)


@check("session-count", "Data", needs_hub=False)
async def session_count(ctx: CommandContext) -> Finding:
    folder = ctx.settings.annabelle_home / "sessions"
    return judge.judge_sessions(await anyio.to_thread.run_sync(probes.session_count, folder), folder)


# -- configuration (local) --------------------------------------------------------------------------------------


@check("llm-reachable", "Models", needs_hub=False)
async def llm_reachable(ctx: CommandContext) -> Finding:
    environ = await anyio.to_thread.run_sync(_environment)
    ollama_host = environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
    # (who, model, apiBase): the agents the hub spawns (a `url` agent runs elsewhere, with its own network), and
    # the utility model when it is set.
    users = [(f"agent {a.agentId}", a.model, a.apiBase) for a in _agents(ctx) if a.url is None]
    if environ.get("UTILITY_MODEL"):
        users.append(("the utility model", environ["UTILITY_MODEL"], environ.get("UTILITY_API_BASE") or None))
    waits = []
    for who, model, api_base in users:
        if model.startswith(("ollama/", "ollama_chat/")):
            waits.append(probes.probe_ollama(who, probes.ollama_model_name(model), api_base or ollama_host))
        elif api_base:
            key = environ.get("THINKER_API_KEY") or environ.get("OPENAI_API_KEY")
            waits.append(probes.probe_openai_compatible(who, model, api_base, key))
    results: list[judge.ServerProbe] = []

    async def run(wait: Any) -> None:
        results.append(await wait)

    async with anyio.create_task_group() as tasks:
        for wait in waits:
            tasks.start_soon(run, wait)
    return judge.judge_servers(sorted(results, key=lambda probe: probe.who))


def _agents_file(path: Path) -> tuple[bool, str | None, list[str]]:
    try:
        config = load_agents_config(path)
    except AgentsConfigError as exc:
        return path.exists(), str(exc).removeprefix(f"{path}:").strip().replace("\n  ", "; "), []
    return path.exists(), None, config.compatibility_notes


@check("agents-config", "Config", needs_hub=False)
async def agents_config(ctx: CommandContext) -> Finding:
    path = ctx.settings.agents_config
    exists, problem, notes = await anyio.to_thread.run_sync(_agents_file, path)
    return judge.judge_agents_file(path, exists, problem, notes)


def _external_problems(path: Path, mcps_root: Path) -> list[str]:
    from orchestrator.discovery import discover
    from orchestrator.external_config import parse_config
    from orchestrator.externals import read_config

    try:
        data: bytes | None = path.read_bytes()
    except FileNotFoundError:
        data = None
    except OSError as exc:
        return [f"{path} cannot be read ({exc.strerror or exc})."]
    raw, problem = read_config(data, str(path))
    if raw is None:
        return [problem or f"{path} cannot be used."]
    environ = _environment()
    found = discover(mcps_root, environ)
    reserved = {spec.name for spec in found.specs} | set(found.disabled)
    return parse_config(raw, environ, reserved=reserved, base=path.parent, source=path.name).problems


@check("external-mcps-config", "Config", needs_hub=False, scope="external")
async def external_mcps_config(ctx: CommandContext) -> Finding:
    path = ctx.settings.external_mcps_config
    problems = await anyio.to_thread.run_sync(_external_problems, path, ctx.settings.annabelle_mcps_root)
    return judge.judge_externals(path, problems)


def _gmail(home: Path) -> Finding:
    environ = _environment()
    credentials = Path(environ.get("GMAIL_CREDENTIALS_PATH") or home / "gmail" / "credentials.json").expanduser()
    token = Path(environ.get("GMAIL_TOKEN_PATH") or home / "gmail" / "token.json").expanduser()
    return judge.judge_gmail(_enabled(environ, "gmail"), credentials, token)


@check("gmail-credentials", "Config", needs_hub=False)
async def gmail_credentials(ctx: CommandContext) -> Finding:
    return await anyio.to_thread.run_sync(_gmail, ctx.settings.annabelle_home)
