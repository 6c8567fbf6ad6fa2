"""`/clear` (forget this chat's conversation) and `/delete` (remove the bot's own recent Telegram messages).

`/delete` reads the chat's stored messages through `telegram_get_messages` (newest first), keeps the bot's own
(`outgoing`) ones in the asked window, and deletes them with `telegram_delete_messages` in batches. Choosing
what to delete is pure (`parse_window`, `select_outgoing`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from orchestrator.commands._helpers import data_of
from orchestrator.commands.registry import CommandContext, CommandError, command, usage_error
from orchestrator.commands.security import parse_time

MAX_HOURS = 168
MAX_MESSAGES = 500  # the most messages read back, and the most deleted by count
PAGE = 100  # telegram_get_messages and telegram_delete_messages both take at most 100
DELETE_USAGE = f"<today|yesterday|week|Nh (≤ {MAX_HOURS})|N (≤ {MAX_MESSAGES})>"


@dataclass(frozen=True)
class DeleteWindow:
    """The bot's last `count` messages, or those sent in [since, until)."""

    label: str
    count: int | None = None
    since: datetime | None = None
    until: datetime | None = None

    def contains(self, moment: datetime) -> bool:
        if self.since is not None and moment < self.since:
            return False
        return self.until is None or moment < self.until


def parse_window(args: str, now: datetime) -> DeleteWindow:
    """`today`, `yesterday`, `week`, `6h`, `20` → a window; `now` is aware local time (pure)."""
    word = args.strip().lower()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if word == "today":
        return DeleteWindow("today", since=midnight)
    if word == "yesterday":
        return DeleteWindow("yesterday", since=midnight - timedelta(days=1), until=midnight)
    if word == "week":
        return DeleteWindow("the last 7 days", since=now - timedelta(days=7))
    if match := re.fullmatch(r"(\d+)\s*h", word):
        hours = int(match[1])
        if not 1 <= hours <= MAX_HOURS:
            raise usage_error("delete", f"Hours must be 1 to {MAX_HOURS}.")
        return DeleteWindow(f"the last {hours} h", since=now - timedelta(hours=hours))
    if word.isdigit():
        count = int(word)
        if not 1 <= count <= MAX_MESSAGES:
            raise usage_error("delete", f"The count must be 1 to {MAX_MESSAGES}.")
        return DeleteWindow(f"the last {count} message(s)", count=count)
    raise usage_error("delete", f"'{args.strip()}' is not a window." if word else "Which messages?")


def select_outgoing(messages: list[dict[str, Any]], window: DeleteWindow) -> list[int]:
    """Ids of the bot's own messages in `window`, from a newest-first list (pure)."""
    chosen: list[int] = []
    for message in messages:
        if not message.get("outgoing") or not isinstance(message.get("message_id"), int):
            continue
        if window.count is not None:
            if len(chosen) >= window.count:
                break
        else:
            moment = parse_time(str(message.get("date", "")))
            if moment is None or not window.contains(moment):
                continue
        chosen.append(message["message_id"])
    return chosen


def past_window(messages: list[dict[str, Any]], window: DeleteWindow) -> bool:
    """True once the oldest message read is older than the window (no need to read further back)."""
    if window.since is None or not messages:
        return False
    oldest = parse_time(str(messages[-1].get("date", "")))
    return oldest is not None and oldest < window.since


async def read_recent(ctx: CommandContext, window: DeleteWindow) -> list[dict[str, Any]]:
    """Up to MAX_MESSAGES of the chat's stored messages, newest first, reading pages of PAGE."""
    messages: list[dict[str, Any]] = []
    before: int | None = None
    while len(messages) < MAX_MESSAGES:
        arguments: dict[str, Any] = {"chat_id": ctx.chat_id, "limit": PAGE}
        if before is not None:
            arguments["offset_id"] = before
        page = data_of(
            await ctx.hub.call("telegram_get_messages", arguments, caller=ctx.caller), "this chat's messages (Telegram)"
        )
        batch = list((page or {}).get("messages") or [])
        messages.extend(batch)
        if len(batch) < PAGE or past_window(batch, window):
            break
        if window.count is not None and len(select_outgoing(messages, window)) >= window.count:
            break
        before = min(int(m["message_id"]) for m in batch)
    return messages


@command("delete", "Delete the bot's own recent messages in this Telegram chat", usage=DELETE_USAGE)
async def delete_command(ctx: CommandContext, args: str) -> str:
    if ctx.channel != "telegram":
        raise CommandError("/delete only applies to Telegram: it removes the bot's messages in the chat it is sent in.")
    window = parse_window(args, datetime.now().astimezone())
    ids = select_outgoing(await read_recent(ctx, window), window)
    if not ids:
        return f"No messages of mine from {window.label} to delete."
    deleted, problems = 0, []
    for start in range(0, len(ids), PAGE):
        batch = ids[start : start + PAGE]
        envelope = await ctx.hub.call(
            "telegram_delete_messages", {"chat_id": ctx.chat_id, "message_ids": batch}, caller=ctx.caller
        )
        if envelope.get("success"):
            deleted += len(batch)
        else:
            problems.append(str(envelope.get("error")))
    answer = f"Deleted {deleted} of my {len(ids)} message(s) from {window.label}."
    if problems:
        # Telegram refuses to delete messages older than 48 hours, among other limits: say what it said.
        answer += f" Telegram refused the rest: {problems[0]}"
    return answer


@command("clear", "Forget this chat's conversation history (facts in memory stay)")
async def clear_command(ctx: CommandContext, args: str) -> str:
    try:
        agent_id = ctx.agents.resolve(ctx.channel, ctx.chat_id)
    except LookupError as exc:
        raise CommandError(str(exc)) from None
    answer = await ctx.agents.clear_session(agent_id, ctx.chat_id)
    if not answer.success:
        raise CommandError(f"Could not clear the session: {answer.error or 'no reason given'}")
    return f"Cleared: {answer.message or 'the conversation is forgotten.'} (agent {agent_id})"
