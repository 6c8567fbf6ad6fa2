"""The idle timers of fact extraction, driven by a fake clock and a fake sleep."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from thinker.extraction import FactExtractionScheduler

START = datetime(2026, 2, 11, 9, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def scheduler(clock: FakeClock) -> FactExtractionScheduler:
    return FactExtractionScheduler(clock=clock)


def test_a_chat_is_due_five_minutes_after_its_last_message(
    scheduler: FactExtractionScheduler, clock: FakeClock
) -> None:
    assert scheduler.schedule("a") == START + timedelta(minutes=5)
    clock.advance(minutes=4, seconds=59)
    assert scheduler.due() == []
    clock.advance(seconds=1)
    assert scheduler.due() == ["a"]


def test_a_new_message_restarts_the_timer(scheduler: FactExtractionScheduler, clock: FakeClock) -> None:
    scheduler.schedule("a")
    clock.advance(minutes=4)
    scheduler.schedule("a")
    clock.advance(minutes=4)
    assert scheduler.due() == []
    clock.advance(minutes=1)
    assert scheduler.due() == ["a"]


def test_a_due_chat_is_handed_out_once_until_its_next_message(
    scheduler: FactExtractionScheduler, clock: FakeClock
) -> None:
    scheduler.schedule("a")
    clock.advance(minutes=6)
    assert scheduler.due() == ["a"]
    clock.advance(minutes=60)
    assert scheduler.due() == []
    scheduler.schedule("a")
    clock.advance(minutes=5)
    assert scheduler.due() == ["a"]


def test_chats_come_out_longest_waiting_first_with_one_timer_each(
    scheduler: FactExtractionScheduler, clock: FakeClock
) -> None:
    scheduler.schedule("late")
    clock.advance(minutes=1)
    scheduler.schedule("early", now=START - timedelta(minutes=3))
    scheduler.schedule("middle")
    scheduler.schedule("middle")
    assert scheduler.next_due() == START + timedelta(minutes=2)
    assert set(scheduler.pending) == {"late", "early", "middle"}
    assert scheduler.due(START + timedelta(hours=1)) == ["early", "late", "middle"]
    assert scheduler.next_due() is None


def test_cancel_forgets_a_chat(scheduler: FactExtractionScheduler, clock: FakeClock) -> None:
    scheduler.schedule("a")
    assert scheduler.cancel("a") is True
    assert scheduler.cancel("a") is False
    clock.advance(minutes=10)
    assert scheduler.due() == []


def test_the_idle_time_is_a_parameter(clock: FakeClock) -> None:
    scheduler = FactExtractionScheduler(idle=timedelta(seconds=30), clock=clock)
    scheduler.schedule("a")
    clock.advance(seconds=30)
    assert scheduler.due() == ["a"]


async def test_run_due_extracts_each_due_chat_and_survives_a_failure(
    scheduler: FactExtractionScheduler, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    for chat in ("a", "b", "c"):
        scheduler.schedule(chat)
    seen: list[str] = []

    async def extract(chat: str) -> None:
        seen.append(chat)
        if chat == "b":
            raise RuntimeError("the utility model is down")

    clock.advance(minutes=5)
    with caplog.at_level(logging.WARNING):
        assert await scheduler.run_due(extract) == ["a", "c"]
    assert seen == ["a", "b", "c"]
    assert "fact extraction failed: the utility model is down" in caplog.text
    assert scheduler.pending == {}


class Stop(Exception):
    pass


async def test_run_forever_sleeps_exactly_until_the_next_chat_is_due(
    scheduler: FactExtractionScheduler, clock: FakeClock
) -> None:
    sleeps: list[float] = []
    extracted: list[tuple[str, datetime]] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 1:
            clock.advance(seconds=60)
            scheduler.schedule("a")  # a message arrives while the loop sleeps on an empty schedule
            clock.advance(seconds=seconds - 60)
        elif len(sleeps) == 3:
            scheduler.schedule("b")
            clock.advance(seconds=seconds)
        elif len(sleeps) > 4:
            raise Stop
        else:
            clock.advance(seconds=seconds)

    async def extract(chat: str) -> None:
        extracted.append((chat, clock.now))

    with pytest.raises(Stop):
        await scheduler.run_forever(extract, sleep=sleep)
    assert sleeps == [300.0, 60.0, 300.0, 300.0, 300.0]
    assert extracted == [
        ("a", START + timedelta(minutes=6)),
        ("b", START + timedelta(minutes=11)),  # scheduled at minute 6, at the start of a full sleep
    ]
