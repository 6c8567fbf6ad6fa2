"""The Telegram service: a python-telegram-bot `Bot`, the local store, the access policy and the polling loop."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from telegram import Bot, CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message, ReplyParameters, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest, TelegramError

from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure
from shared.private_files import private_dir
from telegram_mcp.access import Decision, decide, new_pairing_code
from telegram_mcp.markup import split_markdown, to_telegram_html
from telegram_mcp.paths import confine
from telegram_mcp.settings import TelegramSettings
from telegram_mcp.store import Store
from telegram_mcp.text import MAX_MESSAGE_CHARS

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
MAX_BACKOFF_SECONDS = 30.0


def message_fields(message: Message, *, outgoing: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """The store's rows for a PTB message: (message, chat)."""
    chat = message.chat
    sender = message.from_user
    media_kind = media_id = media_name = None
    if message.document is not None:
        media_kind, media_id, media_name = "document", message.document.file_id, message.document.file_name
    elif message.photo:
        media_kind, media_id = "photo", message.photo[-1].file_id
    elif message.voice is not None:
        media_kind, media_id = "voice", message.voice.file_id
    elif message.audio is not None:
        media_kind, media_id, media_name = "audio", message.audio.file_id, message.audio.file_name
    elif message.video is not None:
        media_kind, media_id, media_name = "video", message.video.file_id, message.video.file_name
    date = message.date.timestamp()
    row = {
        "chat_id": chat.id,
        "message_id": message.message_id,
        "from_id": sender.id if sender else None,
        "from_name": sender.full_name if sender else None,
        "outgoing": outgoing,
        "text": message.text or message.caption or "",
        "date": date,
        "media_kind": media_kind,
        "media_file_id": media_id,
        "media_file_name": media_name,
        "reply_to": message.reply_to_message.message_id if message.reply_to_message else None,
    }
    title = chat.title or " ".join(part for part in (chat.first_name, chat.last_name) if part) or None
    chat_row = {
        "chat_id": chat.id,
        "type": chat.type,
        "title": title,
        "username": chat.username,
        "last_message_at": date,
    }
    return row, chat_row


class TelegramService:
    def __init__(self, settings: TelegramSettings, bot: Bot | None = None) -> None:
        if settings.telegram_bot_token is None:
            raise ValueError("TELEGRAM_BOT_TOKEN is not set")
        token = settings.telegram_bot_token.get_secret_value()
        base = settings.telegram_api_base
        self.settings = settings
        self.bot = bot or Bot(token, base_url=f"{base}/bot", base_file_url=f"{base}/file/bot")
        self.store = Store(settings.store_path)
        self.workspace = settings.workspace
        self.allowed = settings.allowed_chat_ids
        self.pairing_code: str | None = None
        # A bot token is "<bot id>:<secret>": the id is known before getMe answers.
        prefix = token.split(":", 1)[0]
        self.bot_id: int | None = int(prefix) if prefix.isdigit() else None
        if not self.allowed and self.store.owner_chat_id is None:
            self.pairing_code = new_pairing_code()
            log.warning("telegram is not paired: send '/pair %s' to the bot from your private chat", self.pairing_code)

    async def start(self) -> None:
        """getMe and deleteWebhook, as a poller must before getUpdates."""
        await self.bot.initialize()
        await self.bot.delete_webhook()
        log.info("telegram bot ready", extra={"bot_id": self.bot.id})

    async def close(self) -> None:
        try:
            await self.bot.shutdown()
        finally:
            self.store.close()

    # --- access --------------------------------------------------------------------------------------------
    def accepted_chats(self) -> frozenset[int]:
        if self.allowed:
            return self.allowed
        owner = self.store.owner_chat_id
        return frozenset() if owner is None else frozenset({owner})

    def require_allowed(self, chat_id: int) -> None:
        if chat_id not in self.accepted_chats():
            if not self.allowed and self.store.owner_chat_id is None:
                raise NotAllowed(
                    "No chat is paired yet: send '/pair <code>' (the code is in the log) to the bot first."
                )
            raise NotAllowed(f"Chat {chat_id} is not on the allow-list (TELEGRAM_ALLOWED_CHAT_IDS or the paired chat).")

    # --- polling -------------------------------------------------------------------------------------------
    async def poll_once(self) -> int:
        """One getUpdates call; every update is stored with its offset. Returns how many updates came."""
        updates = await self.bot.get_updates(
            offset=self.store.update_offset,
            timeout=self.settings.telegram_poll_timeout_seconds,
            allowed_updates=["message", "callback_query"],
            read_timeout=self.settings.telegram_poll_timeout_seconds + 10,
        )
        for update in updates:
            await self.handle_update(update)
        return len(updates)

    async def handle_update(self, update: Update) -> None:
        if update.callback_query is not None:
            self._record_press(update.update_id, update.callback_query)
            return
        message = update.message
        if message is None:
            self.store.record_update(update.update_id, None, None)
            return
        chat = message.chat
        decision = decide(
            chat.id,
            chat.type,
            message.text,
            allowed=self.allowed,
            owner=self.store.owner_chat_id,
            pairing_code=self.pairing_code,
        )
        if decision is Decision.IGNORE:
            log.info("telegram message from a chat not allowed was ignored", extra={"chat_id": chat.id})
            self.store.record_update(update.update_id, None, None)
            return
        if decision is Decision.PAIR:
            self.store.set_owner(chat.id)
            self.pairing_code = None
            _, chat_row = message_fields(message)
            self.store.record_update(update.update_id, None, chat_row)
            log.warning("telegram paired with the owner's chat", extra={"chat_id": chat.id})
            try:
                await self.send_message(chat.id, "Paired: this chat is now the owner's chat.")
            except (TelegramError, ToolFailure) as exc:
                log.warning("pairing confirmation not sent: %s", exc)
            return
        row, chat_row = message_fields(message)
        self.store.record_update(update.update_id, row, chat_row)

    def _record_press(self, update_id: int, query: CallbackQuery) -> None:
        """A button pressed under one of the bot's messages: kept for the hub (approvals) if its chat is accepted."""
        chat_id = query.message.chat.id if query.message is not None else query.from_user.id
        if chat_id not in self.accepted_chats():
            log.info("a button press from a chat not allowed was ignored", extra={"chat_id": chat_id})
            self.store.record_update(update_id, None, None)
            return
        row = {
            "callback_id": query.id,
            "chat_id": chat_id,
            "message_id": query.message.message_id if query.message is not None else None,
            "from_id": query.from_user.id,
            "data": (query.data or "")[:64],
            "date": time.time(),
        }
        self.store.record_callback(update_id, row)

    async def poll_forever(self, sleep: Sleep = asyncio.sleep, idle_seconds: float = 0.0) -> None:
        backoff = 1.0
        while True:
            try:
                await self.poll_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("telegram polling failed, retrying in %.0f s: %s", backoff, exc)
                await sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
                continue
            backoff = 1.0
            await sleep(idle_seconds)

    # --- tools ---------------------------------------------------------------------------------------------
    async def send_markdown(self, chat_id: int, part: str, reply: ReplyParameters | None = None) -> Message:
        """One part of a message, its Markdown as Telegram HTML; as the plain text when Telegram refuses the markup
        (the reader then sees the asterisks, but gets the message)."""
        try:
            return await self.bot.send_message(
                chat_id, to_telegram_html(part), parse_mode=ParseMode.HTML, reply_parameters=reply
            )
        except BadRequest as exc:
            if "parse entities" not in str(exc).lower():
                raise
            log.warning("telegram refused the markup; sent as plain text", extra={"chat": chat_id, "error": str(exc)})
            return await self.bot.send_message(chat_id, part, reply_parameters=reply)

    async def send_message(self, chat_id: int, text: str, reply_to: int | None = None) -> dict[str, Any]:
        self.require_allowed(chat_id)
        if not text.strip():
            raise InvalidArguments("The message is empty.")
        parts = split_markdown(text)
        sent: list[int] = []
        keys: list[int] = []
        for index, part in enumerate(parts):
            reply = ReplyParameters(message_id=reply_to, allow_sending_without_reply=True)
            message = await self.send_markdown(chat_id, part, reply if (reply_to and index == 0) else None)
            row, chat_row = message_fields(message, outgoing=True)
            keys.append(self.store.record_sent(row, chat_row))
            sent.append(message.message_id)
        return {"chat_id": chat_id, "message_ids": sent, "parts": len(parts)}

    async def send_reply(self, message_key: int, text: str) -> dict[str, Any]:
        """The hub's answer to one incoming message: sent, recorded and marked handled together.

        The sending runs shielded from cancellation: if the hub goes away mid-reply (its stdin closes and the
        server shuts down), the parts already on their way are still recorded, so the restarted hub does not
        answer the same message twice.
        """
        incoming = self.store.incoming(message_key)
        if incoming is None:
            raise InvalidArguments(f"No incoming message has message_key {message_key}.")
        if self.store.is_handled(message_key):
            return {"chat_id": incoming.chat_id, "message_ids": [], "parts": 0, "already_handled": True}
        self.require_allowed(incoming.chat_id)
        if not text.strip():
            raise InvalidArguments("The reply is empty.")
        parts = split_markdown(text)
        sent: list[int] = []
        with anyio.CancelScope(shield=True):
            for part in parts:
                message = await self.send_markdown(incoming.chat_id, part)
                row, chat_row = message_fields(message, outgoing=True)
                self.store.record_sent(row, chat_row, answers=message_key)
                sent.append(message.message_id)
        return {"chat_id": incoming.chat_id, "message_ids": sent, "parts": len(parts)}

    async def ask(self, chat_id: int, text: str, choices: list[tuple[str, str]]) -> dict[str, Any]:
        """A message with one button per choice (label, data): the presses come back as callbacks."""
        self.require_allowed(chat_id)
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in choices]])
        message = await self.bot.send_message(chat_id, text[:MAX_MESSAGE_CHARS], reply_markup=keyboard)
        row, chat_row = message_fields(message, outgoing=True)
        self.store.record_sent(row, chat_row)
        return {"chat_id": chat_id, "message_id": message.message_id}

    async def answer_press(self, callback_key: int, notice: str, new_text: str | None) -> dict[str, Any]:
        """Acknowledge a button press (Telegram shows `notice`), replace the message's text and buttons with
        `new_text`, and mark the press handled."""
        press = self.store.callback(callback_key)
        if press is None:
            raise InvalidArguments(f"No button press {callback_key}.")
        try:
            await self.bot.answer_callback_query(press["callback_id"], text=notice[:200])
        except TelegramError as exc:  # a press older than Telegram's answer window: the edit still says it all
            log.info("button press not acknowledged: %s", exc)
        if new_text and press["message_id"] is not None:
            await self.bot.edit_message_text(new_text[:MAX_MESSAGE_CHARS], press["chat_id"], press["message_id"])
        self.store.mark_callback_handled(callback_key)
        return {"callback_key": callback_key, "edited": bool(new_text)}

    async def send_typing(self, chat_id: int) -> dict[str, Any]:
        self.require_allowed(chat_id)
        await self.bot.send_chat_action(chat_id, "typing")
        return {"chat_id": chat_id, "action": "typing"}

    def intake_state(self) -> dict[str, Any]:
        """Who the bot is and whose chats it serves: the hub uses it to filter and to address notifications;
        and the button presses not handled yet."""
        owner = self.store.owner_chat_id
        return {
            "bot_id": self.bot_id,
            "owner_chat_id": owner,
            "allowed_chat_ids": sorted(self.accepted_chats()),
            "callbacks": self.store.pending_callbacks(50),
        }

    async def send_media(self, chat_id: int, file_path: str, caption: str | None) -> dict[str, Any]:
        self.require_allowed(chat_id)
        path = confine(self.workspace, file_path)
        if not path.is_file():
            raise ToolFailure(f"'{file_path}' is not a file in the workspace.")
        if caption is not None and len(caption) > 1024:
            raise InvalidArguments("The caption is longer than Telegram's 1,024 characters.")
        data = path.read_bytes()
        if path.suffix.lower() in {".jpg", ".jpeg", ".png", ".webp"}:
            message = await self.bot.send_photo(chat_id, data, caption=caption, filename=path.name)
        else:
            message = await self.bot.send_document(chat_id, data, caption=caption, filename=path.name)
        row, chat_row = message_fields(message, outgoing=True)
        self.store.record_sent(row, chat_row)
        return {"chat_id": chat_id, "message_id": message.message_id, "media": row["media_kind"]}

    async def download_media(self, chat_id: int, message_id: int, output_path: str) -> dict[str, Any]:
        self.require_allowed(chat_id)
        stored = self.store.message(chat_id, message_id)
        if stored is None:
            raise ToolFailure(f"Message {message_id} of chat {chat_id} is not in the local store.")
        if stored.media_file_id is None:
            raise ToolFailure(f"Message {message_id} has no media.")
        target = confine(self.workspace, output_path)
        if target.exists() or target.is_symlink():
            raise ToolFailure(f"'{output_path}' already exists; choose another name.")
        private_dir(target.parent)
        if not target.parent.resolve().is_relative_to(self.workspace.resolve()):
            raise NotAllowed(f"'{output_path}' is outside the workspace.")
        file = await self.bot.get_file(stored.media_file_id)
        await file.download_to_drive(target)
        return {"path": str(target.relative_to(self.workspace.resolve())), "size": target.stat().st_size}

    async def delete_messages(self, chat_id: int, message_ids: list[int]) -> dict[str, Any]:
        self.require_allowed(chat_id)
        await self.bot.delete_messages(chat_id, message_ids)
        self.store.mark_deleted(chat_id, message_ids)
        return {"chat_id": chat_id, "deleted": message_ids}

    async def get_chat(self, chat_id: int) -> dict[str, Any]:
        self.require_allowed(chat_id)
        info = await self.bot.get_chat(chat_id)
        stored = self.store.chat(chat_id) or {}
        return {
            "chat_id": info.id,
            "type": info.type,
            "title": info.title,
            "username": info.username,
            "first_name": info.first_name,
            "last_name": info.last_name,
            "description": info.description or info.bio,
            "last_message_at": stored.get("last_message_at"),
        }

    async def get_me(self) -> dict[str, Any]:
        me = await self.bot.get_me()
        return {"id": me.id, "username": me.username, "first_name": me.first_name, "is_bot": me.is_bot}
