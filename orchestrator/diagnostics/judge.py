"""The judgements of the diagnostics checks: pure functions from gathered data to a `Finding` (no I/O).

Each threshold is a named constant here so docs/diagnostics.md and the tests can point at one place.
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from orchestrator.commands.logs import is_child_copy
from orchestrator.diagnostics.findings import MB, Finding
from orchestrator.halt import ALL, TARGETS
from orchestrator.skills.triggers import AUTO_DISABLE_AFTER, first_due, next_fire, parse_trigger
from shared.agents import AgentDefinition
from shared.litellm_loader import model_key_variable
from shared.text import clip

__all__ = [
    "COST_WARNING_SHARE",
    "DATA_DIR_LIMIT",
    "EMBEDDING_CACHE_LIMIT",
    "ERROR_RATE_MULTIPLIER",
    "LOW_CONFIDENCE",
    "LOW_CONFIDENCE_SCANS",
    "LOW_CONFIDENCE_SHARE",
    "MIN_ERRORS",
    "MIN_WARNINGS",
    "SESSION_COUNT_NOTE",
    "THREATS_PER_HOUR",
    "TOOL_DRIFT_LIMIT",
    "TRACE_STALE",
    "LevelCounts",
    "OfflineModel",
    "ServerProbe",
    "count_levels",
    "judge_agents_file",
    "judge_cost",
    "judge_doc_coverage",
    "judge_error_rate",
    "judge_externals",
    "judge_failed_skills",
    "judge_gmail",
    "judge_offline_model",
    "judge_ollama_embeddings",
    "judge_overdue_skills",
    "judge_scan_quality",
    "judge_servers",
    "judge_sessions",
    "judge_telegram",
    "judge_threat_rate",
    "judge_tool_drift",
    "judge_trace_freshness",
    "ollama_has_model",
    "parse_time",
]

EMBEDDING_CACHE_LIMIT = 256 * MB
"""The cache prunes itself to 200,000 vectors (~300 MB at 384-d); above this it is not pruning, or holds 768-d."""
DATA_DIR_LIMIT = 500 * MB
"""A year of heavy personal use stays well under this; more usually means an export or cache left behind."""
SESSION_COUNT_NOTE = 200
"""Session files are small; this many means chats are never cleared (a note, not a problem)."""
ERROR_RATE_MULTIPLIER = 3.0
MIN_ERRORS = 3
MIN_WARNINGS = 5
THREATS_PER_HOUR = 3
TOOL_DRIFT_LIMIT = 3
TRACE_STALE = timedelta(hours=1)
"""Chats went on this long after the newest trace line: traces are not being written."""
LOW_CONFIDENCE = 0.5
LOW_CONFIDENCE_SCANS = 5
LOW_CONFIDENCE_SHARE = 0.1
"""Guardian scan quality: at least this many scans in the last 24 h, and this share of them, below LOW_CONFIDENCE."""
COST_WARNING_SHARE = 0.8
"""An agent past this share of its hourly token cap is reported before the cap pauses it."""


# Rotation keeps each file under LOG_MAX_BYTES × (LOG_BACKUP_COUNT + 1) (60 MB by default); more than this means
# a writer outside rotation, or rotation settings raised far beyond their defaults.
LOG_DIR_LIMIT = 300 * MB
MEMORY_DB_LIMIT = 50 * MB
AGENT_RESTART_LIMIT = 3


def parse_time(text: object) -> datetime | None:
    """An ISO-8601 moment (naive means UTC), or None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# -- services ---------------------------------------------------------------------------------------------------


def judge_cost(statuses: Mapping[str, Mapping[str, Any]]) -> Finding:
    """`statuses`: running agent id → its Thinker's `/cost-status` ({} when it did not answer)."""
    paused = [
        f"{agent} ({status.get('pauseReason') or 'no reason given'})"
        for agent, status in statuses.items()
        if status.get("paused")
    ]
    if paused:
        return Finding(
            "warning",
            f"paused by cost controls: {'; '.join(paused)}",
            "POST /agents/<id>/resume (or /resume thinker) once the spending is understood.",
        )
    close: list[str] = []
    for agent, status in statuses.items():
        used, cap = status.get("currentHourTokens"), status.get("hardCapTokensPerHour")
        if isinstance(used, int) and isinstance(cap, int) and cap > 0 and used >= COST_WARNING_SHARE * cap:
            close.append(f"{agent} at {used:,} of {cap:,} tokens this hour")
    if close:
        return Finding(
            "warning",
            f"close to the hourly token cap: {'; '.join(close)}",
            "See what the agent is doing (/logs); raise costControls.hardCapTokensPerHour in agents.json if it is expected.",
        )
    silent = sorted(agent for agent, status in statuses.items() if not status)
    if silent:
        return Finding("info", f"no cost status from: {', '.join(silent)}", "See agent-health and the Thinker log.")
    return Finding("ok", f"{len(statuses)} running agent(s) within their token budget")


def judge_telegram(token_set: bool, enabled: bool, allowed: str, notify_chat: str, owner: str | None) -> Finding:
    if not token_set or not enabled:
        return Finding("ok", "Telegram is not configured" if enabled else "Telegram is disabled")
    if allowed.strip() or owner:
        return Finding("ok", "Telegram has a chat to talk to")
    target = " (NOTIFY_CHAT_ID is set, but the bot ignores every chat)" if notify_chat.strip() else ""
    return Finding(
        "warning",
        f"TELEGRAM_BOT_TOKEN is set but no chat is allowed or paired: the bot answers nobody{target}",
        "Send '/pair <code>' to the bot from your private chat (the code is in the telegram log), "
        "or set TELEGRAM_ALLOWED_CHAT_IDS.",
    )


def judge_gmail(enabled: bool, credentials: Path, token: Path) -> Finding:
    if not enabled:
        return Finding("ok", "Gmail is disabled")
    if not credentials.is_file():
        return Finding(
            "info",
            f"Gmail and Calendar tools cannot work: no OAuth client file at {credentials}",
            "Download the Desktop OAuth client from Google Cloud to that path and run `annabelle setup gmail`, "
            "or set GMAIL_MCP_ENABLED=false.",
        )
    if not token.is_file():
        return Finding("info", f"Gmail is not authorised yet (no {token})", "Run `annabelle setup gmail`.")
    return Finding("ok", "Gmail credentials and token are present")


# -- models and embeddings --------------------------------------------------------------------------------------


def _untagged_latest(name: str) -> str:
    return name.strip().removesuffix(":latest")


def ollama_has_model(wanted: str, available: Iterable[str]) -> bool:
    """Ollama's names: `nomic-embed-text` is `nomic-embed-text:latest`."""
    return _untagged_latest(wanted) in {_untagged_latest(name) for name in available}


@dataclass(frozen=True)
class ServerProbe:
    """What one model server answered for the agents that use it."""

    who: str
    """Who uses it, e.g. "agent annabelle" or "embeddings"."""
    model: str
    url: str
    error: str | None = None
    """Why the server could not be reached (None: it answered)."""
    models: tuple[str, ...] | None = None
    """Ollama's pulled models (None for an OpenAI-compatible server, whose list is not checked)."""


def judge_servers(probes: Sequence[ServerProbe]) -> Finding:
    """Unreachable LLM servers are critical (the agent cannot answer); a model not pulled on Ollama too."""
    if not probes:
        return Finding("ok", "no local model servers to check (cloud providers are not contacted)")
    down = [p for p in probes if p.error is not None]
    missing = [
        p for p in probes if p.error is None and p.models is not None and not ollama_has_model(p.model, p.models)
    ]
    if down:
        detail = "; ".join(f"{p.who} ({p.model}): {p.url} unreachable ({p.error})" for p in down)
        return Finding(
            "critical",
            detail,
            "Start the server (e.g. `ollama serve`, LM Studio's server) or fix OLLAMA_HOST / apiBase in agents.json.",
        )
    if missing:
        detail = "; ".join(f"{p.who} uses {p.model}, not pulled on {p.url}" for p in missing)
        pulls = " && ".join(f"ollama pull {p.model}" for p in missing)
        return Finding("critical", detail, f"Run `{pulls}`.")
    return Finding("ok", f"{len(probes)} model server(s) answer")


def judge_ollama_embeddings(probe: ServerProbe) -> Finding:
    if probe.error is not None:
        return Finding(
            "warning",
            f"EMBEDDING_PROVIDER=ollama but {probe.url} is unreachable ({probe.error}): memory search falls back to text",
            "Start Ollama (`ollama serve`), fix OLLAMA_HOST, or set EMBEDDING_PROVIDER=multilingual.",
        )
    if probe.models is not None and not ollama_has_model(probe.model, probe.models):
        return Finding(
            "warning",
            f"the embedding model {probe.model} is not pulled on {probe.url}",
            f"Run `ollama pull {probe.model}`.",
        )
    return Finding("ok", f"Ollama embeddings ({probe.model}) reachable at {probe.url}")


@dataclass(frozen=True)
class OfflineModel:
    """What the diagnostics found of an offline embedding model's files."""

    model: str
    folder: Path | None
    missing: Sequence[str]
    problem: str | None
    """Why the files cannot be found at all (the package is not installed), with the fix."""
    fix: str


def judge_offline_model(found: OfflineModel) -> Finding:
    fix = found.fix[0].upper() + found.fix[1:] + "."
    if found.problem is not None:
        return Finding("warning", found.problem, fix)
    if found.missing:
        return Finding(
            "warning",
            f"the embedding model {found.model} is incomplete: {', '.join(found.missing)} missing in {found.folder}",
            fix,
        )
    return Finding("ok", f"embedding model files present ({found.model})")


# -- configuration files ----------------------------------------------------------------------------------------


def judge_agents_file(path: Path, exists: bool, problem: str | None, notes: Sequence[str] = ()) -> Finding:
    """`notes`: keys of the original system's agents.json that were mapped or ignored (a note, not a problem)."""
    if problem is not None:
        return Finding(
            "critical",
            f"agents.json is invalid, the hub will not start: {problem}",
            f"Fix {path} (each problem names the agent and field).",
        )
    if not exists:
        return Finding("ok", f"no {path.name}: the default agent runs")
    if notes:
        return Finding(
            "info",
            clip(f"{path.name} uses keys of the original system, read as: {'; '.join(notes)}", 400),
            f"Write the litellm model string (provider/model) in {path} and drop llmProvider/notifyChannel.",
        )
    return Finding("ok", f"{path.name} is valid")


def judge_externals(path: Path, problems: Sequence[str]) -> Finding:
    if not problems:
        return Finding("ok", f"{path.name} is valid")
    return Finding(
        "warning",
        f"{len(problems)} external MCP problem(s): " + " | ".join(problems),
        f"Fix the named entries in {path}; the hub applies the file when it changes.",
    )


# -- logs -------------------------------------------------------------------------------------------------------


@dataclass
class LevelCounts:
    """ERROR and WARNING lines in the last hour and in the 24 hours before it."""

    errors_last_hour: int = 0
    warnings_last_hour: int = 0
    errors_before: int = 0
    warnings_before: int = 0
    files: set[str] = field(default_factory=set)
    """Services whose log had errors in the last hour."""


def count_levels(lines: Iterable[str], now: datetime, counts: LevelCounts | None = None) -> LevelCounts:
    """Count the ERROR/WARNING lines of JSON log lines (other lines, and lines without a time, are skipped)."""
    counts = counts if counts is not None else LevelCounts()
    hour_ago, day_before = now - timedelta(hours=1), now - timedelta(hours=25)
    for line in lines:
        if '"ERROR"' not in line and '"WARNING"' not in line and '"CRITICAL"' not in line:
            continue  # the cheap test first: most lines are INFO
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or is_child_copy(entry):
            continue  # counted once, in the child's own file
        level = entry.get("level")
        moment = parse_time(entry.get("ts"))
        if moment is None or moment < day_before or moment > now + timedelta(minutes=5):
            continue
        recent = moment >= hour_ago
        if level in ("ERROR", "CRITICAL"):
            if recent:
                counts.errors_last_hour += 1
                counts.files.add(str(entry.get("service") or "?"))
            else:
                counts.errors_before += 1
        elif level == "WARNING":
            if recent:
                counts.warnings_last_hour += 1
            else:
                counts.warnings_before += 1
    return counts


def judge_error_rate(counts: LevelCounts) -> Finding:
    """A spike: at least 3 errors (or 5 warnings) in the last hour and 3× the previous 24 hours' hourly average."""
    error_baseline = counts.errors_before / 24
    warning_baseline = counts.warnings_before / 24
    errors = counts.errors_last_hour
    warnings = counts.warnings_last_hour
    if errors >= MIN_ERRORS and errors >= ERROR_RATE_MULTIPLIER * error_baseline:
        where = ", ".join(sorted(counts.files))
        return Finding(
            "warning",
            f"{errors} errors in the last hour (usual {error_baseline:.1f}/h), in: {where}",
            "Send /logs to read them.",
        )
    if warnings >= MIN_WARNINGS and warnings >= ERROR_RATE_MULTIPLIER * warning_baseline:
        return Finding(
            "warning",
            f"{warnings} warnings in the last hour (usual {warning_baseline:.1f}/h)",
            "Send /logs to read them.",
        )
    return Finding("ok", f"{errors} error(s), {warnings} warning(s) in the last hour (usual {error_baseline:.1f}/h)")


# -- data -------------------------------------------------------------------------------------------------------


def judge_sessions(count: int, folder: Path) -> Finding:
    if count >= SESSION_COUNT_NOTE:
        return Finding(
            "info",
            f"{count} chat sessions kept in {folder}",
            "Old sessions can go: /clear in a chat, or delete files in that folder you no longer need.",
        )
    return Finding("ok", f"{count} chat session(s)")


# -- skills -----------------------------------------------------------------------------------------------------


def _skill_name(skill: Mapping[str, Any]) -> str:
    return f"#{skill.get('id')} {skill.get('name') or '?'}"


def judge_failed_skills(skills: Sequence[Mapping[str, Any]]) -> Finding:
    disabled = [
        s for s in skills if not s.get("enabled") and int(s.get("consecutive_failures") or 0) >= AUTO_DISABLE_AFTER
    ]
    failing = [s for s in skills if s.get("enabled") and int(s.get("consecutive_failures") or 0) > 0]
    if disabled:
        names = ", ".join(_skill_name(s) for s in disabled)
        last = str(disabled[0].get("last_error") or "")
        return Finding(
            "warning",
            f"skill(s) disabled after {AUTO_DISABLE_AFTER} failures in a row: {names}" + (f" — {last}" if last else ""),
            "Fix the cause (/cron shows the last error), then enable the skill again (memory_update_skill enabled=true).",
        )
    if failing:
        names = ", ".join(f"{_skill_name(s)} ({s.get('consecutive_failures')}×)" for s in failing)
        return Finding("warning", f"skill(s) failing: {names}", "Send /cron for their last errors.")
    return Finding("ok", f"{len(skills)} skill(s), none failing")


def judge_overdue_skills(skills: Sequence[Mapping[str, Any]], now: datetime, default_tz: str) -> Finding:
    """A repeating skill whose owed run is more than one period late: the scheduler is not running it."""
    late: list[str] = []
    for skill in skills:
        if not skill.get("enabled"):
            continue
        try:
            trigger = parse_trigger(skill.get("trigger_config"), default_tz=default_tz)
        except Exception:  # a broken trigger is the normaliser's business; here it is just not overdue
            continue
        created = parse_time(skill.get("created_at")) or now
        if trigger is None:
            continue
        due = first_due(trigger, created_at=created, last_run_at=parse_time(skill.get("last_run_at")))
        following = next_fire(trigger, due) if due is not None else None
        if due is None or following is None:
            continue
        period = max(following - due, timedelta(minutes=10))
        if now - due > period:
            late.append(f"{_skill_name(skill)} (due {due:%Y-%m-%d %H:%M} UTC)")
    if late:
        return Finding(
            "warning",
            f"skill(s) overdue: {', '.join(late)}",
            "Check the scheduler is not halted (/status; /resume scheduler) and read /logs.",
        )
    return Finding("ok", "no skill is overdue")


# -- background jobs --------------------------------------------------------------------------------------------

FAILED_JOBS_WINDOW = timedelta(hours=6)
"""Failed and interrupted jobs are reported for this long after they ended (the original's failed-tasks window)."""
JOB_QUEUE_WARN_FRACTION = 0.8
"""Warn when this share of the active-job limit is taken: past the limit, queue_task refuses new jobs."""
STUCK_QUEUE_AFTER = timedelta(minutes=10)
"""A job still queued this long after it was queued while no job runs: nothing is taking jobs off the queue."""


def _job_name(record: Mapping[str, Any]) -> str:
    return f"{clip(str(record.get('name') or 'unnamed'), 60)} ({record.get('taskId')})"


def judge_failed_jobs(records: Sequence[Mapping[str, Any]], now: datetime) -> Finding:
    """Background jobs that failed or were interrupted in the last `FAILED_JOBS_WINDOW`."""
    recent = [
        record
        for record in records
        if record.get("status") in ("failed", "interrupted")
        and (ended := parse_time(record.get("finishedAt"))) is not None
        and now - ended <= FAILED_JOBS_WINDOW
    ]
    hours = int(FAILED_JOBS_WINDOW.total_seconds() // 3600)
    if not recent:
        return Finding("ok", f"no background job failed in the last {hours} h")
    recent.sort(key=lambda record: str(record.get("finishedAt")), reverse=True)
    names = ", ".join(_job_name(record) for record in recent[:5]) + (" …" if len(recent) > 5 else "")
    last = clip(str(recent[0].get("error") or ""), 200)
    return Finding(
        "warning",
        f"{len(recent)} background job(s) failed or were interrupted in the last {hours} h: {names}"
        + (f" — {last}" if last else ""),
        "get_job_status with the taskId shows each step's error.",
    )


def judge_job_queue(queued: Sequence[Mapping[str, Any]], running: int, limit: int, now: datetime) -> Finding:
    """How full the job queue is, and whether anything takes jobs off it."""
    active = len(queued) + running
    oldest = min((moment for r in queued if (moment := parse_time(r.get("createdAt"))) is not None), default=None)
    if oldest is not None and running == 0 and now - oldest > STUCK_QUEUE_AFTER:
        minutes = int((now - oldest).total_seconds() // 60)
        return Finding(
            "warning",
            f"{len(queued)} background job(s) queued, the oldest for {minutes} min, and none running",
            "The job runner is not taking jobs: see the hub log (jobs) and restart the hub.",
        )
    if active >= limit * JOB_QUEUE_WARN_FRACTION:
        return Finding(
            "warning",
            f"{active} of at most {limit} background jobs queued or running; queue_task refuses new ones at {limit}",
            "Wait for them to finish (/status shows progress) or find what queues so many.",
        )
    return Finding("ok", f"{len(queued)} job(s) queued, {running} running (at most {limit})")


# -- tools and security -----------------------------------------------------------------------------------------


def judge_tool_drift(snapshot: Mapping[str, Any] | None, names: Sequence[str], snapshot_path: Path) -> Finding:
    if snapshot is None:
        return Finding("ok", f"{len(names)} tools (snapshot saved for later comparison)")
    before = [str(name) for name in snapshot.get("tools") or []]
    added = sorted(set(names) - set(before))
    removed = sorted(set(before) - set(names))
    if abs(len(names) - len(before)) <= TOOL_DRIFT_LIMIT and len(added) + len(removed) <= 2 * TOOL_DRIFT_LIMIT:
        return Finding("ok", f"{len(names)} tools ({len(before)} in the snapshot)")
    shown = [f"+{name}" for name in added[:5]] + [f"-{name}" for name in removed[:5]]
    more = len(added) + len(removed) - len(shown)
    return Finding(
        "warning",
        f"{len(names)} tools now, {len(before)} at the snapshot of {snapshot.get('savedAt', '?')}: "
        + " ".join(shown)
        + (f" … {more} more" if more > 0 else ""),
        f"Check mcp-health for a missing MCP; if the change is intended, delete {snapshot_path} to take a new snapshot.",
    )


def judge_threat_rate(entries: Sequence[Mapping[str, Any]], now: datetime) -> Finding:
    since = now - timedelta(hours=1)
    recent = [
        e for e in entries if not e.get("safe", True) and (moment := parse_time(e.get("timestamp"))) and moment >= since
    ]
    if len(recent) >= THREATS_PER_HOUR:
        sources = ", ".join(sorted({str(e.get("source") or "?").split(":", 1)[0] for e in recent}))
        return Finding(
            "warning",
            f"{len(recent)} threats blocked in the last hour (from: {sources})",
            "Send /security to see them; a mail or web source being attacked can be disabled while you look.",
        )
    return Finding("ok", f"{len(recent)} threat(s) in the last hour")


# -- services, sizes, permissions, keys ----------------------------------------------------------------------


def judge_mcps(status: dict[str, Any], *, external: bool = False) -> Finding:
    """The first-party MCPs (Guardian has its own check), or with `external` the servers of external-mcps.json."""
    mine = {name: mcp for name, mcp in status.get("mcps", {}).items() if bool(mcp.get("external")) == external}
    down = {
        name: mcp
        for name, mcp in mine.items()
        if not mcp.get("available") and not mcp.get("notStarted") and mcp.get("role") != "guardian"
    }
    if not down:
        if external:
            return Finding("ok", f"every external MCP is up ({len(mine)})" if mine else "no external MCP servers")
        waiting = sorted(name for name, mcp in mine.items() if mcp.get("notStarted"))
        if waiting:
            return Finding("ok", f"every MCP is up but {', '.join(waiting)}: not started (not configured)")
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


# -- traces, scan quality, documentation ------------------------------------------------------------------------


def judge_trace_freshness(
    enabled: bool, last_trace: datetime | None, last_activity: datetime | None, traces: Path
) -> Finding:
    """`last_activity`: the newest chat session write (each turn writes one); `last_trace`: the trace file's."""
    if not enabled:
        return Finding("ok", "traces are off (TRACES_ENABLED=false)")
    if last_activity is None:
        return Finding("ok", "no chat turns yet to trace")
    if last_trace is None:
        return Finding(
            "warning",
            f"chats ran (the last at {last_activity:%Y-%m-%d %H:%M} UTC) but {traces.name} was never written",
            f"Check that {traces.parent} is writable by the hub and the Thinkers (see /logs).",
        )
    if last_activity - last_trace > TRACE_STALE:
        return Finding(
            "warning",
            f"the newest trace is from {last_trace:%Y-%m-%d %H:%M} UTC but chats went on until "
            f"{last_activity:%Y-%m-%d %H:%M} UTC: traces are not being written",
            f"Check that {traces} is writable (disk full? permissions?) and see /logs.",
        )
    return Finding("ok", f"traces are written (newest {last_trace:%Y-%m-%d %H:%M} UTC)")


def judge_scan_quality(entries: Sequence[Mapping[str, Any]], now: datetime) -> Finding:
    """Guardian's own doubt: scans of the last 24 hours whose confidence is below `LOW_CONFIDENCE` (unreadable
    judge answers and scan errors count, at 0)."""
    since = now - timedelta(hours=24)
    recent = [e for e in entries if (moment := parse_time(e.get("timestamp"))) and moment >= since]
    unsure = [e for e in recent if float(e.get("confidence", 1.0)) < LOW_CONFIDENCE]
    if len(unsure) >= LOW_CONFIDENCE_SCANS and len(unsure) >= LOW_CONFIDENCE_SHARE * len(recent):
        sources = ", ".join(sorted({str(e.get("source") or "?").split(":", 1)[0] for e in unsure})[:5])
        return Finding(
            "warning",
            f"{len(unsure)} of {len(recent)} Guardian scans in the last 24 h had confidence below "
            f"{LOW_CONFIDENCE:g} (from: {sources})",
            "Guardian is unsure or failing: check its judge model (GUARDIAN_JUDGE_MODEL) and /logs; /security lists scans.",
        )
    return Finding("ok", f"{len(unsure)} low-confidence scan(s) of {len(recent)} in the last 24 h")


def judge_doc_coverage(tools: Sequence[tuple[str, str]], docs: str, folder: Path | None) -> Finding:
    """Documentation freshness: every first-party tool the hub serves is named in the docs, by its exposed name
    or its own (`tools`: (exposed, own) pairs). A tool the docs do not know means they are older than the code."""
    if folder is None:
        return Finding("ok", "no docs folder installed here")
    words = set(re.findall(r"[A-Za-z0-9_]+", docs))
    missing = sorted(exposed for exposed, own in tools if exposed not in words and own not in words)
    if missing:
        shown = ", ".join(missing[:8]) + (f" … {len(missing) - 8} more" if len(missing) > 8 else "")
        return Finding(
            "info",
            f"{len(missing)} tool(s) the hub serves are not in the documentation: {shown}",
            f"The docs in {folder} are older than the code: update them (or reinstall from the same release).",
        )
    return Finding("ok", f"the documentation names all {len(tools)} first-party tools")
