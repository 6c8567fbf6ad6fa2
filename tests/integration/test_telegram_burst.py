"""200 messages while the hub, the Telegram MCP, and both are killed: every message answered exactly once.

The kills land while the agent is working on a message (the fake LLM holds that answer for a moment), which is
where a real crash almost always lands: the model call is most of a turn. The one window this cannot cover —
a crash in the millisecond between Telegram accepting a reply and the MCP recording it — is described in
docs/channels.md.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.telegram_server import FakeTelegram
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub
from tests.stack import telegram_env, wait_for

pytestmark = pytest.mark.slow

OWNER = 4242
MESSAGES = 200
KILL_AT = {50: "hub", 100: "telegram", 150: "both"}
HOLD_SECONDS = 1.5


class HoldingEcho:
    """Answers "echo: <text>"; the first time it sees a kill point's message it holds the answer a moment."""

    def __init__(self) -> None:
        self.held: set[int] = set()
        self.holding = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply:
        text = next((str(m["content"]) for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        number = int(text[1:]) if text.startswith("m") and text[1:].isdigit() else None
        if number in KILL_AT and number not in self.held:
            self.held.add(number)
            self.holding.set()
            return Reply.text(f"echo: {text}", delay=HOLD_SECONDS)
        return Reply.text(f"echo: {text}")


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(max_wait=0.2) as server:
        yield server


def telegram_pid(hub: RunningHub) -> int:
    pid = hub.status()["mcps"]["telegram"]["pid"]
    assert isinstance(pid, int)
    return pid


def test_a_burst_survives_kills_without_duplicates_or_losses(tmp_path: Path, telegram: FakeTelegram) -> None:
    echo = HoldingEcho()
    with FakeOpenAI() as llm:
        llm.set_handler(echo)
        env = {
            **fake_llm_agent_env(tmp_path, llm.api_base),
            **telegram_env(telegram, OWNER),
            "CHANNEL_POLL_INTERVAL_MS": "50",
            "GUARDIAN_CLASSIFIER": "off",
        }
        packages = ["guardian_mcp", "telegram_mcp"]
        home = tmp_path / "home"
        for number in range(1, MESSAGES + 1):
            telegram.inject_message(OWNER, f"m{number}")
        hub = start_hub(tmp_path, home, packages, env=env)
        try:
            for number, target in KILL_AT.items():
                wait_for(lambda n=number: f"echo: m{n - 1}" in telegram.sent_texts(OWNER), 120, f"reply {number - 1}")
                wait_for(lambda n=number: n in echo.held, 30, f"the agent working on m{number}")
                if target in ("telegram", "both"):
                    os.kill(telegram_pid(hub), signal.SIGKILL)
                if target in ("hub", "both"):
                    os.kill(hub.process.pid, signal.SIGKILL)
                    hub.process.wait(timeout=10)
                    hub = start_hub(tmp_path, home, packages, env=env)
            wait_for(lambda: f"echo: m{MESSAGES}" in telegram.sent_texts(OWNER), 180, "the last reply")
            time.sleep(1.0)  # anything still on its way arrives now: a duplicate would show
        finally:
            hub.stop()
    replies = telegram.sent_texts(OWNER)
    expected = [f"echo: m{number}" for number in range(1, MESSAGES + 1)]
    duplicates = sorted({text for text in replies if replies.count(text) > 1})
    lost = [text for text in expected if text not in replies]
    assert duplicates == [] and lost == []
    assert replies == expected  # and in order
