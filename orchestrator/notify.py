"""The one way the hub tells the owner something (skill failures, cost pauses, MCP changes, health alerts).

A notification goes to `NOTIFY_CHAT_ID`, else to the owner's chat the channel manager learned from the Telegram
MCP; a caller may name another chat (an agent's `costControls.notifyChatId`). With no chat or no channel, it
goes to the log only. Every notification is logged, delivered or not.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from orchestrator.callers import Caller, system

log = logging.getLogger(__name__)

SEND_TOOL = "telegram_send_message"
NOTIFICATION = system("notification")


class ToolCaller(Protocol):
    async def __call__(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]: ...


class Notifier:
    def __init__(self, call: ToolCaller, configured_chat_id: str | None = None) -> None:
        self._call = call
        self.configured_chat_id = configured_chat_id
        self.owner_chat_id: str | None = None

    @property
    def default_chat_id(self) -> str | None:
        return self.configured_chat_id or self.owner_chat_id

    async def notify(self, text: str, *, chat_id: str | None = None, kind: str = "info") -> bool:
        """Send `text` to `chat_id` (or the default chat); True when the channel accepted it."""
        target = chat_id or self.default_chat_id
        if target is None:
            log.info("notification (no chat to send it to)", extra={"kind": kind, "text": text})
            return False
        envelope = await self._call(SEND_TOOL, {"chat_id": target, "message": text}, caller=NOTIFICATION)
        if envelope.get("success"):
            log.info("notification sent", extra={"kind": kind, "chat": target, "text": text})
            return True
        log.warning(
            "notification not delivered",
            extra={"kind": kind, "chat": target, "text": text, "error": envelope.get("error")},
        )
        return False
