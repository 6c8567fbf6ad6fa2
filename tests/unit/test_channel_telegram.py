"""The Telegram poller against a recording hub: each message answered once, retries, skips, halts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio

from orchestrator.callers import Caller
from orchestrator.channels.dispatch import InboundMessage, Outcome
from orchestrator.channels.telegram import MAX_DELIVERY_ATTEMPTS, TelegramChannel
from orchestrator.halt import HaltState
from orchestrator.notify import Notifier

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


class RecordingHub:
    """Answers the channel's tool calls from a list of pending rows; records every call."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.reply_fails = 0
        self.notifier = Notifier(self._send)

    async def _send(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
        return await self.call(name, arguments, caller=caller)

    def add(self, key: int, text: str, *, chat: int = 1, sender: int = 1, age_s: float = 1) -> None:
        date = (NOW - timedelta(seconds=age_s)).isoformat()
        self.rows.append(
            {"message_key": key, "chat_id": chat, "message_id": key, "from_id": sender, "text": text, "date": date}
        )

    def handled(self, keys: list[int]) -> None:
        self.rows = [row for row in self.rows if row["message_key"] not in keys]

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
        self.calls.append((name, arguments))
        if name == "telegram_intake_pending":
            return {
                "success": True,
                "data": {"messages": list(self.rows), "bot_id": 777, "owner_chat_id": 1, "allowed_chat_ids": [1, 2]},
            }
        if name == "telegram_intake_reply":
            if self.reply_fails:
                self.reply_fails -= 1
                return {"success": False, "error": "MCP restarting", "errorCode": "MCP_UNAVAILABLE"}
            self.handled([arguments["message_key"]])
            return {"success": True, "data": {"parts": 1}}
        if name == "telegram_intake_done":
            self.handled(arguments["message_keys"])
            return {"success": True, "data": {"marked": len(arguments["message_keys"])}}
        return {"success": True, "data": {}}

    def named(self, name: str) -> list[dict[str, Any]]:
        return [arguments for called, arguments in self.calls if called == name]


class CountingDispatcher:
    def __init__(self) -> None:
        self.seen: list[InboundMessage] = []

    async def dispatch(self, message: InboundMessage) -> Outcome:
        self.seen.append(message)
        return Outcome("answer", f"re: {message.text}", "annabelle")


def channel(hub: RecordingHub, dispatcher: CountingDispatcher, home: Path) -> TelegramChannel:
    halt = HaltState(home / "halt.json")
    return TelegramChannel(
        hub, dispatcher, halt, poll_interval=0.01, stale_after=timedelta(minutes=15), clock=lambda: NOW
    )  # type: ignore[arg-type]


async def test_each_message_is_answered_once_in_order(tmp_path: Path) -> None:
    hub, dispatcher = RecordingHub(), CountingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    hub.add(1, "one")
    hub.add(2, "two")
    hub.add(3, "other chat", chat=2, sender=2)
    await poller.poll_once()
    await poller.poll_once()
    assert [m.text for m in dispatcher.seen] == ["one", "two", "other chat"]
    assert [r["message"] for r in hub.named("telegram_intake_reply")] == ["re: one", "re: two", "re: other chat"]
    assert hub.notifier.owner_chat_id == "1"
    assert dispatcher.seen[0].owner and dispatcher.seen[0].message_id == "1"


async def test_an_undelivered_reply_is_retried_without_asking_the_agent_again(tmp_path: Path) -> None:
    hub, dispatcher = RecordingHub(), CountingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    hub.add(1, "one")
    hub.reply_fails = 2
    for _ in range(3):
        await poller.poll_once()
    assert len(dispatcher.seen) == 1
    assert len(hub.named("telegram_intake_reply")) == 3 and hub.rows == []


async def test_a_later_message_never_overtakes_a_reply_still_waiting_for_delivery(tmp_path: Path) -> None:
    hub, dispatcher = RecordingHub(), CountingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    for key, text in ((1, "one"), (2, "two"), (3, "three")):
        hub.add(key, text)
    hub.reply_fails = 1  # the Telegram MCP restarts while "one" is delivered
    await poller.poll_once()
    assert [m.text for m in dispatcher.seen] == ["one"]  # "two" waits: its reply would arrive before "one"'s
    await poller.poll_once()
    delivered = [r["message"] for r in hub.named("telegram_intake_reply")]
    assert delivered == ["re: one", "re: one", "re: two", "re: three"] and hub.rows == []


async def test_a_reply_that_never_gets_through_is_given_up(tmp_path: Path) -> None:
    hub, dispatcher = RecordingHub(), CountingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    hub.add(1, "one")
    hub.reply_fails = 100
    for _ in range(MAX_DELIVERY_ATTEMPTS):
        await poller.poll_once()
    assert hub.rows == [] and hub.named("telegram_intake_done") == [{"message_keys": [1]}]


async def test_own_and_stale_messages_are_skipped_with_one_notice_per_chat(tmp_path: Path) -> None:
    hub, dispatcher = RecordingHub(), CountingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    hub.add(1, "old", age_s=3600)
    hub.add(2, "older", age_s=7200)
    hub.add(3, "mine", sender=777)
    await poller.poll_once()
    assert dispatcher.seen == [] and hub.rows == []
    notices = hub.named("telegram_send_message")
    assert len(notices) == 1 and "skipped 2 messages" in notices[0]["message"]


async def test_a_halted_channel_answers_with_the_notice_but_runs_commands(tmp_path: Path) -> None:
    hub, dispatcher = RecordingHub(), CountingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    poller.halt.halt("channel", "testing")
    hub.add(1, "hello")
    hub.add(2, "/status")
    await poller.poll_once()
    replies = [r["message"] for r in hub.named("telegram_intake_reply")]
    assert "halted" in replies[0] and "/resume channel" in replies[0]
    assert [m.text for m in dispatcher.seen] == ["/status"]


async def test_a_busy_chat_is_not_dispatched_twice_while_it_works(tmp_path: Path) -> None:
    hub = RecordingHub()
    release = anyio.Event()

    class SlowDispatcher(CountingDispatcher):
        async def dispatch(self, message: InboundMessage) -> Outcome:
            self.seen.append(message)
            await release.wait()
            return Outcome("answer", "done", "annabelle")

    dispatcher = SlowDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    hub.add(1, "slow")
    async with anyio.create_task_group() as tasks:
        poller._tasks = tasks
        await poller.poll_once()
        await anyio.sleep(0.05)
        await poller.poll_once()
        await poller.poll_once()
        release.set()
    assert len(dispatcher.seen) == 1 and len(hub.named("telegram_intake_reply")) == 1


async def test_a_message_answered_while_a_round_awaits_is_not_answered_again_by_that_round(tmp_path: Path) -> None:
    # As when the owner denies a held call: the round reads the pending list (the message still in it), then
    # answers a button press; meanwhile the waiting turn finishes and delivers its reply, before the round goes on
    # with the list it read. (The press here comes from another chat, so no approval store is needed.)
    release, delivered = anyio.Event(), anyio.Event()

    class PressingHub(RecordingHub):
        presses: tuple[dict[str, Any], ...] = ()

        async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
            answer = await super().call(name, arguments, caller=caller)
            if name == "telegram_intake_pending":
                answer["data"]["callbacks"] = list(self.presses)
            if name == "telegram_intake_reply":
                delivered.set()
            if name == "telegram_intake_answer":
                release.set()
                await delivered.wait()
            return answer

    class WaitingDispatcher(CountingDispatcher):
        async def dispatch(self, message: InboundMessage) -> Outcome:
            self.seen.append(message)
            await release.wait()
            return Outcome("answer", "the call was denied", "annabelle")

    hub, dispatcher = PressingHub(), WaitingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    hub.add(1, "tidy my files")
    async with anyio.create_task_group() as tasks:
        poller._tasks = tasks
        await poller.poll_once()
        await anyio.sleep(0.05)
        hub.presses = ({"callback_key": 9, "chat_id": 2, "data": "deny:abc"},)
        await poller.poll_once()
    assert len(dispatcher.seen) == 1 and len(hub.named("telegram_intake_reply")) == 1


async def test_typing_is_shown_again_and_again_while_a_slow_turn_runs(tmp_path: Path) -> None:
    shown_three_times = anyio.Event()

    class TypingHub(RecordingHub):
        async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
            if name == "telegram_intake_typing" and len(self.named(name)) >= 2:
                shown_three_times.set()
            return await super().call(name, arguments, caller=caller)

    class SlowDispatcher(CountingDispatcher):
        async def dispatch(self, message: InboundMessage) -> Outcome:
            # The turn lasts until the chat has been shown "typing…" three times (every 10 ms here, 4 s live).
            with anyio.fail_after(5):
                await shown_three_times.wait()
            return await super().dispatch(message)

    hub = TypingHub()
    hub.add(1, "think long")
    poller = TelegramChannel(
        hub,  # type: ignore[arg-type]
        SlowDispatcher(),  # type: ignore[arg-type]
        HaltState(tmp_path / "halt.json"),
        poll_interval=0.01,
        stale_after=timedelta(minutes=15),
        clock=lambda: NOW,
        typing_every=0.01,
    )
    await poller.poll_once()
    typing = hub.named("telegram_intake_typing")
    assert len(typing) >= 3 and all(call == {"chat_id": "1"} for call in typing)
    # After the answer, no more typing.
    assert [name for name, _ in hub.calls][-1] == "telegram_intake_reply"


async def test_the_owner_in_a_group_is_the_owner_but_not_in_a_private_chat(tmp_path: Path) -> None:
    hub, dispatcher = RecordingHub(), CountingDispatcher()
    poller = channel(hub, dispatcher, tmp_path)
    hub.add(1, "in my own chat", chat=1, sender=1)
    hub.add(2, "in the family group", chat=-100, sender=1)
    await poller.poll_once()
    private, group = dispatcher.seen
    assert private.owner and private.private
    # Others read a group: a secret the agent read is never shown there (docs/onepassword.md).
    assert group.owner and not group.private
