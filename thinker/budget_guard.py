"""The budget guard: the edge between `thinker.budgets` (the rules) and the model calls and the ledger (the I/O).

`ModelClient.complete` asks `admit` before every call, with the request it is about to send: the guard estimates
the call (prompt tokens counted by litellm, plus the request's `max_tokens` or the model's largest answer),
reads what each limit's window has spent from the ledger, adds what calls in flight may still spend, and either
lets the call go (keeping its estimate "in flight" until it settles) or raises `BudgetExceeded`. After the call,
`settle` writes the real usage to the ledger (one transaction: the agent's row and the skill's).

A skill run's own limits travel in a context variable (`skill_run`), so every call the run makes (the loop, the
hallucination retry) is counted against them without the loop knowing; calls outside a run (chat turns,
compaction, fact extraction) count against the agent's limits only.

The first refusal of a limit in a window claims a notice in the ledger: `BudgetStop.notify` is true for it
alone, so the hub tells the owner once per window, across restarts. A run's limit notifies once per day.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from shared.agents import Budgets
from shared.contracts.thinker_api import BudgetLine
from shared.litellm_loader import load_litellm
from shared.timeutil import Clock, format_timestamp, utc_now
from thinker.budget_ledger import AGENT_SCOPE, BudgetLedger, SkillSeen, ledger_path, skill_scope
from thinker.budgets import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    Estimate,
    Limit,
    SkillLimits,
    Standing,
    Windows,
    agent_limits,
    budget_line,
    budget_stop,
    first_breach,
    notice_key,
    skill_limits,
    stop_sentence,
    windows,
)
from thinker.llm import BudgetExceeded

log = logging.getLogger(__name__)

Pricer = Callable[[str, int, int], float | None]
"""(model, prompt tokens, completion tokens) → USD, or None when the price is unknown."""
TokenCounter = Callable[[str, Sequence[Any], Sequence[dict[str, Any]] | None], int]
"""(model, messages, tools) → the prompt's tokens."""
OutputCap = Callable[[str], int | None]
"""model → the most tokens its answer may take, when known."""


# -- litellm's knowledge (the default seams) ---------------------------------------------------------------------


def litellm_price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    try:
        prompt_usd, completion_usd = load_litellm().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # litellm raises for every model it has no price for
        return None
    return float(prompt_usd) + float(completion_usd)


def litellm_token_count(model: str, messages: Sequence[Any], tools: Sequence[dict[str, Any]] | None) -> int:
    try:
        return int(load_litellm().token_counter(model=model, messages=list(messages), tools=tools))
    except Exception:
        # A message shape the counter cannot read: about four characters a token, rounded up generously.
        return len(json.dumps([list(messages), tools], ensure_ascii=False, default=str)) // 3 + 1


def litellm_output_cap(model: str) -> int | None:
    try:
        info = load_litellm().get_model_info(model)
    except Exception:
        return None
    cap = info.get("max_output_tokens") or info.get("max_tokens")
    return int(cap) if isinstance(cap, int) and cap > 0 else None


# -- a skill run's context -----------------------------------------------------------------------------------------


@dataclass
class RunBudget:
    """One skill run's limits and what the run has spent so far."""

    skill: SkillLimits
    tokens: int = 0


_run: ContextVar[RunBudget | None] = ContextVar("budget_run", default=None)


@contextmanager
def skill_run(skill: SkillLimits | None) -> Iterator[RunBudget | None]:
    """Count the model calls made inside against `skill`'s limits (nothing extra when it has none)."""
    run = RunBudget(skill) if skill is not None else None
    token = _run.set(run)
    try:
        yield run
    finally:
        _run.reset(token)


@dataclass
class Ticket:
    """An admitted call: its estimate stays in flight until `settle` or `release`."""

    model: str
    estimate: Estimate
    run: RunBudget | None
    scopes: tuple[str, ...]
    settled: bool = field(default=False)


class BudgetGuard:
    """One agent's budgets, its ledger and the calls in flight; see the module docstring."""

    def __init__(
        self,
        ledger: BudgetLedger,
        budgets: Budgets,
        *,
        agent_id: str,
        zone: ZoneInfo,
        clock: Clock = utc_now,
        count_tokens: TokenCounter = litellm_token_count,
        output_cap: OutputCap = litellm_output_cap,
        price: Pricer = litellm_price,
    ) -> None:
        self.ledger = ledger
        self.budgets = budgets
        self.agent_id = agent_id
        self.zone = zone
        self._clock = clock
        self._count_tokens = count_tokens
        self._output_cap = output_cap
        self._price = price
        # What admitted calls may still spend, per ledger scope: (tokens, USD).
        self._in_flight: dict[str, tuple[int, float]] = {}
        self._unpriced_models: set[str] = set()
        self.ledger.prune(windows(clock(), zone).day)

    @property
    def zone_name(self) -> str:
        return self.zone.key

    # -- before and after a call ---------------------------------------------------------------------------

    def admit(
        self, model: str, messages: Sequence[Any], tools: Sequence[dict[str, Any]] | None, max_tokens: int | None
    ) -> Ticket:
        """Let a call go (its estimate held in flight) or raise `BudgetExceeded` naming the first limit it could
        pass. Synchronous, so two calls of one event loop cannot both slip under the same limit."""
        run = _run.get()
        skill = run.skill if run is not None else None
        scopes = (AGENT_SCOPE,) + ((skill_scope(skill.key),) if skill is not None else ())
        limits = agent_limits(self.budgets) + skill_limits(skill)
        if not limits:
            return Ticket(model, Estimate(0, 0), run, scopes)
        now = self._clock()
        window = windows(now, self.zone)
        if skill is not None:
            self.ledger.remember_skill(
                SkillSeen(skill.key, skill.label, skill.max_tokens_per_run, skill.daily_tokens), window.day
            )
        prompt = self._count_tokens(model, messages, tools)
        output = max_tokens or self._output_cap(model) or DEFAULT_MAX_OUTPUT_TOKENS
        usd = self._price(model, prompt, output)
        if usd is None:
            self._unpriced_models.add(model)
        estimate = Estimate(prompt, output, usd)
        standings = [self._standing(limit, window, skill, run) for limit in limits]
        breach = first_breach(standings, estimate)
        if breach is None:
            self._hold(scopes, estimate.tokens, estimate.usd or 0.0)
            return Ticket(model, estimate, run, scopes)
        stop = budget_stop(breach, estimate, agent_id=self.agent_id, skill=skill.label if skill else None)
        key = notice_key(stop, skill.key if skill is not None else None)
        window_key = window.month if stop.window == "month" else window.day
        notify = self.ledger.claim_notice(key, window_key, format_timestamp(now))
        stop = stop.model_copy(update={"notify": notify})
        sentence = stop_sentence(stop, now=now, zone_name=self.zone_name)
        log.warning("model call refused by a budget", extra={"agent": self.agent_id, "limit": key, "notify": notify})
        raise BudgetExceeded(sentence, stop)

    def settle(self, ticket: Ticket, prompt_tokens: int, completion_tokens: int) -> None:
        """Count the call's real usage (the ledger, the run) and drop its estimate from the calls in flight."""
        self.release(ticket)
        ticket.settled = True
        usd = self._price(ticket.model, prompt_tokens, completion_tokens)
        day = windows(self._clock(), self.zone).day
        self.ledger.add(ticket.scopes, day, prompt_tokens, completion_tokens, usd)
        if ticket.run is not None:
            ticket.run.tokens += max(0, prompt_tokens) + max(0, completion_tokens)

    def release(self, ticket: Ticket) -> None:
        """The call spent nothing we know of (it failed): its estimate is no longer in flight."""
        if ticket.settled:
            return
        self._hold(ticket.scopes, -ticket.estimate.tokens, -(ticket.estimate.usd or 0.0))

    def _hold(self, scopes: Sequence[str], tokens: int, usd: float) -> None:
        for scope in scopes:
            held_tokens, held_usd = self._in_flight.get(scope, (0, 0.0))
            held = (max(0, held_tokens + tokens), max(0.0, held_usd + usd))
            if held == (0, 0.0):
                self._in_flight.pop(scope, None)
            else:
                self._in_flight[scope] = held

    # -- standings -----------------------------------------------------------------------------------------

    def _standing(self, limit: Limit, window: Windows, skill: SkillLimits | None, run: RunBudget | None) -> Standing:
        if limit.window == "run":
            return Standing(limit, run.tokens if run is not None else 0, None)
        scope = AGENT_SCOPE if limit.scope == "agent" else skill_scope(skill.key if skill else "")
        if limit.window == "day":
            spend, resets = self.ledger.spent(scope, window.day), window.day_ends
        else:
            spend, resets = self.ledger.month(scope, window.month), window.month_ends
        held_tokens, held_usd = self._in_flight.get(scope, (0, 0.0))
        used = spend.tokens + held_tokens if limit.unit == "tokens" else spend.usd + held_usd
        return Standing(limit, used, resets)

    def status(self, model: str) -> tuple[list[BudgetLine], str | None]:
        """Spend against each limit of the agent and of the skills that ran with limits today; and a sentence
        when a USD limit cannot be judged because `model` has no known price."""
        window = windows(self._clock(), self.zone)
        priced = self._price(model, 1, 1) is not None
        lines = [
            budget_line(self._standing(limit, window, None, None), priced=priced)
            for limit in agent_limits(self.budgets)
        ]
        for seen in self.ledger.skills_since(window.day):
            skill = SkillLimits(seen.key, seen.label, None, seen.daily_tokens)
            lines += [
                budget_line(self._standing(limit, window, skill, None), skill=seen.label)
                for limit in skill_limits(skill)
            ]
        note = None
        if not priced and (self.budgets.dailyUsd is not None or self.budgets.monthlyUsd is not None):
            note = (
                f"litellm knows no price for {model}, so the USD limits cannot be judged for it; "
                "the token limits still apply."
            )
        return lines, note


def open_guard(
    data_dir: Path, budgets: Budgets, *, agent_id: str, zone: ZoneInfo, clock: Clock = utc_now, **seams: Any
) -> BudgetGuard:
    """The guard of `agent_id`, on its ledger under `data_dir` (created on first use)."""
    return BudgetGuard(
        BudgetLedger(ledger_path(data_dir, agent_id)), budgets, agent_id=agent_id, zone=zone, clock=clock, **seams
    )


__all__ = [
    "BudgetGuard",
    "RunBudget",
    "Ticket",
    "litellm_output_cap",
    "litellm_price",
    "litellm_token_count",
    "open_guard",
    "skill_run",
]
