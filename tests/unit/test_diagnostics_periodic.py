"""The periodic diagnose run notifies only when the set of warning/critical problems changes, across restarts;
`annabelle doctor`'s report format and `GET /diagnose`'s JSON."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics.findings import Finding, finding_from_json
from orchestrator.diagnostics.periodic import LAST_FILENAME, PeriodicDiagnose, change_message, diagnose_json
from orchestrator.diagnostics.registry import Check
from orchestrator.doctor import format_doctor
from tests.fakes.command_context import fake_context

MOMENT = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def item(name: str) -> Check:
    async def never(ctx: CommandContext) -> Finding:
        raise AssertionError("scripted")

    return Check(name, "Test", never)


class Script:
    """Each run answers the next scripted list of (check name, finding)."""

    def __init__(self, *runs: list[tuple[str, Finding]]) -> None:
        self.runs = list(runs)

    async def __call__(self, ctx: CommandContext) -> list[tuple[Check, Finding]]:
        return [(item(name), finding) for name, finding in self.runs.pop(0)]


class Inbox:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def __call__(self, text: str) -> bool:
        self.sent.append(text)
        return True


KEYS = ("provider-keys", Finding("critical", "annabelle uses groq/x but GROQ_API_KEY is not set", "Set GROQ_API_KEY."))
ERRORS_4 = ("error-rate", Finding("warning", "4 errors in the last hour", "Send /logs."))
ERRORS_9 = ("error-rate", Finding("warning", "9 errors in the last hour", "Send /logs."))
NOTE = ("gmail-credentials", Finding("info", "no OAuth client file"))
FINE = ("mcp-health", Finding("ok", "every MCP is up"))


def periodic(tmp_path: Path, script: Script, inbox: Inbox) -> PeriodicDiagnose:
    return PeriodicDiagnose(
        fake_context(tmp_path),
        inbox,
        tmp_path / "data" / LAST_FILENAME,
        interval_seconds=60,
        clock=lambda: MOMENT,
        run=script,
    )


async def test_only_a_changed_set_of_problems_is_notified(tmp_path: Path) -> None:
    inbox = Inbox()
    script = Script(
        [FINE, NOTE],  # healthy, a note only: nothing to say
        [KEYS, ERRORS_4, FINE],  # two new problems
        [KEYS, ERRORS_9, NOTE],  # same problems, other figures: quiet
        [ERRORS_9, FINE],  # the key was set: resolved
        [ERRORS_9],
        [FINE],  # all clear
    )
    runner = periodic(tmp_path, script, inbox)
    answers = [await runner.run_once() for _ in range(6)]
    assert [answer is not None for answer in answers] == [False, True, False, True, False, True]
    first = inbox.sent[0].splitlines()
    assert first[0] == "Health check: 2 problem(s) now, 2 new or changed."
    assert "[!!] provider-keys: annabelle uses groq/x but GROQ_API_KEY is not set" in first
    assert "     fix: Set GROQ_API_KEY." in first and not any("gmail" in line for line in first)
    assert inbox.sent[1].splitlines() == ["Health check: 1 problem(s) now.", "Resolved: provider-keys"]
    assert inbox.sent[2].endswith("Resolved: error-rate\nEverything is healthy again.")
    saved = json.loads((tmp_path / "data" / LAST_FILENAME).read_text())
    assert saved == {"checkedAt": MOMENT.isoformat(), "problems": {}}


async def test_the_last_set_survives_a_restart_and_a_severity_change_counts(tmp_path: Path) -> None:
    inbox = Inbox()
    await periodic(tmp_path, Script([KEYS]), inbox).run_once()
    assert await periodic(tmp_path, Script([KEYS]), inbox).run_once() is None  # a new hub, same problem
    worse = ("error-rate", Finding("critical", "the log folder cannot be read"))
    milder = ("provider-keys", Finding("warning", "only a utility model lacks its key"))
    message = await periodic(tmp_path, Script([milder, worse]), inbox).run_once()
    assert message is not None and "[!] provider-keys" in message and "[!!] error-rate" in message
    assert len(inbox.sent) == 2


async def test_a_damaged_state_file_counts_as_no_previous_run(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / LAST_FILENAME).write_text("{oops")
    inbox = Inbox()
    assert await periodic(tmp_path, Script([KEYS]), inbox).run_once() is not None


async def test_the_schedule_waits_first_then_runs_every_interval_and_survives_a_failed_run(tmp_path: Path) -> None:
    inbox = Inbox()
    waits: list[float] = []

    class Stop(Exception):
        pass

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 4:
            raise Stop

    runs = 0

    async def run(ctx: CommandContext) -> list[tuple[Check, Finding]]:
        nonlocal runs
        runs += 1
        if runs == 2:
            raise RuntimeError("a check table that cannot run")
        return [(item(KEYS[0]), KEYS[1])]

    runner = PeriodicDiagnose(
        fake_context(tmp_path),
        inbox,
        tmp_path / LAST_FILENAME,
        interval_seconds=3600,
        first_delay_seconds=5,
        sleep=sleep,
        run=run,
    )
    with pytest.raises(Stop):
        await runner.run_forever()
    assert waits == [5, 3600, 3600, 3600] and runs == 3 and len(inbox.sent) == 1


def test_no_change_is_no_message() -> None:
    assert change_message({}, [(item("a"), Finding("info", "x"))]) is None
    assert change_message({"a": "warning"}, [(item("a"), Finding("warning", "other figures"))]) is None


def test_the_json_answer_round_trips_and_the_doctor_report_marks_each_line() -> None:
    results = [(item(KEYS[0]), KEYS[1]), (item(NOTE[0]), NOTE[1]), (item(FINE[0]), FINE[1])]
    data = diagnose_json(results)
    assert data["critical"] is True and data["counts"] == {"critical": 1, "warning": 0, "info": 1, "ok": 1}
    rows = [finding_from_json(row) for row in data["findings"]]
    report = format_doctor(rows, "hub at http://127.0.0.1:8010").splitlines()
    assert report == [
        "Annabelle doctor (hub at http://127.0.0.1:8010): 3 checks",
        "[!!] provider-keys: annabelle uses groq/x but GROQ_API_KEY is not set",
        "     fix: Set GROQ_API_KEY.",
        "[i]  gmail-credentials: no OAuth client file",
        "[ok] mcp-health: every MCP is up",
        "1 critical, 0 warning(s), 1 note(s), 1 ok.",
    ]
