"""The cost monitor driven by a fake clock through hours of traffic: hard cap, spikes, baselines, resume."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from shared.agents import CostControls
from thinker.cost import WINDOW_MINUTES, Bucket, CostMonitor, WindowStats, pause_reason, window_stats

START = datetime(2026, 2, 11, 8, 0, tzinfo=UTC)
NOW_MINUTE = 29_000_000


class FakeClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def monitor(**overrides: object) -> tuple[CostMonitor, FakeClock]:
    clock = FakeClock()
    return CostMonitor(CostControls.model_validate(overrides), clock), clock


def steady(cost: CostMonitor, clock: FakeClock, minutes: int, tokens_per_minute: int) -> list[int]:
    """One call per minute for `minutes` minutes; returns the minutes (from the start of this run) that paused."""
    paused = []
    for minute in range(minutes):
        if cost.record(tokens_per_minute // 2, tokens_per_minute - tokens_per_minute // 2):
            paused.append(minute)
        clock.advance(minutes=1)
    return paused


def bucket(minutes_ago: int, tokens: int, calls: int = 1) -> Bucket:
    return Bucket(NOW_MINUTE - minutes_ago, prompt_tokens=tokens, completion_tokens=0, calls=calls)


# --- the window figures (pure) ---------------------------------------------------------------------------------
def test_the_short_window_is_the_current_minute_and_the_ones_before_it() -> None:
    stats = window_stats([bucket(0, 100), bucket(1, 300), bucket(2, 5_000)], NOW_MINUTE, short_minutes=2)
    assert stats.short_tokens == 400 and stats.short_rate == 200
    assert stats.baseline_tokens == 5_000 and stats.baseline_buckets == 1


def test_the_hour_holds_sixty_minutes_and_older_buckets_do_not_count() -> None:
    stats = window_stats([bucket(59, 1_000), bucket(60, 7_000), bucket(600, 9_000)], NOW_MINUTE, short_minutes=2)
    assert stats.hour_tokens == 1_000
    assert stats.active_buckets == 1


def test_the_baseline_averages_over_active_minutes_only() -> None:
    stats = window_stats([bucket(10, 6_000), bucket(40, 2_000), bucket(20, 0, calls=0)], NOW_MINUTE, short_minutes=2)
    assert stats.baseline_buckets == 2
    assert stats.baseline_rate == 4_000  # not 8,000 / 58 minutes


def test_a_bucket_from_the_future_after_the_clock_went_back_is_ignored() -> None:
    stats = window_stats([bucket(-5, 99_000), bucket(3, 10)], NOW_MINUTE, short_minutes=2)
    assert stats.hour_tokens == 10


@pytest.mark.parametrize(
    ("stats", "expected"),
    [
        (WindowStats(250_000, 0, 0, 0, 0, 0, 1), "Hard cap reached: 250,000 tokens in the last hour"),
        (WindowStats(249_999, 0, 0, 0, 0, 0, 1), None),
        # a baseline of 12,000/min: the reference is 12,000, the threshold 36,000/min
        (WindowStats(100_000, 72_002, 36_001, 24_000, 2, 12_000, 4), "Token spike: 36,001 tokens/min"),
        (WindowStats(100_000, 72_000, 36_000, 24_000, 2, 12_000, 4), None),
        # a quiet baseline of 500/min: the floor of 10,000/min is the reference, the threshold 30,000/min
        (WindowStats(100_000, 58_000, 29_000, 1_000, 2, 500, 4), None),
        (WindowStats(100_000, 62_000, 31_000, 1_000, 2, 500, 4), "more than 3x the reference rate of 10,000"),
        # a baseline under the 1,000-token minimum: no spike check at all
        (WindowStats(100_000, 99_000, 49_500, 999, 1, 999, 3), None),
        # no active baseline minute: nothing to compare against
        (WindowStats(100_000, 99_000, 49_500, 0, 0, 0, 2), None),
    ],
)
def test_pause_reason(stats: WindowStats, expected: str | None) -> None:
    reason = pause_reason(stats, CostControls())
    if expected is None:
        assert reason is None
    else:
        assert reason is not None and expected in reason


# --- traffic over time -------------------------------------------------------------------------------------------
def test_steady_use_under_the_cap_runs_for_hours_without_a_pause() -> None:
    cost, clock = monitor()
    assert steady(cost, clock, minutes=180, tokens_per_minute=4_000) == []  # 240,000 per hour
    assert cost.status().model_dump()["currentHourTokens"] == 236_000  # 59 minutes: the current one has no call yet


def test_sustained_use_over_the_cap_pauses_when_the_hour_reaches_it() -> None:
    cost, clock = monitor()
    assert steady(cost, clock, minutes=120, tokens_per_minute=5_000) == [49]  # 50 x 5,000 = 250,000
    assert cost.paused
    assert cost.pause_reason == (
        "Hard cap reached: 250,000 tokens in the last hour (the limit is 250,000 tokens per hour)."
    )
    assert cost.paused_at == START + timedelta(minutes=49)


def test_one_huge_call_at_start_up_hits_the_cap_but_is_no_spike() -> None:
    cost, _ = monitor()
    assert cost.record(200_000, 1_000) is False  # no baseline yet: no spike; under the cap
    assert not cost.paused
    assert cost.record(49_000, 0) is True
    assert cost.pause_reason is not None and cost.pause_reason.startswith("Hard cap")


def test_a_busy_first_minutes_after_start_up_are_not_a_spike() -> None:
    cost, clock = monitor()
    assert steady(cost, clock, minutes=2, tokens_per_minute=60_000) == []
    assert not cost.paused


def test_a_spike_over_a_real_baseline_pauses_with_the_rates_in_the_reason() -> None:
    cost, clock = monitor()
    assert steady(cost, clock, minutes=30, tokens_per_minute=2_000) == []
    # Runaway loop: many calls within one minute.
    paused = [cost.record(4_000, 1_000) for _ in range(12)]
    # The short window is this minute and the last: 2,000 + 12 x 5,000 = 62,000, 31,000/min > 3 x 10,000.
    assert paused == [False] * 11 + [True]
    assert cost.pause_reason is not None
    assert cost.pause_reason.startswith("Token spike: 31,000 tokens/min over the last 2 min")
    assert "baseline 2,000 tokens/min over 29 active min" in cost.pause_reason


def test_a_higher_baseline_raises_the_spike_threshold() -> None:
    cost, clock = monitor(hardCapTokensPerHour=10_000_000)
    steady(cost, clock, minutes=30, tokens_per_minute=20_000)
    # 3 x 20,000 = 60,000/min: a 2-minute window may hold up to 120,000 tokens.
    assert steady(cost, clock, minutes=2, tokens_per_minute=59_000) == []
    clock.advance(minutes=5)
    # The baseline is now 718,000 / 32 = 22,438/min, the threshold 67,313/min: 65,000 passes, 130,000 does not.
    assert steady(cost, clock, minutes=2, tokens_per_minute=130_000) == [1]


def test_idle_minutes_do_not_lower_the_baseline_into_false_spikes() -> None:
    cost, clock = monitor(minimumBaselineRate=0)
    for _ in range(6):  # a 20,000-token conversation every 10 minutes, silence in between
        cost.record(20_000, 0)
        clock.advance(minutes=10)
    assert cost.record(45_000, 0) is False  # 22,500/min is ordinary against 20,000 per active minute
    assert cost.status().model_dump()["baselineTokensPerMinute"] == 20_000


def test_the_minimum_baseline_rate_keeps_a_quiet_hour_from_calling_a_normal_chat_a_spike() -> None:
    cost, clock = monitor()
    steady(cost, clock, minutes=40, tokens_per_minute=300)  # 12,000 tokens: a baseline, but a tiny one
    assert steady(cost, clock, minutes=2, tokens_per_minute=25_000) == []  # under 3 x 10,000

    strict, strict_clock = monitor(minimumBaselineRate=0)
    steady(strict, strict_clock, minutes=40, tokens_per_minute=300)
    assert steady(strict, strict_clock, minutes=2, tokens_per_minute=25_000) == [0]


def test_a_baseline_below_the_minimum_tokens_allows_no_spike_check() -> None:
    cost, clock = monitor(minimumBaselineTokens=5_000, minimumBaselineRate=0)
    steady(cost, clock, minutes=4, tokens_per_minute=1_000)  # 4,000 baseline tokens
    assert steady(cost, clock, minutes=1, tokens_per_minute=100_000) == []


def test_the_short_window_length_comes_from_the_config() -> None:
    cost, clock = monitor(shortWindowMinutes=5)
    steady(cost, clock, minutes=30, tokens_per_minute=2_000)
    # The last 4 minutes hold 8,000 tokens: (8,000 + 140,000) / 5 = 29,600/min, then 32,000/min > 30,000.
    assert cost.record(140_000, 0) is False
    assert cost.record(12_000, 0) is True
    assert cost.status().model_dump()["shortWindowMinutes"] == 5


def test_usage_older_than_an_hour_rolls_out_of_the_window() -> None:
    cost, clock = monitor()
    cost.record(200_000, 0)
    clock.advance(minutes=59)
    assert cost.status().model_dump()["currentHourTokens"] == 200_000
    clock.advance(minutes=1)
    assert cost.status().model_dump()["currentHourTokens"] == 0
    assert cost.record(100_000, 0) is False


def test_a_clock_that_jumps_back_does_not_break_the_count() -> None:
    cost, clock = monitor()
    cost.record(1_000, 0)
    clock.advance(hours=-2)
    cost.record(500, 0)
    assert cost.status().model_dump()["currentHourTokens"] == 500


def test_odd_token_counts_are_counted_as_zero_or_whole_numbers() -> None:
    cost, _ = monitor()
    cost.record(-50, -1)
    cost.record(10.9, 0)  # type: ignore[arg-type]
    assert cost.status().model_dump()["currentHourTokens"] == 10
    assert cost.status().model_dump()["activeBuckets"] == 1


# --- pause and resume ----------------------------------------------------------------------------------------------
def test_a_paused_monitor_keeps_counting_and_reports_the_pause_once() -> None:
    cost, clock = monitor()
    assert cost.record(250_000, 0) is True
    first_reason, first_at = cost.pause_reason, cost.paused_at
    clock.advance(minutes=3)
    assert cost.record(30_000, 0) is False
    assert (cost.pause_reason, cost.paused_at) == (first_reason, first_at)
    assert cost.status().model_dump()["currentHourTokens"] == 280_000


def test_resuming_without_a_reset_pauses_again_while_the_cap_is_still_exceeded() -> None:
    cost, clock = monitor()
    cost.record(260_000, 0)
    cost.resume()
    assert not cost.paused and cost.pause_reason is None and cost.paused_at is None
    clock.advance(minutes=1)
    assert cost.record(10, 0) is True
    assert cost.paused_at == START + timedelta(minutes=1)


def test_resuming_with_a_window_reset_starts_the_hour_afresh() -> None:
    cost, clock = monitor()
    cost.record(260_000, 0)
    cost.resume(reset_window=True)
    assert cost.status().model_dump()["currentHourTokens"] == 0 and cost.status().model_dump()["activeBuckets"] == 0
    assert steady(cost, clock, minutes=30, tokens_per_minute=2_000) == []


def test_a_disabled_monitor_counts_but_never_pauses() -> None:
    cost, clock = monitor(enabled=False)
    assert steady(cost, clock, minutes=90, tokens_per_minute=50_000) == []
    assert not cost.paused
    status = cost.status().model_dump()
    assert status["enabled"] is False and status["currentHourTokens"] == 59 * 50_000


# --- status ---------------------------------------------------------------------------------------------------------
def test_status_has_the_original_shape() -> None:
    cost, clock = monitor()
    steady(cost, clock, minutes=10, tokens_per_minute=3_000)
    cost.record(1_001, 0)
    assert cost.status().model_dump() == {
        "enabled": True,
        "paused": False,
        "pauseReason": None,
        "pausedAt": None,
        "currentHourTokens": 31_001,
        "shortWindowTokensPerMinute": 2_000,  # (1,001 now + 3,000 a minute ago) / 2 = 2,000.5, rounded
        "baselineTokensPerMinute": 3_000,
        "hardCapTokensPerHour": 250_000,
        "spikeMultiplier": 3.0,
        "shortWindowMinutes": 2,
        "activeBuckets": 11,
        "budgets": [],  # the budgets' lines are the runtime's to add (thinker.budget_guard)
        "budgetNote": None,
    }


def test_status_when_paused_gives_the_reason_and_the_time_in_utc() -> None:
    cost, _ = monitor(hardCapTokensPerHour=1_000)
    cost.record(1_000, 0)
    status = cost.status().model_dump()
    assert status["paused"] is True
    assert status["pausedAt"] == "2026-02-11T08:00:00.000Z"
    assert (
        status["pauseReason"] == "Hard cap reached: 1,000 tokens in the last hour (the limit is 1,000 tokens per hour)."
    )


def test_the_window_has_sixty_buckets_reused_minute_by_minute() -> None:
    cost, clock = monitor()
    steady(cost, clock, minutes=WINDOW_MINUTES * 3, tokens_per_minute=100)
    assert cost.status().model_dump()["activeBuckets"] == WINDOW_MINUTES - 1  # the current minute has had no call yet
