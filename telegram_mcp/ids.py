"""Chat ids as the tools accept them: a number, or its decimal text."""

from __future__ import annotations

import re

from shared.mcp_tools import InvalidArguments
from shared.text import shorten
from shared.validation import MAX_NAME_CHARS

_NUMERIC = re.compile(r"-?\d{1,20}")


def chat_id_of(raw: str | int) -> int:
    text = str(raw).strip()
    if not _NUMERIC.fullmatch(text):
        shown = shorten(str(raw), MAX_NAME_CHARS)
        raise InvalidArguments(f"chat_id must be a numeric Telegram chat id (got {shown!r}); see list_chats.")
    return int(text)
