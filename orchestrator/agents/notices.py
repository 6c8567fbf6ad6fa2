"""The owner's notice of a cost pause: written from the Thinker's figures (pure), sent once per pause."""

from __future__ import annotations

import logging
from typing import Protocol

from shared.contracts.thinker_api import CostStatus

log = logging.getLogger(__name__)

NOTIFY_KIND = "cost_pause"


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
