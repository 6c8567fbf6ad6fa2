"""The kill switch: targets, persistence across restarts, atomic writes, and a damaged file."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from orchestrator.halt import TARGETS, HaltState, decode_state, parse_target


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.mark.parametrize(
    ("given", "expected"),
    [("all", TARGETS), ("thinker", ("thinker",)), (" Channel ", ("channel",)), ("scheduler", ("scheduler",))],
)
def test_targets_are_all_or_one_of_three(given: str, expected: tuple[str, ...]) -> None:
    assert parse_target(given) == expected


@pytest.mark.parametrize("given", ["telegram", "", "inngest", "thinkers"])
def test_an_unknown_target_is_a_sentence_listing_the_choices(given: str) -> None:
    with pytest.raises(ValueError, match="use one of all, thinker, channel, scheduler"):
        parse_target(given)


def test_nothing_is_halted_without_a_file(tmp_path: Path) -> None:
    halt = HaltState(tmp_path / "data" / "halt.json")
    assert halt.describe() == {"halted": False, "targets": [], "reason": None, "since": None, "details": {}}
    assert not (tmp_path / "data").exists()


def test_halting_all_halts_the_three_and_resuming_one_leaves_the_others(tmp_path: Path) -> None:
    halt = HaltState(tmp_path / "halt.json", clock=Clock())
    described = halt.halt("all", "going on holiday")
    assert described["halted"] is True and described["targets"] == ["thinker", "channel", "scheduler"]
    assert described["reason"] == "going on holiday" and described["since"] == "2026-03-01T12:00:00+00:00"
    halt.resume("channel")
    assert [t for t in TARGETS if halt.halted(t)] == ["thinker", "scheduler"]
    assert halt.resume("all")["halted"] is False


def test_the_halt_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "data" / "halt.json"
    HaltState(path, clock=Clock()).halt("thinker", "runaway costs")
    again = HaltState(path)
    assert again.halted("thinker") and not again.halted("channel")
    assert again.describe()["reason"] == "runaway costs"
    assert json.loads(path.read_text())["targets"]["thinker"]["since"] == "2026-03-01T12:00:00+00:00"


def test_halting_again_keeps_the_first_time_and_takes_the_new_reason(tmp_path: Path) -> None:
    clock = Clock()
    halt = HaltState(tmp_path / "halt.json", clock=clock)
    halt.halt("thinker", "first")
    clock.now += timedelta(hours=1)
    described = halt.halt("thinker", "second")
    assert described["since"] == "2026-03-01T12:00:00+00:00" and described["reason"] == "second"


def test_writes_leave_no_temporary_files_behind(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    halt = HaltState(folder / "halt.json")
    for _ in range(3):
        halt.halt("scheduler", "x")
        halt.resume("scheduler")
    assert [p.name for p in folder.iterdir()] == ["halt.json"]


@pytest.mark.parametrize("content", ["{not json", '{"targets": []}', '{"targets": {"telegram": {}}}', "[]"])
def test_a_damaged_file_counts_as_everything_halted_with_a_reason_saying_so(tmp_path: Path, content: str) -> None:
    path = tmp_path / "halt.json"
    path.write_text(content)
    halt = HaltState(path)
    assert all(halt.halted(target) for target in TARGETS)
    assert "could not be read" in str(halt.describe()["reason"]) and "/resume all" in str(halt.describe()["reason"])
    halt.resume("all")
    assert HaltState(path).describe()["halted"] is False


def test_decoding_ignores_nothing_it_does_not_know() -> None:
    with pytest.raises(ValueError, match="unknown targets"):
        decode_state({"targets": {"thinker": {"reason": "", "since": "2026-01-01T00:00:00"}, "x": {}}})
    decoded = decode_state({"targets": {"thinker": {"reason": "r", "since": "2026-01-01T00:00:00"}}})
    assert decoded["thinker"].since.tzinfo is not None


def test_the_notice_names_the_target_the_reason_and_the_command(tmp_path: Path) -> None:
    halt = HaltState(tmp_path / "halt.json", clock=Clock())
    halt.halt("thinker", "testing")
    notice = halt.notice("thinker")
    assert "halted since 2026-03-01 12:00 UTC (testing)" in notice and "/resume thinker" in notice
