"""The Telegram channel: poll the Telegram MCP's intake, answer each message once, in order per chat.

The MCP does the Bot API polling and keeps every message until the hub marks it handled, which happens only
together with the delivered reply (`intake_reply`) or when the hub decides to skip it (`intake_done`). So a
hub that dies mid-answer finds the message pending again after its restart, and a message that was answered
is never answered twice. Chats are served concurrently (up to `MAX_CONCURRENT_CHATS`); within a chat,
messages are answered one at a time, oldest first. While the agent works the chat shows "typing…".

Polling starts once the MCP has its bot token (at start-up, or when it appears in .env later). When the MCP is
down, the poller waits and tries again with a growing interval (the MCP's own restart logic brings it back). A reply that cannot be delivered is kept and delivered on a later round
without asking the agent again; after `MAX_DELIVERY_ATTEMPTS` the message is given up (logged).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
from pydantic import ValidationError

from orchestrator.approvals.announce import decided_text
from orchestrator.approvals.store import AlreadyDecided, Approval, ApprovalNotFound
from orchestrator.callers import system
from orchestrator.channels.dispatch import Dispatcher, InboundMessage, Outcome
from orchestrator.channels.intake import PendingMessage, agent_text, is_owner, stale_notice, triage
from orchestrator.commands.registry import is_command
from shared.timeutil import Clock, utc_now

if TYPE_CHECKING:
    from orchestrator.halt import HaltState
    from orchestrator.hub import Hub

log = logging.getLogger(__name__)

CHANNEL = "telegram"
MAX_CONCURRENT_CHATS = 4
MAX_DELIVERY_ATTEMPTS = 5
TYPING_EVERY_SECONDS = 4.0
IDLE_BACKOFF_MAX_SECONDS = 10.0
INTAKE = system("telegram intake")


class TelegramChannel:
    def __init__(
        self,
        hub: Hub,
        dispatcher: Dispatcher,
        halt: HaltState,
        *,
        poll_interval: float,
        stale_after: timedelta,
        clock: Clock = utc_now,
        typing_every: float = TYPING_EVERY_SECONDS,
    ) -> None:
        self.hub = hub
        self.dispatcher = dispatcher
        self.halt = halt
        self.poll_interval = poll_interval
        self.stale_after = stale_after
        self.clock = clock
        self.typing_every = typing_every
        self.bot_id: int | None = None
        self.allowed: frozenset[int] = frozenset()
        self.in_flight: set[int] = set()
        self.finished: set[int] = set()
        """Keys this channel marked handled that a pending list may still hold: one read before the mark
        arrives after it (a chat can finish while a poll round awaits a call), so they must not be answered
        again. A key leaves the set when a pending list no longer holds it."""
        self.undelivered: dict[int, str] = {}
        self.attempts: dict[int, int] = {}
        self.handled = 0
        self._chats_busy: set[int] = set()
        # Created in `run`: anyio primitives need the event loop, and the app is built before it exists.
        self._slots: anyio.Semaphore | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._scope: anyio.CancelScope | None = None

    # -- the loop ---------------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Poll until `stop`; chats being answered when it stops stay pending and are answered after a restart.

        Polling starts once the Telegram MCP has its bot token: at once when it had one at start-up, else when the
        token appears in .env and the hub starts the MCP with it (without one it answers "not configured" to every
        call, and asking it would start it before its time)."""
        delay = self.poll_interval
        self._slots = anyio.Semaphore(MAX_CONCURRENT_CHATS)
        self._scope = anyio.CancelScope()
        with self._scope:
            await self.hub.until_configured(CHANNEL)
            log.info("telegram polling starts")
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                while True:
                    worked = await self.poll_once()
                    delay = self.poll_interval if worked else min(delay * 2, IDLE_BACKOFF_MAX_SECONDS)
                    await anyio.sleep(delay)

    def stop(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    async def poll_once(self) -> bool:
        """One round: read pending messages, skip what must be skipped, start the chats that have work.

        Returns False when the MCP could not be asked (down or not configured), so the caller slows down.
        """
        envelope = await self._call("telegram_intake_pending", {"limit": 200})
        if not envelope.get("success"):
            return False
        data = envelope.get("data") or {}
        self._learn(data)
        for press in data.get("callbacks") or []:
            await self._button_pressed(press)
        messages = self._parse(data.get("messages") or [])
        self.finished &= {message.message_key for message in messages}
        sorted_out = triage(
            messages,
            bot_id=self.bot_id,
            now=self.clock(),
            stale_after=self.stale_after,
            in_flight=self.in_flight | self.finished,
        )
        if sorted_out.own:
            await self._done(sorted_out.own, "written by the bot")
        if sorted_out.stale:
            await self._skip_stale(sorted_out.stale)
        by_chat: dict[int, list[PendingMessage]] = {}
        for message in sorted_out.handle:
            by_chat.setdefault(message.chat_id, []).append(message)
        for chat_id, queue in by_chat.items():
            if chat_id in self._chats_busy:
                continue  # that chat's worker picks these up on a later round, in order
            self._chats_busy.add(chat_id)
            self.in_flight.update(message.message_key for message in queue)
            if self._tasks is None:
                await self._serve_chat(chat_id, queue)
            else:
                self._tasks.start_soon(self._serve_chat, chat_id, queue)
        return True

    async def _button_pressed(self, press: dict[str, Any]) -> None:
        """An Approve / Deny button under an approval request (orchestrator/approvals/): the owner decides."""
        kind, _, approval_id = str(press.get("data") or "").partition(":")
        notice, record = self._decide(kind, approval_id, str(press.get("chat_id")))
        arguments: dict[str, Any] = {"callback_key": press["callback_key"], "notice": notice}
        if record is not None:
            arguments["new_text"] = decided_text(record)
        envelope = await self._call("telegram_intake_answer", arguments)
        log.info(
            "approval button handled", extra={"approval": approval_id, "notice": notice, "ok": envelope.get("success")}
        )

    def _decide(self, kind: str, approval_id: str, chat_id: str) -> tuple[str, Approval | None]:
        """What the person who pressed is told, and the request as it now stands (None when there is none)."""
        if kind not in ("approve", "deny") or not approval_id:
            return "This button does nothing any more.", None
        if chat_id != self.hub.notifier.default_chat_id:
            return "Only the owner answers approval requests.", None
        try:
            record = self.hub.approvals.decide(approval_id, kind, "the owner (Telegram)")
        except ApprovalNotFound:
            return "That request is not known any more.", None
        except AlreadyDecided as exc:
            return f"Already {exc.record.status}.", exc.record
        return ("Approved." if record.status == "approved" else "Denied."), record

    def _learn(self, data: dict[str, Any]) -> None:
        bot_id = data.get("bot_id")
        self.bot_id = bot_id if isinstance(bot_id, int) else self.bot_id
        self.allowed = frozenset(int(chat) for chat in data.get("allowed_chat_ids") or [])
        owner = data.get("owner_chat_id")
        if owner is not None:
            self.hub.notifier.owner_chat_id = str(owner)
        elif len(self.allowed) == 1:
            self.hub.notifier.owner_chat_id = str(next(iter(self.allowed)))

    @staticmethod
    def _parse(rows: list[Any]) -> list[PendingMessage]:
        messages = []
        for row in rows:
            try:
                messages.append(PendingMessage.model_validate(row))
            except ValidationError as exc:
                log.error("telegram intake row unreadable, skipped", extra={"row": str(row)[:200], "error": str(exc)})
        return messages

    # -- one chat ---------------------------------------------------------------------------------------------

    async def _serve_chat(self, chat_id: int, queue: list[PendingMessage]) -> None:
        try:
            async with self._slots or anyio.Semaphore(1):
                for message in queue:
                    if not await self._serve(message):
                        # Its reply is kept and goes first next round: nothing later in this chat overtakes it.
                        break
        finally:
            self._chats_busy.discard(chat_id)
            self.in_flight.difference_update(message.message_key for message in queue)

    async def _serve(self, message: PendingMessage) -> bool:
        """Answer (or re-deliver) one message; False when its reply could not be delivered yet."""
        reply = self.undelivered.get(message.message_key)
        if reply is None:
            if self.halt.halted("channel") and not is_command(message.text):
                reply = self.halt.notice("channel")
            else:
                reply = await self._answer(message)
            if reply is None:
                await self._done([message], "the answer was empty")
                return True
        return await self._deliver(message, reply)

    async def _answer(self, message: PendingMessage) -> str | None:
        inbound = InboundMessage(
            channel=CHANNEL,
            chat_id=str(message.chat_id),
            text=agent_text(message),
            owner=is_owner(message, self.allowed),
            message_id=str(message.message_id),
            private=message.from_id is not None and message.from_id == message.chat_id,
        )
        async with anyio.create_task_group() as typing:
            typing.start_soon(self._keep_typing, message.chat_id)
            try:
                outcome = await self.dispatcher.dispatch(inbound)
            finally:
                typing.cancel_scope.cancel()
        return self._reply_text(message, outcome)

    def _reply_text(self, message: PendingMessage, outcome: Outcome) -> str | None:
        log.info(
            "telegram message handled",
            extra={
                "chat": message.chat_id,
                "key": message.message_key,
                "kind": outcome.kind,
                "agent": outcome.agent_id,
            },
        )
        text = outcome.reply.strip()
        if outcome.notice and outcome.kind == "answer":
            text = f"{text}\n\n{outcome.notice}"
        return text or None

    async def _keep_typing(self, chat_id: int) -> None:
        while True:
            await self._call("telegram_intake_typing", {"chat_id": str(chat_id)})
            # Telegram shows "typing…" for about five seconds: repeated until the answer is there, however long.
            await anyio.sleep(self.typing_every)

    async def _deliver(self, message: PendingMessage, reply: str) -> bool:
        """True when the reply reached Telegram, or was given up after `MAX_DELIVERY_ATTEMPTS` (so the chat moves
        on); False when it is kept for the next round."""
        key = message.message_key
        envelope = await self._call("telegram_intake_reply", {"message_key": key, "message": reply})
        if envelope.get("success"):
            self.undelivered.pop(key, None)
            self.attempts.pop(key, None)
            self.finished.add(key)
            self.handled += 1
            return True
        attempts = self.attempts.get(key, 0) + 1
        if attempts >= MAX_DELIVERY_ATTEMPTS:
            log.error(
                "telegram reply given up", extra={"key": key, "chat": message.chat_id, "error": envelope.get("error")}
            )
            self.undelivered.pop(key, None)
            self.attempts.pop(key, None)
            await self._done([message], "reply could not be delivered")
            return True
        self.attempts[key] = attempts
        self.undelivered[key] = reply
        log.warning("telegram reply not delivered, will retry", extra={"key": key, "error": envelope.get("error")})
        return False

    # -- skipping ---------------------------------------------------------------------------------------------

    async def _skip_stale(self, stale: list[PendingMessage]) -> None:
        await self._done(stale, f"older than {self.stale_after}")
        by_chat: dict[int, list[PendingMessage]] = {}
        for message in stale:
            by_chat.setdefault(message.chat_id, []).append(message)
        for chat_id, skipped in by_chat.items():
            await self._call("telegram_send_message", {"chat_id": str(chat_id), "message": stale_notice(skipped)})

    async def _done(self, messages: list[PendingMessage], why: str) -> None:
        keys = [message.message_key for message in messages]
        envelope = await self._call("telegram_intake_done", {"message_keys": keys})
        if envelope.get("success"):
            self.finished.update(keys)
        log.info("telegram messages skipped", extra={"keys": keys, "why": why, "ok": envelope.get("success")})

    async def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.hub.call(name, arguments, caller=INTAKE)
