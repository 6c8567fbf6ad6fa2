"""/security and /cron: Guardian's audit log and the skills list, read through their tools."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from orchestrator.commands.cron import format_skills, trigger_text
from orchestrator.commands.registry import run_command
from orchestrator.commands.security import STATS_SCANS, window_stats
from shared.envelope import ErrorCode, fail
from tests.fakes.command_context import FakeGuardian, fake_context

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def scan(
    hours_ago: float, *, safe: bool = True, kind: str = "prompt_injection", source: str = "filer_read_file:output"
) -> dict[str, Any]:
    moment = NOW.timestamp() - hours_ago * 3600
    return {
        "scan_id": f"s{hours_ago}",
        "timestamp": datetime.fromtimestamp(moment, UTC).isoformat().replace("+00:00", "Z"),
        "source": source,
        "safe": safe,
        "confidence": 0.8,
        "threats": [] if safe else [{"path": "data", "type": kind}],
        "scanner": "rules",
    }


def test_the_window_counts_scans_and_threats_of_the_last_24_hours() -> None:
    entries = [
        scan(1),
        scan(2, safe=False),
        scan(3, safe=False, kind="jailbreak", source="gmail_get_email:output"),
        scan(30, safe=False),
    ]
    stats = window_stats(entries, NOW)
    assert (stats.scans, stats.threats) == (3, 2)
    assert dict(stats.by_type) == {"prompt_injection": 1, "jailbreak": 1}
    assert dict(stats.by_source) == {"filer_read_file": 1, "gmail_get_email": 1}
    assert not stats.capped
    assert window_stats([scan(0.1)] * STATS_SCANS, NOW).capped


async def test_security_shows_config_figures_and_the_last_threats(tmp_path: Path) -> None:
    threats = [scan(1, safe=False), scan(2, safe=False, kind="jailbreak")]

    def scan_log(arguments: dict[str, Any]) -> dict[str, Any]:
        entries = threats if arguments.get("threats_only") else [scan(0.5), *threats]
        return {"entries": entries[: arguments["limit"]], "count": len(entries)}

    ctx = fake_context(tmp_path, guardian={"get_scan_log": scan_log})
    answer = await run_command("/security 1", ctx)
    assert answer is not None
    text = answer.text
    assert "Guardian: available, fail mode closed (block when it cannot scan)" in text
    assert "Since the hub started: 12 scans, 2 blocked" in text
    assert "Last 1 threat(s), newest first:" in text and "jailbreak" not in text.split("newest first:")[1]
    guardian = ctx.hub.gate.guardian  # type: ignore[attr-defined]
    assert isinstance(guardian, FakeGuardian)
    assert guardian.calls == [("get_scan_log", {"limit": 1000}), ("get_scan_log", {"limit": 1, "threats_only": True})]


async def test_security_without_guardian_still_shows_the_gate(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path, guardian={"get_scan_log": fail(ErrorCode.TOOL_ERROR, "audit log missing")})
    answer = await run_command("/security", ctx)
    assert answer is not None
    assert "Audit log unavailable: audit log missing" in answer.text and "fail mode closed" in answer.text


def test_triggers_are_shown_compactly() -> None:
    assert trigger_text({"trigger_type": "cron", "trigger_config": {"schedule": "0 8 * * *"}}) == "cron 0 8 * * *"
    assert trigger_text({"trigger_type": "cron", "trigger_config": {"interval_minutes": 30}}) == "cron 30 min"
    assert trigger_text({"trigger_type": "manual", "trigger_config": None}) == "manual"


def test_the_skill_list_puts_enabled_skills_first() -> None:
    text = format_skills(
        [
            {"id": 2, "name": "zeta", "enabled": False, "trigger_type": "manual"},
            {
                "id": 1,
                "name": "brief",
                "agent_id": "annabelle",
                "enabled": True,
                "trigger_type": "cron",
                "trigger_config": {"schedule": "0 8 * * *"},
                "last_run_status": "success",
                "last_run_at": "2026-03-01T08:00:05Z",
                "consecutive_failures": 0,
            },
        ]
    )
    assert text.splitlines() == [
        "Skills: 2 (1 enabled)",
        "[on ] #1 brief @annabelle — cron 0 8 * * * — last success 2026-03-01 08:00",
        "[off] #2 zeta — manual — never run",
    ]
    assert format_skills([]).startswith("No skills yet.")


async def test_cron_lists_every_agents_skills_through_memory(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path, tools={"memory_list_skills": {"skills": [{"id": 1, "name": "a", "enabled": True}]}})
    answer = await run_command("/cron", ctx)
    assert answer is not None and answer.text.startswith("Skills: 1 (1 enabled)")
    assert ctx.hub.calls == [("memory_list_skills", {"agent_id": "*", "detail": "full"})]  # type: ignore[attr-defined]
    broken = await run_command("/cron", fake_context(tmp_path))
    assert broken is not None and broken.text.startswith("Could not read the skills (Memorizer): Unknown tool")
