"""Budgets: the rules (windows in the owner's zone, the first limit a call could pass, the sentences), the SQLite
ledger, and the guard that admits or refuses a call, driven by a fake clock and fake token counts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from pydantic import ValidationError

from shared.agents import AgentsConfig, Budgets
from shared.contracts.thinker_api import ExecuteSkillRequest
from thinker.budget_guard import BudgetGuard, skill_run
from thinker.budget_ledger import AGENT_SCOPE, BudgetLedger, migrate, skill_scope
from thinker.budgets import (
    Estimate,
    Limit,
    SkillLimits,
    Standing,
    agent_limits,
    budget_stop,
    first_breach,
    stop_sentence,
    windows,
)
from thinker.llm import BudgetExceeded

LISBON = ZoneInfo("Europe/Lisbon")
TOKYO = ZoneInfo("Asia/Tokyo")


class FakeClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


# -- the rules ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moment", "zone", "day", "month", "day_ends"),
    [
        # 23:30 UTC on 31 January is already 1 February in Tokyo: a new day and a new month there.
        (datetime(2026, 1, 31, 23, 30, tzinfo=UTC), TOKYO, "2026-02-01", "2026-02", "2026-02-02T00:00:00+09:00"),
        (datetime(2026, 1, 31, 23, 30, tzinfo=UTC), LISBON, "2026-01-31", "2026-01", "2026-02-01T00:00:00+00:00"),
        # Summer time: Lisbon's day ends at local midnight, +01:00.
        (datetime(2026, 7, 10, 12, 0, tzinfo=UTC), LISBON, "2026-07-10", "2026-07", "2026-07-11T00:00:00+01:00"),
        (datetime(2026, 12, 31, 12, 0, tzinfo=UTC), LISBON, "2026-12-31", "2026-12", "2027-01-01T00:00:00+00:00"),
    ],
)
def test_windows_are_the_owners_day_and_month(
    moment: datetime, zone: ZoneInfo, day: str, month: str, day_ends: str
) -> None:
    window = windows(moment, zone)
    assert (window.day, window.month, window.day_ends.isoformat()) == (day, month, day_ends)


def test_the_month_window_ends_on_the_first_of_the_next_month() -> None:
    assert windows(datetime(2026, 12, 5, tzinfo=UTC), LISBON).month_ends.isoformat() == "2027-01-01T00:00:00+00:00"


def test_agent_limits_come_shortest_window_first_and_tokens_before_money() -> None:
    budgets = Budgets(monthlyUsd=30.0, dailyTokens=1000, monthlyTokens=20000, dailyUsd=1.5)
    assert [limit.name for limit in agent_limits(budgets)] == ["dailyTokens", "dailyUsd", "monthlyTokens", "monthlyUsd"]


@pytest.mark.parametrize(
    ("used", "estimate", "breached"),
    [
        (0, Estimate(500, 500), None),  # exactly at the limit is allowed
        (1, Estimate(500, 500), "dailyTokens"),
        (0, Estimate(100, 100, usd=2.5), "dailyUsd"),
        (0, Estimate(100, 100, usd=None), None),  # no price: the USD limit cannot be judged
    ],
)
def test_a_call_is_refused_when_used_plus_its_estimate_would_pass_a_limit(
    used: int, estimate: Estimate, breached: str | None
) -> None:
    standings = [
        Standing(Limit("agent", "dailyTokens", "tokens", "day", 1000), used, None),
        Standing(Limit("agent", "dailyUsd", "usd", "day", 2.0), 0.0, None),
    ]
    breach = first_breach(standings, estimate)
    assert (breach.limit.name if breach else None) == breached


def test_the_stop_sentence_names_the_limit_the_figures_and_the_reset() -> None:
    now = datetime(2026, 3, 4, 15, 0, tzinfo=UTC)
    standing = Standing(Limit("agent", "dailyTokens", "tokens", "day", 200_000), 198_500, windows(now, LISBON).day_ends)
    stop = budget_stop(standing, Estimate(1_000, 4_096), agent_id="annabelle", skill=None)
    assert stop_sentence(stop, now=now, zone_name="Europe/Lisbon") == (
        "Stopped before calling the model: the daily budget of the agent annabelle (200,000 tokens) would be passed "
        "(used 198,500; this call could take up to 5,096 tokens). It resets at 00:00 Europe/Lisbon."
    )


def test_a_monthly_stop_says_on_which_day_it_resets() -> None:
    now = datetime(2026, 2, 10, 9, 0, tzinfo=UTC)
    standing = Standing(Limit("agent", "monthlyUsd", "usd", "month", 5.0), 4.98, windows(now, LISBON).month_ends)
    stop = budget_stop(standing, Estimate(10, 10, usd=0.05), agent_id="annabelle", skill=None)
    assert stop_sentence(stop, now=now, zone_name="Europe/Lisbon").endswith(
        "(used $4.98; this call could cost up to $0.05). It resets on 1 March at 00:00 Europe/Lisbon."
    )


# -- configuration ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "budgets", [{"dailyTokens": "200k"}, {"dailyTokens": 2e5}, {"monthlyUsd": -1}, {"weeklyTokens": 5}]
)
def test_agents_json_budgets_are_validated_at_load(budgets: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        AgentsConfig.model_validate({"agents": [{"agentId": "a", "budgets": budgets}]})


def test_a_skills_token_limits_are_whole_non_negative_numbers_with_or_without_a_skill_named() -> None:
    # Everything the OpenAPI description allows is accepted (an unnamed run counts by its instructions).
    assert ExecuteSkillRequest.model_validate({"instructions": "x", "dailyTokens": 100}).dailyTokens == 100
    assert ExecuteSkillRequest.model_validate({"instructions": "x", "skillId": 4, "dailyTokens": 100.0}).dailyTokens
    for bad in (-1, 1.5, "100", True):
        with pytest.raises(ValidationError):
            ExecuteSkillRequest.model_validate({"instructions": "x", "maxTokensPerRun": bad})


# -- the ledger -------------------------------------------------------------------------------------------------


def test_the_ledger_sums_days_into_months_and_keeps_them_across_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "budgets" / "annabelle.db"
    ledger = BudgetLedger(path)
    ledger.add([AGENT_SCOPE, skill_scope("id:4")], "2026-02-27", 100, 20, 0.5)
    ledger.add([AGENT_SCOPE], "2026-02-28", 10, 2, None)
    ledger.add([AGENT_SCOPE], "2026-03-01", 1, 1, 0.25)
    ledger.close()
    reopened = BudgetLedger(path)
    february = reopened.month(AGENT_SCOPE, "2026-02")
    assert (february.tokens, february.usd, february.calls, february.unpriced_calls) == (132, 0.5, 2, 1)
    assert reopened.spent(skill_scope("id:4"), "2026-02-27").tokens == 120
    assert migrate(reopened._db) == []  # the migrations ran once


def test_a_notice_is_claimed_once_per_limit_and_window(tmp_path: Path) -> None:
    ledger = BudgetLedger(tmp_path / "l.db")
    assert ledger.claim_notice("agent.dailyTokens", "2026-02-27", "t") is True
    assert ledger.claim_notice("agent.dailyTokens", "2026-02-27", "t") is False
    assert ledger.claim_notice("agent.dailyTokens", "2026-02-28", "t") is True


# -- the guard --------------------------------------------------------------------------------------------------


def guard(tmp_path: Path, budgets: Budgets, clock: FakeClock, *, prompt: int = 100, usd: bool = False) -> BudgetGuard:
    return BudgetGuard(
        BudgetLedger(tmp_path / "annabelle.db"),
        budgets,
        agent_id="annabelle",
        zone=LISBON,
        clock=clock,
        count_tokens=lambda model, messages, tools: prompt,
        output_cap=lambda model: 400,
        price=(lambda model, p, c: (p + c) / 1000) if usd else (lambda model, p, c: None),
    )


def test_the_guard_holds_a_calls_estimate_in_flight_until_it_settles(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 2, 27, 10, 0, tzinfo=UTC))
    gate = guard(tmp_path, Budgets(dailyTokens=1000), clock)
    first = gate.admit("m", [], None, None)  # 500 in flight
    second = gate.admit("m", [], None, None)  # 1000 in flight: exactly the limit
    with pytest.raises(BudgetExceeded) as refused:
        gate.admit("m", [], None, None)
    assert refused.value.stop.used == 1000 and refused.value.stop.notify is True
    gate.settle(first, 60, 40)
    gate.release(second)  # it failed: it spent nothing
    assert gate.ledger.spent(AGENT_SCOPE, "2026-02-27").tokens == 100
    gate.admit("m", [], None, None)


def test_the_owner_is_notified_once_per_window_even_after_a_restart(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 2, 27, 10, 0, tzinfo=UTC))
    gate = guard(tmp_path, Budgets(dailyTokens=100), clock)
    notified = []
    for _ in range(2):
        with pytest.raises(BudgetExceeded) as refused:
            gate.admit("m", [], None, None)
        notified.append(refused.value.stop.notify)
    gate.ledger.close()
    restarted = guard(tmp_path, Budgets(dailyTokens=100), clock)
    with pytest.raises(BudgetExceeded) as refused:
        restarted.admit("m", [], None, None)
    notified.append(refused.value.stop.notify)
    clock.now += timedelta(days=1)
    with pytest.raises(BudgetExceeded) as refused:
        restarted.admit("m", [], None, None)
    notified.append(refused.value.stop.notify)
    assert notified == [True, False, False, True]


def test_runs_are_one_skill_by_id_else_name_else_the_same_instructions() -> None:
    def key(skill_id: int | None, name: str | None, instructions: str) -> str | None:
        limits = SkillLimits.of(skill_id, name, None, 1000, instructions)
        return None if limits is None else limits.key

    assert key(7, "digest", "a") == key(7, "other", "b") == "id:7"
    assert key(None, "digest", "a") == key(None, "digest", "b") == "name:digest"
    assert key(None, None, "sum up my mail") == key(None, "", "sum up my mail") != key(None, None, "sum up the news")
    assert SkillLimits.of(None, None, None, None, "x") is None


def test_a_skill_run_counts_against_its_own_limits_and_the_agents(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 2, 27, 10, 0, tzinfo=UTC))
    gate = guard(tmp_path, Budgets(), clock)
    limits = SkillLimits.of(7, "digest", max_per_run=1200, daily=None)
    with skill_run(limits):
        for _ in range(2):
            gate.settle(gate.admit("m", [], None, None), 400, 200)
        with pytest.raises(BudgetExceeded) as refused:
            gate.admit("m", [], None, None)  # 1200 used in this run + 500 > 1200
    stop = refused.value.stop
    assert (stop.scope, stop.limit, stop.skill, stop.used) == ("skill", "maxTokensPerRun", "digest", 1200)
    assert "the per-run budget of the skill 'digest'" in str(refused.value)
    assert gate.ledger.spent(skill_scope("id:7"), "2026-02-27").tokens == 1200
    assert gate.ledger.spent(AGENT_SCOPE, "2026-02-27").tokens == 1200
    gate.admit("m", [], None, None)  # outside the run, the agent has no limit


def test_usd_limits_apply_only_when_the_price_is_known(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 2, 27, 10, 0, tzinfo=UTC))
    priced = guard(tmp_path / "a", Budgets(dailyUsd=0.4), clock, usd=True)
    with pytest.raises(BudgetExceeded, match=r"\$0.40"):
        priced.admit("m", [], None, None)  # (100 + 400) / 1000 = $0.50
    unpriced = guard(tmp_path / "b", Budgets(dailyUsd=0.4), clock)
    unpriced.admit("m", [], None, None)
    lines, note = unpriced.status("m")
    assert [(line.limit, line.priced) for line in lines] == [("dailyUsd", False)]
    assert note is not None and "litellm knows no price for m" in note


def test_status_shows_spend_against_each_limit_and_todays_skills(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 2, 27, 10, 0, tzinfo=UTC))
    gate = guard(tmp_path, Budgets(dailyTokens=5000, monthlyTokens=90000), clock)
    with skill_run(SkillLimits.of(None, "digest", None, 3000)):
        gate.settle(gate.admit("m", [], None, None), 300, 100)
    lines, note = gate.status("m")
    assert [(line.scope, line.limit, line.used, line.limitValue, line.skill) for line in lines] == [
        ("agent", "dailyTokens", 400, 5000, None),
        ("agent", "monthlyTokens", 400, 90000, None),
        ("skill", "dailyTokens", 400, 3000, "digest"),
    ]
    assert lines[0].resetsAt == "2026-02-28T00:00:00+00:00" and note is None
