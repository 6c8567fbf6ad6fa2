"""Budgets: spend limits judged before each model call, so that a call which could pass one is never made.

The limits (after litellm proxy's budgets):

- the agent's, from agents.json `budgets`: `dailyTokens`, `monthlyTokens`, `dailyUsd`, `monthlyUsd`;
- a skill run's, from the skill: `maxTokensPerRun` (this run) and `dailyTokens` (all of the skill's runs today).

Days and months are the owner's (ANNABELLE_TIMEZONE): a day starts at local midnight, a month on its first day.

Before a call its cost is estimated as an upper bound: the prompt's tokens, counted, plus the most the answer may
take (the request's `max_tokens`, else the model's maximum output, else `DEFAULT_MAX_OUTPUT_TOKENS`); in USD, that
estimate priced by litellm. The call is refused when, for any limit, what the window has spent (plus the calls
still in flight) plus the estimate would pass it. A refused call costs nothing; the turn ends with the sentence
`stop_sentence` writes. After a call its real usage is what counts (`thinker.budget_guard` records it).

A USD limit can only be judged when litellm knows the model's price: for other models (local ones, most
OpenAI-compatible servers) it is skipped and `/cost-status` says so; token limits still apply.

Pure logic: the time and the spend are arguments; `thinker.budget_ledger` keeps the spend, `thinker.budget_guard`
asks this module.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from shared.agents import DEFAULT_MAX_OUTPUT_TOKENS, Budgets
from shared.contracts.thinker_api import (
    BudgetLimit,
    BudgetLine,
    BudgetScope,
    BudgetStanding,
    BudgetStop,
    BudgetUnit,
    BudgetWindow,
)

_WINDOW_WORD: dict[BudgetWindow, str] = {"day": "daily", "month": "monthly", "run": "per-run"}


@dataclass(frozen=True)
class Windows:
    """The owner's current day and month, as ledger keys, and when each ends."""

    day: str
    """`YYYY-MM-DD` in the owner's zone."""
    month: str
    """`YYYY-MM`: the prefix of every day key of the month."""
    day_ends: datetime
    month_ends: datetime


def windows(now: datetime, zone: ZoneInfo) -> Windows:
    """The day and month `now` falls in, in `zone` (DST-safe: the ends are local midnights)."""
    local = now.astimezone(zone)
    today = local.date()
    tomorrow = today + timedelta(days=1)
    first_next = date(today.year + today.month // 12, today.month % 12 + 1, 1)
    return Windows(
        day=today.isoformat(),
        month=today.isoformat()[:7],
        day_ends=datetime.combine(tomorrow, time(0), tzinfo=zone),
        month_ends=datetime.combine(first_next, time(0), tzinfo=zone),
    )


@dataclass(frozen=True)
class Limit:
    scope: BudgetScope
    name: BudgetLimit
    unit: BudgetUnit
    window: BudgetWindow
    value: float


@dataclass(frozen=True)
class SkillLimits:
    """A skill run's own limits (from its ExecuteSkillRequest); `key` identifies the skill in the ledger."""

    key: str
    label: str
    """How a sentence names the skill: its name, else `#<id>`."""
    max_tokens_per_run: int | None = None
    daily_tokens: int | None = None

    @classmethod
    def of(
        cls,
        skill_id: int | str | None,
        name: str | None,
        max_per_run: int | None,
        daily: int | None,
        instructions: str = "",
    ) -> SkillLimits | None:
        """The limits of a run, or None when it has none (0 means no limit, as in a stored skill). Runs count as
        one skill by id, else by name, else (an ad-hoc run over HTTP) by the same instructions."""
        if not max_per_run and not daily:
            return None
        if skill_id is not None:
            key = f"id:{skill_id}"
        elif name:
            key = f"name:{name}"
        else:
            key = "text:" + hashlib.sha256(instructions.encode("utf-8", "replace")).hexdigest()[:16]
        label = name or (f"#{skill_id}" if skill_id is not None else "unnamed")
        return cls(key, label, max_per_run or None, daily or None)


def agent_limits(budgets: Budgets) -> list[Limit]:
    """The agent's limits in the order a refusal names them: the shortest window first, tokens before money."""
    table: list[tuple[BudgetLimit, BudgetUnit, BudgetWindow, float | None]] = [
        ("dailyTokens", "tokens", "day", budgets.dailyTokens),
        ("dailyUsd", "usd", "day", budgets.dailyUsd),
        ("monthlyTokens", "tokens", "month", budgets.monthlyTokens),
        ("monthlyUsd", "usd", "month", budgets.monthlyUsd),
    ]
    return [Limit("agent", name, unit, window, value) for name, unit, window, value in table if value is not None]


def skill_limits(skill: SkillLimits | None) -> list[Limit]:
    if skill is None:
        return []
    limits = []
    if skill.max_tokens_per_run is not None:
        limits.append(Limit("skill", "maxTokensPerRun", "tokens", "run", skill.max_tokens_per_run))
    if skill.daily_tokens is not None:
        limits.append(Limit("skill", "dailyTokens", "tokens", "day", skill.daily_tokens))
    return limits


@dataclass(frozen=True)
class Standing:
    """One limit and what its window has spent so far (calls in flight included)."""

    limit: Limit
    used: float
    resets_at: datetime | None


@dataclass(frozen=True)
class Estimate:
    """The most a call could cost: tokens always, USD when the model's price is known."""

    prompt_tokens: int
    max_output_tokens: int
    usd: float | None = None

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.max_output_tokens


def first_breach(standings: list[Standing], estimate: Estimate) -> Standing | None:
    """The first limit the call could pass (`used + estimate > limit`), or None when it may be made.

    A USD limit is skipped when the price is unknown (`estimate.usd` is None): it cannot be judged."""
    for standing in standings:
        if standing.limit.unit == "tokens":
            cost: float = estimate.tokens
        elif estimate.usd is None:
            continue
        else:
            cost = estimate.usd
        if standing.used + cost > standing.limit.value:
            return standing
    return None


# -- sentences ----------------------------------------------------------------------------------------------------


def amount(value: float, unit: BudgetUnit, *, with_unit: bool = True) -> str:
    """`200,000 tokens` / `$4.98` (cents below a cent shown to four places, so a small spend is not `$0.00`)."""
    if unit == "usd":
        return f"${value:,.2f}" if value == 0 or value >= 0.01 else f"${value:.4f}"
    return f"{round(value):,} tokens" if with_unit else f"{round(value):,}"


def _owner(scope: BudgetScope, agent_id: str, skill: str | None) -> str:
    return f"the skill '{skill}'" if scope == "skill" else f"the agent {agent_id}"


def reset_phrase(resets_at: datetime, now: datetime, zone_name: str) -> str:
    """`It resets at 00:00 Europe/Lisbon.` when that is within a day, else `It resets on 1 March at 00:00 ...`."""
    local_now = now.astimezone(resets_at.tzinfo)
    clock = resets_at.strftime("%H:%M")
    if resets_at - local_now <= timedelta(days=1):
        return f"It resets at {clock} {zone_name}."
    return f"It resets on {resets_at.day} {resets_at.strftime('%B')} at {clock} {zone_name}."


def stop_sentence(stop: BudgetStop, *, now: datetime, zone_name: str) -> str:
    """What the user reads when a budget stopped a turn: which limit, the figures, when it resets."""
    unit: BudgetUnit = stop.unit
    used = amount(stop.used, unit, with_unit=False)
    could = (
        f"cost up to {amount(stop.estimate, unit)}" if unit == "usd" else f"take up to {amount(stop.estimate, unit)}"
    )
    in_run = " in this run" if stop.window == "run" else ""
    text = (
        f"Stopped before calling the model: the {_WINDOW_WORD[stop.window]} budget of "
        f"{_owner(stop.scope, stop.agentId, stop.skill)} ({amount(stop.limitValue, unit)}) would be passed "
        f"(used {used}{in_run}; this call could {could})."
    )
    if stop.resetsAt is not None:
        text += " " + reset_phrase(datetime.fromisoformat(stop.resetsAt), now, zone_name)
    return text


def _on_the_wire(standing: Standing, skill: str | None) -> BudgetStanding:
    limit = standing.limit
    return BudgetStanding(
        scope=limit.scope,
        limit=limit.name,
        unit=limit.unit,
        window=limit.window,
        limitValue=limit.value,
        used=round(standing.used, 6),
        skill=skill,
        resetsAt=standing.resets_at.isoformat() if standing.resets_at is not None else None,
    )


def budget_stop(standing: Standing, estimate: Estimate, *, agent_id: str, skill: str | None) -> BudgetStop:
    limit = standing.limit
    cost = float(estimate.tokens) if limit.unit == "tokens" else float(estimate.usd or 0.0)
    base = _on_the_wire(standing, skill if limit.scope == "skill" else None)
    return BudgetStop(**base.model_dump(), estimate=round(cost, 6), agentId=agent_id)


def notice_key(stop: BudgetStop, skill_key: str | None) -> str:
    """The ledger's name for a limit, for "notify the owner once per window": `agent.dailyTokens`,
    `skill:<key>.maxTokensPerRun`."""
    owner = "agent" if stop.scope == "agent" else f"skill:{skill_key}"
    return f"{owner}.{stop.limit}"


def budget_line(standing: Standing, *, skill: str | None = None, priced: bool = True) -> BudgetLine:
    base = _on_the_wire(standing, skill)
    return BudgetLine(**base.model_dump(), priced=priced if standing.limit.unit == "usd" else True)


__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "Estimate",
    "Limit",
    "SkillLimits",
    "Standing",
    "Windows",
    "agent_limits",
    "amount",
    "budget_line",
    "budget_stop",
    "first_breach",
    "notice_key",
    "reset_phrase",
    "skill_limits",
    "stop_sentence",
    "windows",
]
