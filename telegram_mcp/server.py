"""The Telegram MCP server: the original's tools that the Bot API can do, plus the hub's intake cursor.

The lifespan builds the service and starts the polling task only when `TELEGRAM_BOT_TOKEN` is set; without it
the server still starts and lists its tools, and every call says what to set.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver import Context
from pydantic import Field

from shared.mcp_tools import (
    LOCAL_WRITE,
    READ_ONLY,
    READ_ONLY_OPEN_WORLD,
    REMOTE_OVERWRITE,
    REMOTE_WRITE,
    EnvelopeServer,
    InvalidArguments,
    ServerState,
    background_task,
    configured_lifespan,
    envelope_tool,
)
from telegram_mcp.ids import chat_id_of
from telegram_mcp.settings import TelegramSettings

if TYPE_CHECKING:
    from telegram_mcp.service import TelegramService

log = logging.getLogger(__name__)

NO_TOKEN = (
    "Telegram is not configured: set TELEGRAM_BOT_TOKEN (from @BotFather) in .env; the hub notices it and starts "
    "Telegram with it, no restart needed."
)


# The service (and python-telegram-bot under it, a third of this server's start-up) is imported only when a token
# is set: without one the server lists its tools and answers every call with NO_TOKEN.
TelegramState = ServerState["TelegramService"]


@configured_lifespan(TelegramSettings, name="telegram", display="The Telegram MCP")
async def lifespan(settings: TelegramSettings) -> AsyncIterator[TelegramState]:
    if settings.telegram_bot_token is None:
        log.warning("telegram has no TELEGRAM_BOT_TOKEN: tools answer with what to set, nothing is polled")
        yield TelegramState(None, NO_TOKEN)
        return
    from telegram_mcp.service import TelegramService

    service = TelegramService(settings)
    try:
        async with background_task(_start_and_poll(service), "telegram-poll"):
            yield TelegramState(service)
    finally:
        await service.close()


async def _start_and_poll(service: TelegramService) -> None:
    delay = 1.0
    while True:
        try:
            await service.start()
            break
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.error("telegram bot cannot start, retrying in %.0f s: %s", delay, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 60.0)
    await service.poll_forever()


server: EnvelopeServer[TelegramState] = EnvelopeServer(
    "telegram",
    instructions=(
        "Telegram through a bot: send and read messages in the allowed chats. History and search cover what the "
        "bot has seen since it was set up (the Bot API keeps no history)."
    ),
    lifespan=lifespan,
)

TelegramContext = Context[TelegramState]

ChatId = Annotated[str, Field(description="Numeric Telegram chat id, e.g. '123456789' (see list_chats).")]


@envelope_tool(server, annotations=REMOTE_WRITE)
async def send_message(
    chat_id: ChatId,
    message: Annotated[str, Field(min_length=1, description="The text to send; long text is split automatically.")],
    ctx: TelegramContext,
    reply_to: Annotated[int | None, Field(description="Message id to reply to.")] = None,
) -> dict:
    """Send a Telegram text message to an allowed chat.

    For requests like: text my wife on Telegram, tell the family group I landed.

    Markdown (bold, italics, code, links, lists) is shown formatted, or as plain text if Telegram refuses the
    markup; text over 4,096 characters is split on paragraph, line or word boundaries into several messages.
    """
    return await server.service(ctx).send_message(chat_id_of(chat_id), message, reply_to)


@envelope_tool(server, annotations=REMOTE_WRITE)
async def send_media(
    chat_id: ChatId,
    file_path: Annotated[str, Field(description="A file in the workspace, relative to it, e.g. 'out/chart.png'.")],
    ctx: TelegramContext,
    caption: Annotated[str | None, Field(description="Text shown under the file (at most 1,024 characters).")] = None,
) -> dict:
    """Send a photo or document from the workspace to an allowed Telegram chat.

    .jpg/.jpeg/.png/.webp go as photos, anything else as a document. URLs and paths outside the workspace are refused.

    For requests like: send the photo to the family chat, share the PDF on Telegram.
    """
    return await server.service(ctx).send_media(chat_id_of(chat_id), file_path, caption)


@envelope_tool(server, annotations=REMOTE_WRITE)
async def download_media(
    chat_id: ChatId,
    message_id: Annotated[int, Field(description="The message whose photo/document/voice/audio/video to save.")],
    output_path: Annotated[str, Field(description="Where to save it, relative to the workspace; must not exist.")],
    ctx: TelegramContext,
) -> dict:
    """Save the media of a stored message into the workspace."""
    return await server.service(ctx).download_media(chat_id_of(chat_id), message_id, output_path)


@envelope_tool(server, annotations=READ_ONLY)
def get_messages(
    chat_id: ChatId,
    ctx: TelegramContext,
    limit: Annotated[int, Field(ge=1, le=100, description="Most messages to return, newest first.")] = 20,
    offset_id: Annotated[int | None, Field(description="Only messages older than this message id.")] = None,
) -> dict:
    """Recent messages of an allowed chat from the local store, newest first (the bot's own included).

    For requests like: what did they say in the group chat, read the latest messages in that chat.
    """
    service = server.service(ctx)
    chat = chat_id_of(chat_id)
    service.require_allowed(chat)
    return {"messages": [m.public() for m in service.store.messages(chat, limit, offset_id)]}


@envelope_tool(server, annotations=READ_ONLY)
def search_messages(
    query: Annotated[str, Field(min_length=1, max_length=500, description="Text to find (case-insensitive).")],
    ctx: TelegramContext,
    chat_id: Annotated[str | None, Field(description="Only this chat; all stored chats if omitted.")] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Most results, newest first.")] = 20,
) -> dict:
    """Search the text of stored messages, in one chat or all.

    For requests like: did anyone mention the barbecue, find the message with the wifi code.
    """
    service = server.service(ctx)
    chat = None if chat_id is None else chat_id_of(chat_id)
    if chat is not None:
        service.require_allowed(chat)
    return {"messages": [m.public() for m in service.store.search(query, chat, limit)]}


@envelope_tool(server, annotations=READ_ONLY)
def list_chats(
    ctx: TelegramContext,
    limit: Annotated[int, Field(ge=1, le=200, description="Most chats, most recently active first.")] = 50,
) -> dict:
    """The chats the bot has talked in (from the local store), most recent first.

    For requests like: which Telegram chats do I have, where was I last talking.
    """
    return {"chats": server.service(ctx).store.chats(limit)}


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def get_chat(chat_id: ChatId, ctx: TelegramContext) -> dict:
    """Information about an allowed chat: type, title or name, username, description."""
    return await server.service(ctx).get_chat(chat_id_of(chat_id))


@envelope_tool(server, annotations=REMOTE_OVERWRITE)
async def delete_messages(
    chat_id: ChatId,
    message_ids: Annotated[list[int], Field(min_length=1, max_length=100, description="Message ids to delete.")],
    ctx: TelegramContext,
) -> dict:
    """Delete messages in an allowed chat (a bot may delete its own, and others' only where it is an admin)."""
    return await server.service(ctx).delete_messages(chat_id_of(chat_id), message_ids)


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def get_me(ctx: TelegramContext) -> dict:
    """The bot's own account: id, username, name."""
    return await server.service(ctx).get_me()


@envelope_tool(server, annotations=LOCAL_WRITE)
def mark_read(
    chat_id: ChatId,
    ctx: TelegramContext,
    message_id: Annotated[
        int | None, Field(ge=1, description="Mark read up to this message id (default: the chat's newest message).")
    ] = None,
) -> dict:
    """Mark an allowed chat's messages as read by the assistant, up to a message (default: all of them).

    Read messages no longer appear in get_new_messages. This is the assistant's own record: a bot cannot set the
    read receipts other people see in Telegram.
    """
    service = server.service(ctx)
    chat = chat_id_of(chat_id)
    service.require_allowed(chat)
    mark, newly_read = service.store.mark_read(chat, message_id)
    return {
        "chat_id": chat,
        "read_up_to": mark,
        "marked": newly_read,
        "unread": service.store.unread_count(chat),
    }


# Not read-only: without peek it moves the assistant's own read marks (local state only).
@envelope_tool(server, annotations=LOCAL_WRITE)
def get_new_messages(
    ctx: TelegramContext,
    peek: Annotated[
        bool, Field(description="Only look: leave the messages unread (default: they are marked read).")
    ] = False,
    limit: Annotated[int, Field(ge=1, le=100, description="Most messages, oldest first.")] = 50,
) -> dict:
    """Incoming messages the assistant has not read yet, in subscribed chats (or all chats if none), oldest first.

    Returned messages are marked read unless peek is true; messages beyond the limit stay unread for the next call.
    """
    service = server.service(ctx)
    subscribed = frozenset(service.store.subscriptions())
    messages, total = service.store.unread(limit, subscribed or None)
    if not peek:
        newest: dict[int, int] = {}
        for message in messages:
            newest[message.chat_id] = max(newest.get(message.chat_id, 0), message.message_id)
        for chat, message_id in newest.items():
            service.store.mark_read(chat, message_id)
    return {
        "messages": [m.public() for m in messages],
        "marked_read": not peek and bool(messages),
        "remaining": total - len(messages),
    }


@envelope_tool(server, annotations=LOCAL_WRITE)
def subscribe_chat(
    action: Annotated[
        Literal["subscribe", "unsubscribe", "list", "clear"], Field(description="What to do with the subscriptions.")
    ],
    ctx: TelegramContext,
    chat_id: Annotated[str | None, Field(description="The chat, for subscribe and unsubscribe.")] = None,
) -> dict:
    """Choose which chats get_new_messages reports (none subscribed = all allowed chats)."""
    service = server.service(ctx)
    if action in ("subscribe", "unsubscribe"):
        if chat_id is None:
            raise InvalidArguments(f"{action} needs a chat_id.")
        chat = chat_id_of(chat_id)
        if action == "subscribe":
            service.require_allowed(chat)
            service.store.subscribe(chat)
        else:
            service.store.unsubscribe(chat)
    elif action == "clear":
        service.store.clear_subscriptions()
    return {"subscribed": service.store.subscriptions()}


@envelope_tool(server, annotations=READ_ONLY)
def intake_pending(
    ctx: TelegramContext,
    limit: Annotated[int, Field(ge=1, le=500, description="Most messages, oldest first.")] = 100,
) -> dict:
    """For the hub only: incoming messages not handled yet, oldest first, with the bot's id and the owner's chat.

    Nothing is consumed: the hub answers with intake_reply (which marks the message handled with the reply)
    or marks it handled with intake_done.
    """
    service = server.service(ctx)
    return {"messages": [m.public() for m in service.store.pending(limit)], **service.intake_state()}


@envelope_tool(server, annotations=LOCAL_WRITE)
def intake_ack(
    up_to_message_key: Annotated[int, Field(ge=0, description="The message_key of the last message handled.")],
    ctx: TelegramContext,
) -> dict:
    """For the hub only: mark every incoming message up to this message_key as handled (persisted)."""
    return {"cursor": server.service(ctx).store.ack(up_to_message_key)}


@envelope_tool(server, annotations=REMOTE_WRITE)
async def intake_reply(
    message_key: Annotated[int, Field(ge=1, description="The incoming message this answers.")],
    message: Annotated[str, Field(min_length=1, description="The reply; long text is split automatically.")],
    ctx: TelegramContext,
) -> dict:
    """For the hub only: send the reply to an incoming message and mark it handled, together.

    Its Markdown is sent as Telegram HTML (plain text if refused), split like send_message's text.
    """
    return await server.service(ctx).send_reply(message_key, message)


@envelope_tool(server, annotations=LOCAL_WRITE)
def intake_done(
    message_keys: Annotated[list[int], Field(min_length=1, max_length=500, description="Messages to mark handled.")],
    ctx: TelegramContext,
) -> dict:
    """For the hub only: mark incoming messages handled without a reply (skipped, stale, not for the agent)."""
    return {"marked": server.service(ctx).store.mark_handled(message_keys)}


@envelope_tool(server, annotations=REMOTE_WRITE)
async def intake_typing(chat_id: ChatId, ctx: TelegramContext) -> dict:
    """For the hub only: show "typing…" in a chat (Telegram shows it for about five seconds)."""
    return await server.service(ctx).send_typing(chat_id_of(chat_id))


@envelope_tool(server, annotations=REMOTE_WRITE)
async def intake_ask(
    chat_id: ChatId,
    text: Annotated[str, Field(min_length=1, max_length=4096, description="The question.")],
    approval_id: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,32}$", description="What the buttons decide.")],
    ctx: TelegramContext,
) -> dict:
    """For the hub only: ask the owner to approve a held call, with Approve and Deny buttons."""
    choices = [("Approve", f"approve:{approval_id}"), ("Deny", f"deny:{approval_id}")]
    return await server.service(ctx).ask(chat_id_of(chat_id), text, choices)


@envelope_tool(server, annotations=REMOTE_WRITE)
async def intake_answer(
    callback_key: Annotated[int, Field(ge=1, description="The button press, from intake_pending's callbacks.")],
    notice: Annotated[str, Field(max_length=200, description="What Telegram shows the person who pressed.")],
    ctx: TelegramContext,
    new_text: Annotated[
        str | None, Field(max_length=4096, description="The message's text from now on (its buttons go).")
    ] = None,
) -> dict:
    """For the hub only: acknowledge a button press and mark it handled."""
    return await server.service(ctx).answer_press(callback_key, notice, new_text)
