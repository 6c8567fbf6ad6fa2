"""Replies in Telegram: the model's Markdown sent as Telegram HTML, plain text when Telegram refuses the markup,
long replies split on paragraphs (the Telegram MCP in process against the fake Bot API)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from telegram_mcp.server import server
from tests.fakes.telegram_server import FakeTelegram

OWNER = 4242


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram(max_wait=0.3) as tg:
        yield tg


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch, fake: FakeTelegram, tmp_path: Path) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", fake.token)
    monkeypatch.setenv("TELEGRAM_API_BASE", fake.url)
    monkeypatch.setenv("TELEGRAM_ALLOWED_CHAT_IDS", str(OWNER))
    monkeypatch.setenv("TELEGRAM_POLL_TIMEOUT_SECONDS", "1")


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def reply_to_one_message(fake: FakeTelegram, reply: str) -> dict[str, Any]:
    fake.inject_message(OWNER, "a question")
    async with Client(server) as client:
        for _ in range(250):
            pending = envelope(await client.call_tool("intake_pending", {}))["data"]["messages"]
            if pending:
                break
            await asyncio.sleep(0.02)
        key = pending[0]["message_key"]
        return envelope(await client.call_tool("intake_reply", {"message_key": key, "message": reply}))


async def test_a_markdown_reply_is_sent_as_telegram_html(fake: FakeTelegram) -> None:
    answer = await reply_to_one_message(fake, "**Done**: saved `notes.md`.\n\n- milk\n- eggs < 12")
    assert answer["success"] is True
    request = fake.calls("sendMessage")[-1].params
    assert request["parse_mode"] == "HTML"
    assert request["text"] == "<b>Done</b>: saved <code>notes.md</code>.\n\n• milk\n• eggs &lt; 12"
    assert fake.sent_texts(OWNER) == ["Done: saved notes.md.\n\n• milk\n• eggs < 12"]


async def test_markup_telegram_refuses_is_sent_again_as_plain_text(fake: FakeTelegram) -> None:
    fake.refuse_markup = True
    answer = await reply_to_one_message(fake, "**Done**, see [the file](https://example.com/f).")
    assert answer["success"] is True and answer["data"]["parts"] == 1
    sent = fake.calls("sendMessage")
    assert [r.params.get("parse_mode") for r in sent] == ["HTML", None]
    assert fake.sent_texts(OWNER) == ["**Done**, see [the file](https://example.com/f)."]


async def test_a_long_reply_is_split_on_paragraphs_and_each_part_formatted(fake: FakeTelegram) -> None:
    paragraphs = [f"**Part {n}.** " + "word " * 300 for n in range(8)]
    answer = await reply_to_one_message(fake, "\n\n".join(paragraphs))
    texts = fake.sent_texts(OWNER)
    assert answer["data"]["parts"] == len(texts) >= 3
    assert all(len(text) <= 4096 for text in texts)
    assert all(text.startswith("Part ") for text in texts)  # every part starts at a paragraph
    assert all(r.params["text"].startswith("<b>Part ") for r in fake.calls("sendMessage"))


async def test_the_send_message_tool_formats_markdown_too(fake: FakeTelegram) -> None:
    async with Client(server) as client:
        sent = envelope(await client.call_tool("send_message", {"chat_id": str(OWNER), "message": "_Reminder_: tea"}))
    assert sent["success"] is True
    assert fake.calls("sendMessage")[-1].params["text"] == "<i>Reminder</i>: tea"
