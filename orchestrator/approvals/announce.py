"""Telling the owner a call waits for them: one message with what, why, and how to answer. Pure text, plus the
sender the app wires in (Telegram buttons when the channel runs, the notifier otherwise)."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from orchestrator.approvals.gate import Announce
from orchestrator.approvals.store import Approval
from orchestrator.callers import Caller, system
from orchestrator.notify import Notifier
from shared.text import clip

log = logging.getLogger(__name__)

ASK_TOOL = "telegram_intake_ask"
"""The Telegram MCP's privileged tool: a message with Approve / Deny buttons."""
ASKING = system("approval request")


class AnnounceHost(Protocol):
    """What announcing needs of the hub (`orchestrator.hub.Hub` is one)."""

    notifier: Notifier

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]: ...


def approval_text(record: Approval) -> str:
    """The request as the owner reads it (pure)."""
    arguments = "; ".join(f"{key}: {clip(str(value), 120)}" for key, value in record.arguments.items()) or "none"
    return (
        f"Approval needed ({record.id}): the agent {record.agentId!r} wants to run {record.tool}.\n"
        f"Why I ask: {record.reason}.\n"
        f"Arguments: {arguments}\n"
        f"Answer before {record.expiresAt}: /approve {record.id} or /deny {record.id} "
        f"(or `annabelle approvals approve {record.id}`). Nothing happens unless you approve."
    )


def decided_text(record: Approval) -> str:
    outcome = {
        "approved": "Approved: it runs",
        "denied": "Denied: it did not run",
        "expired": "Expired: it did not run",
    }
    return f"{outcome.get(record.status, record.status)} — {record.tool} for {record.agentId!r} ({record.id})."


def approval_announcer(hub: AnnounceHost) -> Announce:
    """The gate's `announce`: buttons in the owner's Telegram chat when the channel can, else a notification."""

    async def announce(record: Approval) -> None:
        chat = hub.notifier.default_chat_id
        if chat is not None:
            arguments = {"chat_id": chat, "text": approval_text(record), "approval_id": record.id}
            envelope = await hub.call(ASK_TOOL, arguments, caller=ASKING)
            if envelope.get("success"):
                return
            log.info("approval buttons not sent; notifying instead", extra={"error": envelope.get("error")})
        await hub.notifier.notify(approval_text(record), kind="approval")

    return announce
