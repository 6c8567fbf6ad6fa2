"""Triage of what the channel MCP reports as pending. Pure: no I/O, the clock is an argument.

A pending message is skipped when the bot wrote it, when it is older than the stale window (the hub was down;
answering an hour-old "are you there?" helps nobody — the chat gets one notice instead), or when it is already
being handled. Everything else is handled, oldest first, one at a time per chat.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, ConfigDict


class PendingMessage(BaseModel):
    """One row of `intake_pending`, as the Telegram MCP reports it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    message_key: int
    chat_id: int
    message_id: int
    from_id: int | None = None
    from_name: str | None = None
    text: str = ""
    date: datetime
    media: str | None = None
    media_file_name: str | None = None


@dataclass
class Triage:
    handle: list[PendingMessage] = field(default_factory=list)
    own: list[PendingMessage] = field(default_factory=list)
    stale: list[PendingMessage] = field(default_factory=list)


def triage(
    messages: Iterable[PendingMessage],
    *,
    bot_id: int | None,
    now: datetime,
    stale_after: timedelta,
    in_flight: Collection[int],
) -> Triage:
    result = Triage()
    for message in messages:
        if message.message_key in in_flight:
            continue
        if bot_id is not None and message.from_id == bot_id:
            result.own.append(message)
        elif now - message.date > stale_after:
            result.stale.append(message)
        else:
            result.handle.append(message)
    return result


def is_owner(message: PendingMessage, allowed_chat_ids: Collection[int]) -> bool:
    """The owner writes from an allowed private chat (sender = chat) or is an allowed user in a group."""
    return message.from_id is not None and (message.from_id == message.chat_id or message.from_id in allowed_chat_ids)


def agent_text(message: PendingMessage) -> str:
    """What the agent reads: the text, and a line about attached media it can fetch with a tool."""
    if message.media is None:
        return message.text
    name = f" '{message.media_file_name}'" if message.media_file_name else ""
    note = (
        f"[The user sent a {message.media}{name} (chat {message.chat_id}, message {message.message_id}); "
        "telegram_download_media saves it into the workspace.]"
    )
    return f"{message.text}\n{note}" if message.text else note


def stale_notice(skipped: list[PendingMessage]) -> str:
    newest = max(message.date for message in skipped).astimezone(UTC)
    count = len(skipped)
    noun = "message" if count == 1 else "messages"
    return (
        f"I was offline and skipped {count} {noun} sent up to {newest:%Y-%m-%d %H:%M} UTC. "
        f"Send {'it' if count == 1 else 'them'} again if you still need an answer."
    )
