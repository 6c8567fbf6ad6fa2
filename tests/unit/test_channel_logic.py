"""The channel's pure rules: inbound verdicts, triage of pending messages, what the agent reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from orchestrator.channels.inbound import blocked_reply, judge_inbound
from orchestrator.channels.intake import PendingMessage, agent_text, is_owner, stale_notice, triage
from orchestrator.guardian import ScanDecision

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
BOT = 777


def pending(key: int, *, chat: int = 1, sender: int | None = 1, age_s: float = 1, text: str = "hi") -> PendingMessage:
    return PendingMessage(
        message_key=key, chat_id=chat, message_id=key, from_id=sender, text=text, date=NOW - timedelta(seconds=age_s)
    )


@pytest.mark.parametrize(
    ("decision", "owner", "action"),
    [
        (ScanDecision(allowed=True, risk=0.1), True, "pass"),
        (ScanDecision(allowed=True, risk=0.1), False, "pass"),
        (ScanDecision(allowed=True, reason="prompt_injection detected", risk=0.9, suspicious=True), True, "tainted"),
        (ScanDecision(allowed=True, reason="prompt_injection detected", risk=0.9, suspicious=True), False, "tainted"),
        (ScanDecision(allowed=False, reason="prompt_injection detected", risk=0.6), True, "tainted"),
        (ScanDecision(allowed=False, reason="prompt_injection detected", risk=0.6), False, "block"),
        (ScanDecision(allowed=False, reason="prompt_injection detected", risk=0.95), True, "block"),
        (ScanDecision(allowed=False, reason="prompt_injection detected", risk=0.9), True, "block"),
        (ScanDecision(allowed=False, reason="Guardian is down", scanned=False), True, "tainted"),
        (ScanDecision(allowed=False, reason="Guardian is down", scanned=False), False, "block"),
        (ScanDecision(allowed=True, reason="Guardian is down", scanned=False), False, "pass"),
    ],
)
def test_inbound_verdicts(decision: ScanDecision, owner: bool, action: str) -> None:
    assert judge_inbound(decision, owner=owner, owner_block_risk=0.9).action == action


def test_a_blocked_sender_is_told_why() -> None:
    verdict = judge_inbound(
        ScanDecision(allowed=False, reason="jailbreak detected", risk=1), owner=True, owner_block_risk=0.9
    )
    assert "jailbreak detected" in blocked_reply(verdict)


def test_triage_skips_own_stale_and_in_flight_messages() -> None:
    messages = [
        pending(1),
        pending(2, sender=BOT),
        pending(3, age_s=3600),
        pending(4),
        pending(5, chat=2, sender=2),
    ]
    result = triage(messages, bot_id=BOT, now=NOW, stale_after=timedelta(minutes=15), in_flight={4})
    assert [m.message_key for m in result.handle] == [1, 5]
    assert [m.message_key for m in result.own] == [2]
    assert [m.message_key for m in result.stale] == [3]


def test_the_owner_is_the_allowed_private_chat_or_an_allowed_user_in_a_group() -> None:
    assert is_owner(pending(1, chat=42, sender=42), frozenset())
    assert is_owner(pending(1, chat=-100, sender=42), frozenset({42}))
    assert not is_owner(pending(1, chat=-100, sender=43), frozenset({42}))
    assert not is_owner(pending(1, chat=-100, sender=None), frozenset({42}))


def test_media_becomes_a_line_the_agent_can_act_on() -> None:
    photo = PendingMessage(
        message_key=1, chat_id=5, message_id=9, text="look", date=NOW, media="document", media_file_name="a.pdf"
    )
    text = agent_text(photo)
    assert text.startswith("look\n") and "'a.pdf'" in text and "telegram_download_media" in text
    assert agent_text(pending(2, text="plain")) == "plain"


def test_the_stale_notice_counts_and_dates() -> None:
    notice = stale_notice([pending(1, age_s=7200), pending(2, age_s=3600)])
    assert "skipped 2 messages" in notice and "11:00 UTC" in notice and "Send them again" in notice
    assert "Send it again" in stale_notice([pending(1, age_s=7200)])
