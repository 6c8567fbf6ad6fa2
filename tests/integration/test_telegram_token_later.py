"""A bot token added to .env while the hub runs: the hub starts the Telegram MCP with it (or restarts the one a call
started without it) and its channel starts polling, with no restart of the hub. Fake Bot API, scripted model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from telegram_mcp.server import NO_TOKEN
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.telegram_server import FakeTelegram
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub
from tests.stack import telegram_env, wait_for

pytestmark = pytest.mark.slow

OWNER = 4242
TIMEOUT = 120.0  # the reply includes the Thinker's cold start


def hub_without_the_token(tmp_path: Path, llm: FakeOpenAI, telegram: FakeTelegram) -> RunningHub:
    env = {
        **fake_llm_agent_env(tmp_path, llm.api_base),
        **telegram_env(telegram, OWNER),
        "GUARDIAN_CLASSIFIER": "off",
        "MCP_HEALTH_INTERVAL_SECONDS": "0.3",
    }
    del env["TELEGRAM_BOT_TOKEN"]
    return start_hub(tmp_path, tmp_path / "home", ["guardian_mcp", "telegram_mcp"], env=env)


def answered(telegram: FakeTelegram, llm: FakeOpenAI, text: str) -> None:
    llm.reply(f"answer to {text}")
    telegram.inject_message(OWNER, text)
    wait_for(lambda: f"answer to {text}" in telegram.sent_texts(OWNER), TIMEOUT, "the reply on Telegram")


def test_a_token_added_later_starts_the_mcp_and_the_polling(
    tmp_path: Path, llm: FakeOpenAI, telegram: FakeTelegram
) -> None:
    with hub_without_the_token(tmp_path, llm, telegram) as hub:
        assert hub.status()["mcps"]["telegram"]["state"] == "not started"
        assert not telegram.calls("getUpdates")
        Path(os.environ["ANNABELLE_ENV_FILE"]).write_text(f"TELEGRAM_BOT_TOKEN={telegram.token}\n")
        answered(telegram, llm, "hello after the token")
    assert "telegram polling starts" in hub.log()


def test_a_token_added_after_a_call_restarts_the_mcp_with_it_and_polling_starts(
    tmp_path: Path, llm: FakeOpenAI, telegram: FakeTelegram
) -> None:
    with hub_without_the_token(tmp_path, llm, telegram) as hub:
        answer = hub.call("telegram_send_message", {"chat_id": str(OWNER), "message": "hi"})
        assert answer["success"] is False and answer["error"] == NO_TOKEN
        assert hub.status()["mcps"]["telegram"]["state"] == "ready"  # running, answering "not configured"
        Path(os.environ["ANNABELLE_ENV_FILE"]).write_text(f"TELEGRAM_BOT_TOKEN={telegram.token}\n")
        answered(telegram, llm, "hello after the restart")
        assert hub.status()["mcps"]["telegram"]["restarts"] == 0
        sent = hub.call("telegram_send_message", {"chat_id": str(OWNER), "message": "now it works"})
        assert sent["success"], sent
