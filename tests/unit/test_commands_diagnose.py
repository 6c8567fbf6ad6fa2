"""/diagnose: a registry of checks run in parallel, each one line with a fix, sorted by severity."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from orchestrator.commands.registry import CommandContext, run_command
from orchestrator.diagnostics import checks as _checks  # noqa: F401  (the checks register themselves)
from orchestrator.diagnostics.findings import MB, Finding
from orchestrator.diagnostics.judge import (
    judge_agents,
    judge_guardian,
    judge_halt,
    judge_mcps,
    judge_permissions,
    judge_provider_keys,
    judge_size,
    model_key_variable,
)
from orchestrator.diagnostics.registry import CHECKS, Check, check, format_report, run_checks
from shared.agents import AgentDefinition
from tests.fakes.command_context import fake_context, hub_status
from tests.fakes.ollama_server import FakeOllama


@pytest.fixture
def scratch_checks() -> Iterator[None]:
    before = dict(CHECKS)
    yield
    CHECKS.clear()
    CHECKS.update(before)


def test_the_built_in_checks_are_registered() -> None:
    assert {
        "mcp-health",
        "guardian-availability",
        "agent-health",
        "halt-state",
        "log-dir-size",
        "memory-db-size",
        "token-permissions",
        "provider-keys",
    } <= set(CHECKS)


def test_a_required_mcp_down_is_critical_and_an_optional_one_a_warning() -> None:
    status = hub_status()
    status["mcps"]["filer"] = {"available": False, "state": "failed", "lastError": "boom", "required": False}
    assert judge_mcps(status).severity == "warning" and "filer: boom" in judge_mcps(status).summary
    status["mcps"]["memory"] = {"available": False, "state": "restarting", "required": True}
    assert judge_mcps(status).severity == "critical"
    assert judge_mcps(hub_status()) == Finding("ok", "every MCP is up")


def test_an_mcp_left_for_first_use_is_not_down() -> None:
    status = hub_status()
    status["mcps"]["gmail"] = {"available": False, "state": "not started", "notStarted": "not configured: set X"}
    assert judge_mcps(status) == Finding("ok", "every MCP is up but gmail: not started (not configured)")


def test_guardian_down_is_critical_in_either_fail_mode() -> None:
    closed = judge_guardian({"guardian": {"available": False, "failMode": "closed"}})
    opened = judge_guardian({"guardian": {"available": False, "failMode": "open"}})
    assert closed.severity == opened.severity == "critical"
    assert "blocked" in closed.summary and "unscanned" in opened.summary
    assert judge_guardian({"guardian": {"available": True}}).severity == "ok"


def test_agents_failed_restarting_or_paused() -> None:
    assert judge_agents([{"agentId": "a", "state": "failed", "lastError": "no key"}]).severity == "critical"
    assert judge_agents([{"agentId": "a", "state": "running", "restarts": 4}]).severity == "warning"
    assert judge_agents([{"agentId": "a", "state": "running", "paused": True}]).severity == "warning"
    assert judge_agents([{"agentId": "a", "state": "stopped"}]).severity == "ok"


def test_a_halt_is_a_warning_naming_the_resume_command() -> None:
    every = judge_halt({"halted": True, "targets": ["thinker", "channel", "scheduler"], "reason": "r", "since": "t"})
    assert every.severity == "warning" and every.fix == "Send /resume all."
    assert judge_halt({"halted": True, "targets": ["thinker"], "since": "t"}).fix == "Send /resume thinker."
    assert judge_halt({"halted": False}).severity == "ok"


def test_sizes_over_the_limit_warn() -> None:
    assert judge_size("logs", 60 * MB, 50 * MB, "prune").severity == "warning"
    assert judge_size("logs", 10, 50 * MB, "prune").severity == "ok"
    assert judge_size("logs", None, 50 * MB, "prune").summary == "logs does not exist yet"


def test_secret_files_readable_by_others_are_critical() -> None:
    finding = judge_permissions({Path("/h/annabelle.token"): 0o100644, Path("/h/gmail/token.json"): 0o100600})
    assert finding.severity == "critical" and finding.fix == "chmod 600 /h/annabelle.token"
    assert judge_permissions({Path("/h/annabelle.token"): 0o100600}).severity == "ok"


@pytest.mark.parametrize(
    ("model", "api_base", "variable"),
    [
        ("groq/llama-3.3-70b-versatile", None, "GROQ_API_KEY"),
        ("openai/gpt-4o-mini", None, "OPENAI_API_KEY"),
        ("openai/local-model", "http://127.0.0.1:1234/v1", None),
        ("ollama_chat/qwen2.5:7b", None, None),
        ("anthropic/claude-3-5-haiku", None, "ANTHROPIC_API_KEY"),
        ("gpt-4o", None, None),
    ],
)
def test_the_key_a_model_needs(model: str, api_base: str | None, variable: str | None) -> None:
    assert model_key_variable(model, api_base) == variable


def test_a_model_without_its_provider_key_is_critical() -> None:
    agents = [AgentDefinition(agentId="fast", model="groq/llama-3.3-70b-versatile"), AgentDefinition(agentId="local")]
    finding = judge_provider_keys(agents, {})
    assert (
        finding.severity == "critical" and "fast uses groq/llama-3.3-70b-versatile but GROQ_API_KEY" in finding.summary
    )
    assert judge_provider_keys(agents, {"GROQ_API_KEY": "k"}).severity == "ok"
    assert judge_provider_keys(agents, {"THINKER_API_KEY": "k"}).severity == "ok"


@pytest.mark.usefixtures("scratch_checks")
async def test_a_new_check_is_one_decorator_and_broken_or_slow_checks_are_findings(tmp_path: Path) -> None:
    CHECKS.clear()

    @check("always-info", "Test")
    async def info(ctx: CommandContext) -> Finding:
        return Finding("info", "just so you know")

    @check("broken", "Test")
    async def broken(ctx: CommandContext) -> Finding:
        raise RuntimeError("no such file")

    @check("slow", "Test")
    async def slow(ctx: CommandContext) -> Finding:
        await anyio.sleep(5)
        return Finding("ok", "never")

    @check("fine", "Test")
    async def fine(ctx: CommandContext) -> Finding:
        return Finding("ok", "fine")

    results = await run_checks(fake_context(tmp_path), seconds_each=0.2)
    assert [(c.name, f.severity) for c, f in results] == [
        ("broken", "warning"),
        ("slow", "warning"),
        ("always-info", "info"),
        ("fine", "ok"),
    ]
    assert results[0][1].summary == "the check failed: no such file"
    report = format_report(results)
    assert report.splitlines()[0] == "Diagnose: 4 checks — 0 critical, 2 warning(s), 1 note(s)."
    assert "[!] slow: the check took longer than 0.2 s" in report and report.endswith("[ok] fine")


async def test_diagnose_over_a_healthy_fake_hub_flags_the_open_token_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GMAIL_MCP_ENABLED", "false")
    token = tmp_path / "annabelle.token"
    token.write_text("t")
    os.chmod(token, 0o644)
    # The default agent's Ollama model: a fake Ollama that serves it keeps llm-reachable quiet.
    with FakeOllama({"qwen2.5:7b": 8}) as ollama:
        monkeypatch.setenv("OLLAMA_HOST", ollama.url)
        answer = await run_command("/diagnose", fake_context(tmp_path))
    assert answer is not None
    lines = answer.text.splitlines()
    assert lines[0].startswith(f"Diagnose: {len(CHECKS)} checks — 1 critical")
    assert lines[1].startswith("[!!] token-permissions: readable by other users")
    assert lines[-1].startswith("[ok] ") and "mcp-health" in lines[-1]


def test_report_lines_carry_their_fix() -> None:
    item = Check("x", "T", run=lambda ctx: None)  # type: ignore[arg-type, return-value]
    report = format_report([(item, Finding("critical", "bad", "do this"))])
    assert report.splitlines()[1:] == ["[!!] x: bad", "     fix: do this"]
