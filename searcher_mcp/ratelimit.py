"""A queue that spaces calls at least `interval` apart: callers wait their turn, none is refused.

Each caller reserves the next free slot synchronously (so the order is the call order) and then sleeps until
it. The clock and the sleep are injected, so the schedule is tested without waiting.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


def next_slot(now: float, next_free: float, interval: float) -> tuple[float, float]:
    """When a call arriving at `now` may start, and when the one after it may: (start, new next_free)."""
    start = max(now, next_free)
    return start, start + interval


class RateLimiter:
    def __init__(self, interval_seconds: float, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep):
        self.interval = max(0.0, interval_seconds)
        self._clock = clock
        self._sleep = sleep
        self._next_free = float("-inf")

    async def wait_turn(self) -> float:
        """Wait until this caller's slot; returns how long it waited, in seconds."""
        now = self._clock()
        start, self._next_free = next_slot(now, self._next_free, self.interval)
        delay = start - now
        if delay > 0:
            await self._sleep(delay)
        return delay
