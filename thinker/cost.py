"""Cost controls: token usage over a sliding hour, a hard cap and spike detection that pause the agent.

The window is 60 one-minute buckets; each holds the prompt and completion tokens and the number of calls of
its minute. `CostMonitor.record` is told the tokens of every model call (the agent loop, retries, compaction
summaries, fact extraction) and then checks two thresholds:

- hard cap: tokens in the last 60 minutes (the current minute included) >= `hardCapTokensPerHour`;
- spike: the short window is the last `shortWindowMinutes` minutes (current one included), the baseline the
  rest of the hour. Only when the baseline holds at least `minimumBaselineTokens` tokens:
  short rate = short-window tokens / shortWindowMinutes;
  baseline rate = baseline tokens / baseline buckets that had at least one call ("active" buckets, so idle
  minutes do not drag the average down and make ordinary use look like a spike);
  spike when short rate > max(baseline rate, `minimumBaselineRate`) x `spikeMultiplier`. The floor keeps a
  quiet baseline (a few hundred tokens a minute) from turning the first busy conversation into a "spike".

Either pauses the monitor with a reason and the time. It stays paused - records still count - until `resume`,
optionally with the window emptied; without that, a cap still exceeded pauses again on the next call, which is
intended: resuming is a decision about the budget, not a way around it. With `enabled` false usage is still
counted for `status()`, but nothing pauses.

Pure logic: the time comes from the injected clock, nothing is read or written.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime

from shared.agents import CostControls
from shared.contracts.thinker_api import CostStatus
from shared.timeutil import Clock, as_utc, format_timestamp, utc_now

WINDOW_MINUTES = 60


@dataclass
class Bucket:
    minute: int
    """Minutes since the Unix epoch (UTC) that this bucket counts."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class WindowStats:
    hour_tokens: int
    short_tokens: int
    short_rate: float
    """Tokens per minute over the short window."""
    baseline_tokens: int
    baseline_buckets: int
    """Active buckets (at least one call) in the baseline part of the hour."""
    baseline_rate: float
    """Tokens per active baseline minute; 0 when there is none."""
    active_buckets: int
    """Active buckets in the whole hour."""


def minute_of(moment: datetime) -> int:
    return int(as_utc(moment).timestamp() // 60)


def window_stats(buckets: list[Bucket], now_minute: int, short_minutes: int) -> WindowStats:
    """The figures both thresholds use; buckets outside the hour ending at `now_minute` are ignored."""
    in_hour = [b for b in buckets if now_minute - WINDOW_MINUTES < b.minute <= now_minute]
    short = [b for b in in_hour if b.minute > now_minute - short_minutes]
    baseline = [b for b in in_hour if b.minute <= now_minute - short_minutes and b.calls > 0]
    short_tokens = sum(b.tokens for b in short)
    baseline_tokens = sum(b.tokens for b in baseline)
    return WindowStats(
        hour_tokens=sum(b.tokens for b in in_hour),
        short_tokens=short_tokens,
        short_rate=short_tokens / short_minutes,
        baseline_tokens=baseline_tokens,
        baseline_buckets=len(baseline),
        baseline_rate=baseline_tokens / len(baseline) if baseline else 0.0,
        active_buckets=sum(1 for b in in_hour if b.calls > 0),
    )


def pause_reason(stats: WindowStats, config: CostControls) -> str | None:
    """Why usage this high must pause the agent, or None when it may go on (ignores `enabled`)."""
    if stats.hour_tokens >= config.hardCapTokensPerHour:
        return (
            f"Hard cap reached: {stats.hour_tokens:,} tokens in the last hour "
            f"(the limit is {config.hardCapTokensPerHour:,} tokens per hour)."
        )
    if stats.baseline_buckets == 0 or stats.baseline_tokens < config.minimumBaselineTokens:
        return None  # no baseline yet (start-up, or a quiet hour): nothing to call a spike against
    reference = max(stats.baseline_rate, float(config.minimumBaselineRate))
    if stats.short_rate > reference * config.spikeMultiplier:
        return (
            f"Token spike: {stats.short_rate:,.0f} tokens/min over the last {config.shortWindowMinutes} min, "
            f"more than {config.spikeMultiplier:g}x the reference rate of {reference:,.0f} tokens/min "
            f"(baseline {stats.baseline_rate:,.0f} tokens/min over {stats.baseline_buckets} active min)."
        )
    return None


class CostMonitor:
    """Sliding-hour token accounting for one agent; see the module docstring for the rules."""

    def __init__(self, config: CostControls, clock: Clock = utc_now) -> None:
        self.config = config
        self._clock = clock
        # One slot per minute of the hour, reused as time moves on (slot = minute mod 60).
        self._buckets: list[Bucket | None] = [None] * WINDOW_MINUTES
        self._paused = False
        self._pause_reason: str | None = None
        self._paused_at: datetime | None = None
        # Model calls may finish on worker threads; the counters must not lose an update.
        self._lock = threading.Lock()

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def pause_reason(self) -> str | None:
        return self._pause_reason

    @property
    def paused_at(self) -> datetime | None:
        return self._paused_at

    def record(self, prompt_tokens: int, completion_tokens: int) -> bool:
        """Count one model call's tokens and check the thresholds; True when this call paused the monitor."""
        now = as_utc(self._clock())
        minute = minute_of(now)
        with self._lock:
            slot = minute % WINDOW_MINUTES
            bucket = self._buckets[slot]
            if bucket is None or bucket.minute != minute:
                bucket = self._buckets[slot] = Bucket(minute)
            bucket.prompt_tokens += max(0, int(prompt_tokens))
            bucket.completion_tokens += max(0, int(completion_tokens))
            bucket.calls += 1
            if self._paused or not self.config.enabled:
                return False
            reason = pause_reason(self._stats(minute), self.config)
            if reason is None:
                return False
            self._paused, self._pause_reason, self._paused_at = True, reason, now
            return True

    def resume(self, reset_window: bool = False) -> None:
        """Lift the pause; with `reset_window` the last hour's usage is forgotten too."""
        with self._lock:
            self._paused, self._pause_reason, self._paused_at = False, None, None
            if reset_window:
                self._buckets = [None] * WINDOW_MINUTES

    def stats(self) -> WindowStats:
        with self._lock:
            return self._stats(minute_of(self._clock()))

    def _stats(self, minute: int) -> WindowStats:
        live = [bucket for bucket in self._buckets if bucket is not None]
        return window_stats(live, minute, self.config.shortWindowMinutes)

    def status(self) -> CostStatus:
        stats = self.stats()
        return CostStatus(
            enabled=self.config.enabled,
            paused=self._paused,
            pauseReason=self._pause_reason,
            pausedAt=format_timestamp(self._paused_at) if self._paused_at else None,
            currentHourTokens=stats.hour_tokens,
            shortWindowTokensPerMinute=round(stats.short_rate),
            baselineTokensPerMinute=round(stats.baseline_rate),
            hardCapTokensPerHour=self.config.hardCapTokensPerHour,
            spikeMultiplier=self.config.spikeMultiplier,
            shortWindowMinutes=self.config.shortWindowMinutes,
            activeBuckets=stats.active_buckets,
        )


__all__ = ["WINDOW_MINUTES", "Bucket", "CostMonitor", "WindowStats", "pause_reason", "window_stats"]
