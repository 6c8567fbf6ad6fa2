"""The owner's notices: a cost pause (written from the Thinker's figures, sent once per pause) and a budget stop
(the Thinker's sentence, sent for the stop it marked `notify`: once per limit and window, across restarts)."""

from __future__ import annotations

import logging
from typing import Protocol

from shared.contracts.thinker_api import BudgetStop, CostStatus

log = logging.getLogger(__name__)

NOTIFY_KIND = "cost_pause"
BUDGET_NOTIFY_KIND = "budget"


class Notify(Protocol):
    async def notify(self, text: str, *, chat_id: str | None = None, kind: str = "info") -> bool: ...


def pause_announcement(agent_id: str, status: CostStatus | None, reason: str | None) -> str:
    """The owner's notice of a cost pause, with the cost monitor's figures when the Thinker gave them."""
    why = (status.pauseReason if status is not None else None) or reason
    why = why or "its token usage crossed the agent's cost limits"
    text = f"The agent {agent_id!r} is paused by its cost controls: {why.rstrip('.')}."
    if status is not None and status.hardCapTokensPerHour:
        text += f" Tokens this hour: {status.currentHourTokens:,} of a {status.hardCapTokensPerHour:,} cap."
    if status is not None and status.shortWindowMinutes:
        text += (
            f" Last {status.shortWindowMinutes} minutes: {status.shortWindowTokensPerMinute:,.0f} tokens/min "
            f"against a baseline of {status.baselineTokensPerMinute:,.0f} tokens/min."
        )
    return text + f" It answers no messages until resumed: send /resume or POST /agents/{agent_id}/resume."


async def announce_pause(
    notifier: Notify | None, agent_id: str, status: CostStatus | None, reason: str | None, chat_id: str | None
) -> None:
    text = pause_announcement(agent_id, status, reason)
    try:
        if notifier is None:
            log.warning("cost pause (no notifier)", extra={"agent": agent_id, "text": text})
            return
        await notifier.notify(text, chat_id=chat_id, kind=NOTIFY_KIND)
    except Exception:  # a failed notice must not take the hub's task group down with it
        log.exception("cost pause announcement failed", extra={"agent": agent_id})


def budget_announcement(stop: BudgetStop, sentence: str | None) -> str:
    """The owner's notice of a budget stop: what was stopped, the Thinker's sentence, and how to lift it."""
    what = f"The skill '{stop.skill}' of the agent {stop.agentId!r}" if stop.skill else f"The agent {stop.agentId!r}"
    why = (sentence or f"its {stop.limit} budget would be passed").strip()
    return (
        f"{what} reached a budget; no more model calls for it until the limit resets. {why} "
        "To change the limit, edit its budgets (agents.json, or the skill's maxTokensPerRun/dailyTokens)."
    )


async def announce_budget(notifier: Notify | None, stop: BudgetStop, sentence: str | None, chat_id: str | None) -> None:
    text = budget_announcement(stop, sentence)
    try:
        if notifier is None:
            log.warning("budget stop (no notifier)", extra={"agent": stop.agentId, "text": text})
            return
        await notifier.notify(text, chat_id=chat_id, kind=BUDGET_NOTIFY_KIND)
    except Exception:  # a failed notice must not take the hub's task group down with it
        log.exception("budget stop announcement failed", extra={"agent": stop.agentId})
