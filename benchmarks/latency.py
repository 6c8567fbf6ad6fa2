"""Latency statistics the benchmarks share, so their p50/p99 figures mean the same thing in every report."""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any


def percentile(samples: Sequence[float], q: float) -> float:
    """The sample at fraction `q` of the sorted samples (nearest rank, rounding down; never past the last)."""
    ordered = sorted(samples)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)]


def summary(samples_s: Sequence[float]) -> dict[str, float]:
    """Median and 99th percentile in milliseconds of samples in seconds, and how many there were."""
    ms = [s * 1000 for s in samples_s]
    return {"p50_ms": round(statistics.median(ms), 3), "p99_ms": round(percentile(ms, 0.99), 3), "n": len(ms)}


async def timed(count: int, one: Callable[[], Awaitable[Any]], *, warmup: int) -> list[float]:
    """Seconds each of `count` awaits of `one()` took, after `warmup` untimed ones (caches, connections, imports)."""
    for _ in range(warmup):
        await one()
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        await one()
        samples.append(time.perf_counter() - started)
    return samples
