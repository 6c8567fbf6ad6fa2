"""The Telegram MCP as a real process: `python -m telegram_mcp` over stdio, polling the fake Bot API."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.fakes.telegram_server import FakeTelegram

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def test_the_spawned_server_polls_sends_and_acks(annabelle_home: Path, tmp_path: Path) -> None:
    with FakeTelegram(max_wait=0.3) as fake:
        fake.inject_message(31337, "hi from the phone")
        env = {
            **os.environ,
            "ANNABELLE_HOME": str(annabelle_home),
            "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
            "TELEGRAM_BOT_TOKEN": fake.token,
            "TELEGRAM_API_BASE": fake.url,
            "TELEGRAM_ALLOWED_CHAT_IDS": "31337",
            "TELEGRAM_POLL_TIMEOUT_SECONDS": "1",
        }
        params = StdioServerParameters(command=sys.executable, args=["-m", "telegram_mcp"], env=env, cwd=str(REPO_ROOT))
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            messages: list[dict[str, Any]] = []
            for _ in range(250):
                messages = envelope(await client.call_tool("intake_pending", {}))["data"]["messages"]
                if messages:
                    break
                await asyncio.sleep(0.02)
            sent = envelope(await client.call_tool("send_message", {"chat_id": "31337", "message": "hello!"}))
            acked = envelope(await client.call_tool("intake_ack", {"up_to_message_key": messages[0]["message_key"]}))
            after = envelope(await client.call_tool("intake_pending", {}))["data"]["messages"]
    assert len(tools) == 19
    assert [m["text"] for m in messages] == ["hi from the phone"]
    assert sent["success"] is True
    assert fake.sent_texts(31337) == ["hello!"]
    assert acked["data"]["cursor"] == messages[0]["message_key"]
    assert after == []
    assert (annabelle_home / "telegram" / "telegram.db").exists()
    assert fake.token not in (annabelle_home / "logs" / "telegram.log").read_text(encoding="utf-8")
