"""A skill's timing in words with its next runs (orchestrator/skills/timing_words.py). Pure, no I/O."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from orchestrator.skills.timing_words import timing_words

SATURDAY = datetime(2026, 11, 28, 14, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("config", "words"),
    [
        (
            {"schedule": "30 18 * * 1-5"},
            "At 18:30, Monday through Friday (Europe/Berlin); next Mon 30 Nov 2026 18:30, Tue 01 Dec 2026 18:30",
        ),
        (
            {"schedule": "30 18 * * 1,3,5"},
            "At 18:30, only on Monday, Wednesday, and Friday (Europe/Berlin); next Mon 30 Nov 2026 18:30, "
            "Wed 02 Dec 2026 18:30",
        ),
        (
            {"schedule": "0 10 3 * *", "timezone": "America/New_York"},
            "At 10:00, on day 3 of the month (America/New_York); next Thu 03 Dec 2026 10:00, Sun 03 Jan 2027 10:00",
        ),
        ({"at": "2026-11-29T18:00"}, "Once, Sun 29 Nov 2026 18:00 (Europe/Berlin)"),
        ({"interval_minutes": 90}, "Every 90 minutes, counted from its last run"),
    ],
)
def test_a_timing_is_said_in_words_with_its_next_runs_in_the_skills_zone(config: dict, words: str) -> None:
    assert timing_words(config, default_tz="Europe/Berlin", now=SATURDAY) == words


def test_a_skill_with_no_timing_has_no_words() -> None:
    assert timing_words({"keywords": ["weather"]}, default_tz="UTC", now=SATURDAY) is None
    assert timing_words(None, default_tz="UTC", now=SATURDAY) is None
