"""Which chats the bot listens to: an allow-list, or the one private chat that paired with a one-time code."""

from __future__ import annotations

import hmac
import secrets
from enum import StrEnum


class Decision(StrEnum):
    ACCEPT = "accept"
    PAIR = "pair"
    IGNORE = "ignore"


def new_pairing_code() -> str:
    return secrets.token_hex(4)


def decide(
    chat_id: int,
    chat_type: str,
    text: str | None,
    *,
    allowed: frozenset[int],
    owner: int | None,
    pairing_code: str | None,
) -> Decision:
    """Accept a message from an allowed chat; pair on `/pair <code>` when nobody is paired yet; else ignore.

    With an allow-list, pairing is off. Without one, only the paired owner chat is accepted, and only a private
    chat sending the right code (compared in constant time) can become the owner.
    """
    if allowed:
        return Decision.ACCEPT if chat_id in allowed else Decision.IGNORE
    if owner is not None:
        return Decision.ACCEPT if chat_id == owner else Decision.IGNORE
    if pairing_code and chat_type == "private" and text:
        words = text.strip().split()
        if len(words) == 2 and words[0].split("@", 1)[0] == "/pair" and hmac.compare_digest(words[1], pairing_code):
            return Decision.PAIR
    return Decision.IGNORE
