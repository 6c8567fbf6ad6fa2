"""The agent benchmark's tolerant end-state checks (benchmarks/agent_taskset.py) on end states written out by hand.

The perfect model shows that each task's check accepts the scripted way to the goal; these show the other side:
the other correct ways pass too, and the near misses a model makes (one reminder of two, an appended line that
leaves the old figure, a deleted reminder the user wanted paused, a stale fact kept beside the new one) fail.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from agent_taskset import (  # noqa: E402
    World,
    any_of,
    cron_skills_together,
    lines_about,
    no_fact_saying,
    on_weekday,
    once_skill,
    skill_paused,
)


@dataclass
class Ends:
    """An end state as the checks read it: files, facts and skills, at a moment."""

    now: datetime = datetime(2026, 11, 27, 22, 0, tzinfo=UTC)  # a Friday
    files: dict[str, str] = field(default_factory=dict)
    fact_texts: list[str] = field(default_factory=list)
    skill_rows: list[dict[str, Any]] = field(default_factory=list)

    def file(self, path: str) -> str | None:
        return self.files.get(path)

    def facts(self) -> list[dict[str, Any]]:
        return [{"id": i, "fact": text} for i, text in enumerate(self.fact_texts)]

    def skills(self) -> list[dict[str, Any]]:
        return self.skill_rows

    def world(self) -> World:
        return cast(World, self)


def cron(name: str, schedule: str, enabled: bool = True) -> dict[str, Any]:
    return {"name": name, "trigger_type": "cron", "trigger_config": {"schedule": schedule}, "enabled": enabled}


def once(name: str, moment: str) -> dict[str, Any]:
    return {"name": name, "trigger_type": "cron", "trigger_config": {"at": moment}, "enabled": True}


def test_two_weekdays_pass_as_one_skill_or_two_and_fail_with_one_missing_or_one_extra() -> None:
    check = cron_skills_together("0 6 * * 1,4", "bread")
    assert check(Ends(skill_rows=[cron("Bread order", "0 6 * * 1,4")]).world()) is None
    assert check(Ends(skill_rows=[cron("Bread Mon", "0 6 * * 1"), cron("Bread Thu", "0 6 * * 4")]).world()) is None
    assert check(Ends(skill_rows=[cron("Bread Mon", "0 6 * * 1")]).world()) is not None
    extra = [cron("Bread", "0 6 * * 1,4"), cron("Bread too", "0 6 * * 3")]
    assert check(Ends(skill_rows=extra).world()) is not None
    switched_off = [cron("Bread Mon", "0 6 * * 1"), cron("Bread Thu", "0 6 * * 4", enabled=False)]
    assert check(Ends(skill_rows=switched_off).world()) is not None
    assert check(Ends(skill_rows=[cron("Milk order", "0 6 * * 1,4")]).world()) is not None


def test_a_paused_reminder_is_kept_and_off_not_deleted_nor_left_on() -> None:
    check = skill_paused("boulder")
    assert check(Ends(skill_rows=[cron("Bouldering", "0 19 * * 2,4", enabled=False)]).world()) is None
    assert check(Ends(skill_rows=[cron("Bouldering", "0 19 * * 2,4")]).world()) is not None
    assert check(Ends().world()) is not None


def test_a_corrected_line_passes_rewritten_and_fails_with_the_old_figure_left() -> None:
    check = lines_about("stock.txt", ["lid"], ["120"])
    assert check(Ends(files={"stock.txt": "cups 200\nlids 120\nstraws 500\n"}).world()) is None
    assert check(Ends(files={"stock.txt": "Lids: 120 (was 150)\n"}).world()) is None
    appended = "cups 200\nlids 150\nstraws 500\nlids 120\n"
    assert check(Ends(files={"stock.txt": appended}).world()) is not None
    assert check(Ends(files={"stock.txt": "cups 200\n"}).world()) is not None
    assert check(Ends().world()) is not None


def test_a_stale_fact_fails_unless_it_names_the_new_value_too() -> None:
    check = no_fact_saying(["Henk"], ["sleutel", "key"], unless=["Gerrit"])
    assert check(Ends(fact_texts=["De sleutel ligt bij Gerrit", "Henk is op vakantie"]).world()) is None
    assert check(Ends(fact_texts=["The key is with Gerrit, not Henk"]).world()) is None
    kept = ["De sleutel ligt bij Henk", "De sleutel ligt bij Gerrit"]
    assert check(Ends(fact_texts=kept).world()) is not None


def test_a_weekday_said_on_that_weekday_may_be_today_or_a_week_on() -> None:
    friday_evening = [once_skill(when, timedelta(minutes=5), "essay") for when in on_weekday(4, 23)]
    check = any_of(*friday_evening)
    today = Ends(skill_rows=[once("Essay", "2026-11-27T23:00:00+00:00")])
    week_on = Ends(skill_rows=[once("Essay", "2026-12-04T23:00:00+00:00")])
    assert check(today.world()) is None and check(week_on.world()) is None
    assert check(Ends(skill_rows=[once("Essay", "2026-11-28T23:00:00+00:00")]).world()) is not None
    # On another day, only the next such day counts.
    saturday = any_of(*(once_skill(when, timedelta(minutes=5), "essay") for when in on_weekday(5, 18)))
    assert saturday(Ends(skill_rows=[once("Essay", "2026-11-28T18:00:00+00:00")]).world()) is None
    assert saturday(Ends(skill_rows=[once("Essay", "2026-12-05T18:00:00+00:00")]).world()) is not None
