"""The Brave call queue: calls wait their turn, spaced by the interval, in arrival order; none fails."""

from __future__ import annotations

import asyncio

import pytest

from searcher_mcp.ratelimit import RateLimiter, next_slot


class FakeTime:
    """A clock that only moves when someone sleeps; sleeps are recorded."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        await asyncio.sleep(0)


@pytest.mark.parametrize(
    ("now", "next_free", "interval", "expected"),
    [
        (10.0, float("-inf"), 1.1, (10.0, 11.1)),
        (10.0, 10.5, 1.1, (10.5, 11.6)),
        (12.0, 10.5, 1.1, (12.0, 13.1)),
        (5.0, 5.0, 0.0, (5.0, 5.0)),
    ],
)
def test_next_slot_is_the_later_of_now_and_the_next_free_time(
    now: float, next_free: float, interval: float, expected: tuple[float, float]
) -> None:
    assert next_slot(now, next_free, interval) == pytest.approx(expected)


async def test_the_first_call_does_not_wait() -> None:
    time = FakeTime()
    limiter = RateLimiter(1.1, clock=time.clock, sleep=time.sleep)
    assert await limiter.wait_turn() == 0
    assert time.sleeps == []


async def test_calls_arriving_together_are_queued_one_interval_apart() -> None:
    time = FakeTime()
    limiter = RateLimiter(1.1, clock=time.clock, sleep=time.sleep)
    waits = await asyncio.gather(*(limiter.wait_turn() for _ in range(4)))
    assert waits == pytest.approx([0.0, 1.1, 2.2, 3.3])


async def test_a_call_after_the_interval_has_passed_goes_straight_through() -> None:
    time = FakeTime()
    limiter = RateLimiter(1.1, clock=time.clock, sleep=time.sleep)
    await limiter.wait_turn()
    time.now += 0.5
    assert await limiter.wait_turn() == pytest.approx(0.6)
    time.now += 5.0
    assert await limiter.wait_turn() == 0


async def test_a_zero_interval_never_waits() -> None:
    time = FakeTime()
    limiter = RateLimiter(0, clock=time.clock, sleep=time.sleep)
    assert await asyncio.gather(*(limiter.wait_turn() for _ in range(3))) == [0, 0, 0]
