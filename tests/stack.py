"""What the tests that run the whole stack share: the settings of a poisoned inbox and of a fake Bot API, what the
inbox test MCP really did, the approvals waiting for the owner, and polling until something happens."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from tests.fakes.telegram_server import FakeTelegram
from tests.hub_process import RunningHub


def poisoned_inbox_env(inbox_text: str) -> dict[str, str]:
    """The inbox test MCP serves `inbox_text` (untrusted output); Guardian lets it through, so taint decides."""
    return {"GUARDIAN_FAIL_MODE": "open", "INBOX_TEXT": inbox_text}


def telegram_env(telegram: FakeTelegram, owner: int) -> dict[str, str]:
    """The Telegram MCP talks to `telegram`, answers only `owner`'s chat, and the hub polls it quickly."""
    return {
        "TELEGRAM_BOT_TOKEN": telegram.token,
        "TELEGRAM_API_BASE": telegram.url,
        "TELEGRAM_ALLOWED_CHAT_IDS": str(owner),
        "TELEGRAM_POLL_TIMEOUT_SECONDS": "1",
        "CHANNEL_POLL_INTERVAL_MS": "100",
    }


def inbox_effects(hub: RunningHub) -> list[dict[str, Any]]:
    """Every send and note the inbox test MCP really made, in order."""
    path = hub.home / "inbox-effects.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def pending_approvals(hub: RunningHub) -> list[dict[str, Any]]:
    with hub.client() as client:
        return [a for a in client.get("/approvals").json()["approvals"] if a["status"] == "pending"]


def wait_for(condition: Callable[[], Any], timeout: float, what: str = "the condition") -> Any:
    """The first truthy value of `condition`, polled every 20 ms; AssertionError naming `what` after `timeout`
    seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")
