"""/help, /status and /status summary answer from the hub's state, without an LLM."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from orchestrator.commands.registry import run_command
from orchestrator.commands.status import format_status_line, gather_summary
from shared.agents import AgentDefinition
from shared.contracts.thinker_api import CostStatus
from tests.fakes.command_context import FakeAgents, FakeHub, fake_context, hub_status


async def reply(text: str, ctx: Any) -> str:
    answer = await run_command(text, ctx)
    assert answer is not None
    return answer.text


async def test_help_lists_every_command_and_the_tools_per_mcp(tmp_path: Path) -> None:
    text = await reply("/help", fake_context(tmp_path))
    for name in ("/status [summary]", "/kill <all|thinker|channel|scheduler>", "/diagnose", "/clear", "/cron"):
        assert name in text
    assert "Memory: 31" in text and "Filer: 13" in text and "Tools (44)" in text
    assert "Guardian" not in text.split("Tools")[1]  # Guardian is not a routed MCP


async def test_start_greets_and_lists_the_commands(tmp_path: Path) -> None:
    text = await reply("/start", fake_context(tmp_path))
    assert text.startswith("Hello, I am Annabelle.") and "/help" in text and "/status [summary]" in text


async def test_status_shows_mcps_agents_halt_and_guardian(tmp_path: Path) -> None:
    status = hub_status()
    status["mcps"]["filer"] = {"state": "failed", "available": False, "toolCount": 0, "lastError": "bad workspace"}
    ctx = fake_context(tmp_path, status=status)
    ctx.halt.halt("scheduler", "maintenance")
    text = await reply("/status", ctx)
    assert "Annabelle 1.2.3: ready, up 1 h 2 min, 48 tools" in text
    # Each MCP and agent line is indented under its heading, a DOWN one and a long one too.
    assert "MCPs (2/3 up)" in text and "\n  DOWN filer: bad workspace" in text and "\n  up   memory: 31 tools" in text
    assert "\nAgents:\n  annabelle: running" in text
    assert "Halted: scheduler since" in text and "(maintenance)" in text
    assert "Guardian: available, fail mode closed, 12 scans, 2 blocked" in text


async def test_status_shows_spend_against_each_budget_of_the_running_agents(tmp_path: Path) -> None:
    agents = [
        AgentDefinition(agentId="annabelle", budgets={"dailyTokens": 200_000, "monthlyUsd": 5.0}),
        AgentDefinition(agentId="work", budgets={"dailyTokens": 1_000}),
    ]
    ctx = fake_context(tmp_path, agents=agents)
    fake = cast(FakeAgents, ctx.agents)
    fake.agents = {
        "annabelle": SimpleNamespace(agent_id="annabelle", state="running"),
        "work": SimpleNamespace(agent_id="work", state="stopped"),
    }
    day = {"scope": "agent", "unit": "tokens", "window": "day", "resetsAt": "2026-03-05T00:00:00+00:00"}
    fake.cost_statuses["annabelle"] = CostStatus.model_validate(
        {
            "budgets": [
                {**day, "limit": "dailyTokens", "limitValue": 200_000, "used": 12_345},
                {"scope": "agent", "limit": "monthlyUsd", "unit": "usd", "window": "month", "limitValue": 5.0,
                 "used": 0.0, "priced": False},
                {**day, "scope": "skill", "skill": "digest", "limit": "dailyTokens", "limitValue": 10_000,
                 "used": 9_000},
            ],
            "budgetNote": "litellm knows no price for ollama_chat/qwen2.5:7b, so the USD limits cannot be judged.",
        }
    )  # fmt: skip
    text = await reply("/status", ctx)
    budgets = text.split("Budgets:\n")[1].splitlines()
    assert budgets == [
        "  annabelle: 12,345 of 200,000 tokens today (6%), resets 2026-03-05 00:00",
        "  annabelle: $0.00 of $5.00 USD this month (not judged: no price known for its model)",
        "  annabelle skill 'digest': 9,000 of 10,000 tokens today (90%), resets 2026-03-05 00:00",
        "  annabelle: litellm knows no price for ollama_chat/qwen2.5:7b, so the USD limits cannot be judged.",
        "  work: budgets set; its Thinker is not running (spend shows once it is)",
    ]


async def test_status_without_budgets_has_no_budget_section(tmp_path: Path) -> None:
    assert "Budgets:" not in await reply("/status", fake_context(tmp_path))


async def test_status_with_an_unknown_option_says_how_to_use_it(tmp_path: Path) -> None:
    text = await reply("/status everything", fake_context(tmp_path))
    assert text == "'everything' is not a /status option. Usage: /status [summary]"


def test_the_status_line_is_one_line() -> None:
    line = format_status_line(hub_status(), [{"agentId": "a", "state": "stopped"}], {"halted": False})
    assert line == "Status: 3/3 MCPs up; agents: a stopped; halted: none."


async def test_status_shows_an_mcp_left_for_first_use_as_not_started_not_down(tmp_path: Path) -> None:
    status = hub_status()
    status["mcps"]["telegram"] = {
        "available": False,
        "state": "not started",
        "toolCount": 17,
        "notStarted": "not configured: set TELEGRAM_BOT_TOKEN",
    }
    line = format_status_line(status, [], {"halted": False})
    assert line == "Status: 3/4 MCPs up, 1 not started (not configured); agents: none; halted: none."
    text = await reply("/status", fake_context(tmp_path, status=status))
    assert "MCPs (3/4 up, 1 not started (not configured))" in text
    assert "\n  not started telegram (17 tools, starts on first use): not configured: set TELEGRAM_BOT_TOKEN" in text
    assert "DOWN" not in text


def write_log(home: Path, service: str, *entries: dict[str, Any]) -> None:
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / f"{service}.log").open("a") as handle:
        for entry in entries:
            handle.write(json.dumps({"service": service, "logger": service, **entry}) + "\n")


async def test_the_summary_gathers_every_source_without_an_llm(tmp_path: Path) -> None:
    write_log(tmp_path, "orchestrator", {"ts": "2026-03-01T10:00:00+00:00", "level": "ERROR", "msg": "mcp crashed"})
    threat = {
        "timestamp": "2999-01-01T00:00:00Z",
        "safe": False,
        "source": "searcher_web_fetch:output",
        "threats": [{"path": "data", "type": "prompt_injection"}],
        "scanner": "rules",
        "confidence": 0.9,
    }
    ctx = fake_context(
        tmp_path,
        tools={
            "memory_get_memory_stats": {"fact_count": 7, "conversation_count": 3, "database_size_mb": 0.5},
            "memory_list_skills": {"skills": [{"name": "brief", "enabled": True, "last_run_status": "error"}]},
        },
        guardian={"get_scan_log": {"entries": [threat], "count": 1}},
    )
    text = await reply("/status summary", ctx)
    assert text.startswith("Summary (assembled without an LLM):")
    assert "Status: 3/3 MCPs up" in text
    assert "mcp crashed" in text
    assert "Guardian: 1 threat(s) in the last 24 h." in text and "prompt_injection" in text
    assert "Memory: 7 facts, 3 conversations, 0.5 MB" in text
    assert "Skills: 1 (1 enabled); last run failed: brief." in text


async def test_a_failing_source_is_one_line_and_the_others_still_answer(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path)  # no memory tools scripted: they answer UNKNOWN_TOOL
    ctx.hub.gate.guardian = None  # type: ignore[attr-defined]
    lines = await gather_summary(ctx)
    assert any(line.startswith("Memory: unavailable (Could not read memory statistics") for line in lines)
    assert any(line.startswith("Guardian: unavailable (Guardian is not running") for line in lines)
    assert any(line.startswith("Status:") for line in lines)
    assert isinstance(ctx.hub, FakeHub)


async def test_status_shows_background_jobs_with_the_progress_of_running_ones(tmp_path: Path) -> None:
    status = hub_status()
    status["jobs"] = {
        "counts": {"running": 1, "queued": 2, "succeeded": 5},
        "running": [{"taskId": "job_1", "name": "embedding backfill", "type": "backfill", "progress": "30/120 facts"}],
    }
    text = await reply("/status", fake_context(tmp_path, status=status))
    assert "Jobs: 1 running (embedding backfill 30/120 facts), 2 queued, 5 done" in text
