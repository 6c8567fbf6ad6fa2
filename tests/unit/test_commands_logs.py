"""/logs: the newest warnings and errors across the services' JSON log files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.commands.logs import LogEntry, latest_problems, parse_problem, read_problems
from orchestrator.commands.registry import run_command
from tests.fakes.command_context import fake_context


def line(level: str, msg: str, ts: str = "2026-03-01T10:00:00+00:00", **extra: object) -> str:
    return json.dumps({"ts": ts, "level": level, "service": "orchestrator", "logger": "x", "msg": msg, **extra})


@pytest.mark.parametrize("text", [line("INFO", "fine"), line("DEBUG", "noise"), "not json", "[]", ""])
def test_only_warnings_and_errors_are_problems(text: str) -> None:
    assert parse_problem(text, "svc") is None


def test_a_problem_keeps_the_useful_fields_and_drops_copies_of_child_stderr() -> None:
    entry = parse_problem(line("ERROR", "tool call failed", tool="filer_read_file", ms=3), "svc")
    assert entry is not None and entry.details == (("tool", "filer_read_file"),)
    copied = json.dumps({"ts": "t", "level": "WARNING", "logger": "child.filer", "msg": "x"})
    assert parse_problem(copied, "orchestrator") is None


def test_the_latest_problems_are_the_newest_in_time_order() -> None:
    entries = [LogEntry(ts, "ERROR", "s", ts) for ts in ("2026-01-03", "2026-01-01", "2026-01-02")]
    assert [e.ts for e in latest_problems(entries, 2)] == ["2026-01-02", "2026-01-03"]
    assert latest_problems(entries, 0) == []


def test_problems_are_read_across_files_from_their_tails(tmp_path: Path) -> None:
    (tmp_path / "orchestrator.log").write_text(
        "\n".join(line("ERROR", f"hub {i}", ts=f"2026-03-01T10:00:{i:02d}+00:00") for i in range(5)) + "\n"
    )
    (tmp_path / "guardian.log").write_text(line("WARNING", "slow scan", ts="2026-03-01T10:00:03.5+00:00") + "\n")
    entries, files = read_problems(tmp_path, 3)
    assert files == 2
    assert [e.message for e in entries] == ["hub 3", "slow scan", "hub 4"]


async def test_logs_caps_the_count_and_rejects_words(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "orchestrator.log").write_text(
        "\n".join(line("ERROR", f"e{i}", ts=f"2026-03-01T10:{i:02d}:00+00:00") for i in range(60))
    )
    ctx = fake_context(tmp_path)
    answer = await run_command("/logs 100", ctx)
    assert answer is not None and answer.text.startswith("Last 50 warning(s)/error(s) across 1 log file(s)")
    default = await run_command("/logs", ctx)
    assert default is not None and len(default.text.splitlines()) == 16 and default.text.endswith("e59")
    wrong = await run_command("/logs many", ctx)
    assert wrong is not None and wrong.text.startswith("'many' is not a positive number. Usage: /logs")


async def test_logs_without_any_log_file_says_so(tmp_path: Path) -> None:
    answer = await run_command("/logs", fake_context(tmp_path))
    assert answer is not None and answer.text == f"No log files in {tmp_path / 'logs'} yet."
