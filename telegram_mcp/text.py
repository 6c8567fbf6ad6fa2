"""Splitting long replies into messages Telegram accepts (at most 4,096 characters each)."""

from __future__ import annotations

MAX_MESSAGE_CHARS = 4096


def split_message(text: str, limit: int = MAX_MESSAGE_CHARS) -> list[str]:
    """Cut `text` into parts of at most `limit` characters, preferring paragraph, then line, then word breaks.

    Only a word longer than `limit` is cut inside. Nothing is lost except the whitespace at a cut.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[: limit + 1]
        cut = -1
        for separator in ("\n\n", "\n", " "):
            cut = window.rfind(separator, 1, limit + 1)
            if cut > 0:
                break
        if cut <= 0:
            head, rest = rest[:limit], rest[limit:]
        else:
            head, rest = rest[:cut], rest[cut:]
        head = head.rstrip()
        rest = rest.lstrip()
        if head:
            parts.append(head)
    if rest.strip() or not parts:
        parts.append(rest)
    return parts
