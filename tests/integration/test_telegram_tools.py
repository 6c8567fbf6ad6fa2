"""The Telegram MCP against the fake Bot API: polling, restart safety, intake cursor, tools in-process."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from shared.settings import load_settings
from telegram_mcp.server import server
from telegram_mcp.service import TelegramService
from telegram_mcp.settings import TelegramSettings
from tests.fakes.telegram_server import FakeTelegram

OWNER = 4242


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram(max_wait=0.3) as tg:
        yield tg


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, fake: FakeTelegram, annabelle_home: Path, tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("ANNABELLE_ENV_FILE", str(tmp_path / "no.env"))
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", fake.token)
    monkeypatch.setenv("TELEGRAM_API_BASE", fake.url)
    monkeypatch.setenv("TELEGRAM_ALLOWED_CHAT_IDS", str(OWNER))
    monkeypatch.setenv("TELEGRAM_POLL_TIMEOUT_SECONDS", "1")
    monkeypatch.setenv("FILER_WORKSPACE", str(workspace))
    return workspace


def service() -> TelegramService:
    return TelegramService(load_settings(TelegramSettings))


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def test_updates_are_stored_once_across_a_restart(env: Path, fake: FakeTelegram) -> None:
    fake.inject_message(OWNER, "one")
    fake.inject_message(OWNER, "two")
    first = service()
    await first.start()
    assert await first.poll_once() == 2
    await first.close()
    fake.inject_message(OWNER, "three")
    second = service()
    await second.start()
    assert await second.poll_once() == 1
    assert await second.poll_once() == 0
    texts = [m.text for m in second.store.pending(10)]
    await second.close()
    assert texts == ["one", "two", "three"]
    offsets = [r.params.get("offset") for r in fake.calls("getUpdates")]
    assert offsets[0] is None and offsets[1] is not None
    assert [r.method for r in fake.requests[:2]] == ["getMe", "deleteWebhook"]


async def test_an_update_not_stored_is_fetched_again_after_a_crash(env: Path, fake: FakeTelegram) -> None:
    fake.inject_message(OWNER, "kept")
    first = service()

    async def crash(_update: Any) -> None:
        raise RuntimeError("killed mid-update")

    first.handle_update = crash  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        await first.poll_once()
    await first.close()
    second = service()
    await second.poll_once()
    assert [m.text for m in second.store.pending(10)] == ["kept"]
    await second.close()


async def test_a_chat_not_on_the_allow_list_is_ignored_and_logged_by_id(
    env: Path, fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    fake.inject_message(9999, "let me in")
    svc = service()
    with caplog.at_level(logging.INFO, logger="telegram_mcp"):
        await svc.poll_once()
    assert svc.store.pending(10) == []
    assert svc.store.chats(10) == []
    assert svc.store.update_offset is not None
    await svc.close()
    record = next(r for r in caplog.records if "not allowed" in r.getMessage())
    assert record.chat_id == 9999  # type: ignore[attr-defined]
    assert "let me in" not in caplog.text


async def test_pairing_with_the_logged_code(
    env: Path, fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("TELEGRAM_ALLOWED_CHAT_IDS", "")
    with caplog.at_level(logging.WARNING, logger="telegram_mcp"):
        svc = service()
    code = svc.pairing_code
    assert code and code in caplog.text
    fake.inject_message(-100, f"/pair {code}", chat_type="group")
    fake.inject_message(555, "/pair wrong")
    fake.inject_message(555, f"/pair {code}")
    fake.inject_message(555, "hello owner")
    fake.inject_message(556, f"/pair {code}")
    await svc.poll_once()
    assert svc.store.owner_chat_id == 555
    assert [m.text for m in svc.store.pending(10)] == ["hello owner"]
    assert fake.sent_texts(555) == ["Paired: this chat is now the owner's chat."]
    await svc.close()
    again = service()
    assert again.pairing_code is None
    assert again.accepted_chats() == frozenset({555})
    await again.close()


async def test_poll_forever_backs_off_with_the_injected_sleep(env: Path, fake: FakeTelegram) -> None:
    fake.token = "other-token"  # every call now fails with 401
    svc = service()
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 3:
            raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await svc.poll_forever(sleep=sleep)
    await svc.close()
    assert sleeps == [1.0, 2.0, 4.0]


async def test_tools_in_process_intake_cursor_and_long_send(env: Path, fake: FakeTelegram) -> None:
    fake.inject_message(OWNER, "hello bot")
    fake.inject_message(OWNER, "second")
    async with Client(server) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}

        async def pending() -> list[dict[str, Any]]:
            return envelope(await client.call_tool("intake_pending", {}))["data"]["messages"]

        for _ in range(250):
            if len(await pending()) == 2:
                break
            await asyncio.sleep(0.02)
        peeked = envelope(await client.call_tool("get_new_messages", {"peek": False}))["data"]["messages"]
        assert [m["text"] for m in peeked] == ["hello bot", "second"]
        first = (await pending())[0]
        assert len(await pending()) == 2  # peeking consumed nothing
        acked = envelope(await client.call_tool("intake_ack", {"up_to_message_key": first["message_key"]}))
        assert acked["data"]["cursor"] == first["message_key"]
        assert [m["text"] for m in await pending()] == ["second"]

        long_text = ("para " * 900 + "\n\n") * 2 + "end"
        sent = envelope(await client.call_tool("send_message", {"chat_id": str(OWNER), "message": long_text}))
        refused = envelope(await client.call_tool("send_message", {"chat_id": "9999", "message": "hi"}))
        history = envelope(await client.call_tool("get_messages", {"chat_id": str(OWNER), "limit": 100}))
        found = envelope(await client.call_tool("search_messages", {"query": "HELLO"}))
        chats = envelope(await client.call_tool("list_chats", {}))
        info = envelope(await client.call_tool("get_chat", {"chat_id": str(OWNER)}))
        me = envelope(await client.call_tool("get_me", {}))
        read = envelope(await client.call_tool("mark_read", {"chat_id": str(OWNER)}))
        deleted = envelope(
            await client.call_tool(
                "delete_messages", {"chat_id": str(OWNER), "message_ids": sent["data"]["message_ids"][:1]}
            )
        )
        subscribed = envelope(await client.call_tool("subscribe_chat", {"action": "subscribe", "chat_id": str(OWNER)}))
        bad_limit = await client.call_tool("get_messages", {"chat_id": str(OWNER), "limit": 0})
    assert {"send_message", "intake_pending", "intake_ack", "get_new_messages", "subscribe_chat"} <= tools
    assert len(tools) == 19  # with the hub-only intake_ask and intake_answer (approvals)
    assert sent["data"]["parts"] >= 2
    parts = fake.sent_texts(OWNER)
    assert all(len(p) <= 4096 for p in parts)
    assert " ".join(parts).split() == long_text.split()
    assert all(r.params["parse_mode"] == "HTML" for r in fake.calls("sendMessage"))
    assert refused["errorCode"] == "NOT_ALLOWED"
    assert [m["outgoing"] for m in history["data"]["messages"]].count(True) == sent["data"]["parts"]
    assert [m["text"] for m in found["data"]["messages"]] == ["hello bot"]
    assert chats["data"]["chats"][0]["chat_id"] == OWNER
    assert info["data"]["chat_id"] == OWNER
    assert me["data"]["username"] == "annabelle_test_bot"
    # get_new_messages without peek read both; the bot's reply would have read them anyway.
    assert (read["data"]["marked"], read["data"]["unread"]) == (0, 0)
    assert fake.deleted == [(OWNER, sent["data"]["message_ids"][0])]
    assert deleted["success"] is True
    assert subscribed["data"]["subscribed"] == [OWNER]
    assert bad_limit.is_error


async def test_media_round_trip_confined_to_the_workspace(env: Path, fake: FakeTelegram) -> None:
    (env / "report.pdf").write_bytes(b"%PDF-1 fake")
    fake.inject_message(OWNER, "see attached", document=("notes.txt", b"from the user"))
    async with Client(server) as client:
        for _ in range(250):
            got = envelope(await client.call_tool("get_messages", {"chat_id": str(OWNER)}))
            if got["data"]["messages"]:
                break
            await asyncio.sleep(0.02)
        incoming = got["data"]["messages"][0]
        assert incoming["media"] == "document"
        args = {"chat_id": str(OWNER), "message_id": incoming["message_id"]}
        saved = envelope(await client.call_tool("download_media", {**args, "output_path": "in/notes.txt"}))
        escaped = envelope(await client.call_tool("download_media", {**args, "output_path": "../evil.txt"}))
        sent = envelope(await client.call_tool("send_media", {"chat_id": str(OWNER), "file_path": "report.pdf"}))
        outside = envelope(await client.call_tool("send_media", {"chat_id": str(OWNER), "file_path": "/etc/hostname"}))
    assert saved["success"] is True, saved
    assert (env / "in" / "notes.txt").read_bytes() == b"from the user"
    assert escaped["errorCode"] == "NOT_ALLOWED"
    assert not (env.parent / "evil.txt").exists()
    assert sent["data"]["media"] == "document"
    assert outside["errorCode"] == "NOT_ALLOWED"
    assert fake.calls("sendDocument")


async def test_without_a_token_the_tools_are_listed_and_say_what_to_set(
    monkeypatch: pytest.MonkeyPatch, annabelle_home: Path, tmp_path: Path
) -> None:
    monkeypatch.setenv("ANNABELLE_ENV_FILE", str(tmp_path / "no.env"))
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        answer = envelope(await client.call_tool("get_me", {}))
    assert len(tools) == 19  # with the hub-only intake_ask and intake_answer (approvals)
    assert answer["success"] is False
    assert "TELEGRAM_BOT_TOKEN" in answer["error"]


async def test_intake_reply_marks_handled_once_and_done_skips(env: Path, fake: FakeTelegram) -> None:
    fake.inject_message(OWNER, "question")
    fake.inject_message(OWNER, "stale one")
    async with Client(server) as client:

        async def pending() -> dict[str, Any]:
            return envelope(await client.call_tool("intake_pending", {}))["data"]

        for _ in range(250):
            if len((await pending())["messages"]) == 2:
                break
            await asyncio.sleep(0.02)
        state = await pending()
        question, stale = state["messages"]
        long_reply = "word " * 1500
        first = envelope(
            await client.call_tool("intake_reply", {"message_key": question["message_key"], "message": long_reply})
        )
        again = envelope(
            await client.call_tool("intake_reply", {"message_key": question["message_key"], "message": "x"})
        )
        done = envelope(await client.call_tool("intake_done", {"message_keys": [stale["message_key"]]}))
        typing = envelope(await client.call_tool("intake_typing", {"chat_id": str(OWNER)}))
        after = await pending()
    assert state["bot_id"] == int(fake.token.split(":")[0])
    assert state["allowed_chat_ids"] == [OWNER]
    assert first["data"]["parts"] == 2 and fake.sent_texts(OWNER)[0].startswith("word")
    assert all(len(text) <= 4096 for text in fake.sent_texts(OWNER))
    assert again["data"]["already_handled"] is True and len(fake.sent_texts(OWNER)) == 2
    assert done["data"]["marked"] == 1
    assert typing["success"] and fake.calls("sendChatAction")[-1].params["action"] == "typing"
    assert after["messages"] == []


async def test_get_new_messages_reads_unless_peeking_and_mark_read_moves_the_read_mark(
    env: Path, fake: FakeTelegram
) -> None:
    for text in ("one", "two", "three"):
        fake.inject_message(OWNER, text)
    async with Client(server) as client:

        async def new(**args: Any) -> dict[str, Any]:
            data: dict[str, Any] = envelope(await client.call_tool("get_new_messages", args))["data"]
            return data

        for _ in range(250):
            if len((await new(peek=True))["messages"]) == 3:
                break
            await asyncio.sleep(0.02)
        peeked = await new(peek=True, limit=2)
        taken = await new(limit=2)
        rest = await new(peek=True)
        first_id = taken["messages"][0]["message_id"]
        marked = envelope(await client.call_tool("mark_read", {"chat_id": str(OWNER), "message_id": first_id + 99}))
        pending = envelope(await client.call_tool("intake_pending", {}))["data"]["messages"]
    assert [m["text"] for m in peeked["messages"]] == ["one", "two"] and peeked["remaining"] == 1
    assert [m["text"] for m in taken["messages"]] == ["one", "two"] and taken["marked_read"] is True
    assert [m["text"] for m in rest["messages"]] == ["three"]
    assert marked["data"]["marked"] == 1 and marked["data"]["unread"] == 0
    assert [m["text"] for m in pending] == ["one", "two", "three"]  # the hub still answers every one
