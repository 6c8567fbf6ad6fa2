"""Search expressions built safely from any text: FTS5 MATCH queries and LIKE patterns.

FTS5 has its own query language (`AND`, `OR`, `NOT`, `NEAR(...)`, `"phrases"`, `prefix*`, `^start`,
`column:`, `-`, parentheses), and a user's text such as `C++ "quoted" -- (draft)` would either raise a syntax
error or mean something else. So the text is cut into the tokens FTS5's `unicode61` tokenizer would see (runs of
letters and digits) and each token is quoted as a phrase: operators become plain words, punctuation vanishes,
and an empty or punctuation-only text gives no query at all (the caller then skips FTS) instead of an error.
"""

from __future__ import annotations

import re

MAX_TOKENS = 64
"""More tokens than this add nothing to relevance but make every query slower."""

MAX_LIKE_KEYWORDS = 32
MAX_LIKE_KEYWORD_CHARS = 200
"""SQLite refuses LIKE patterns over 50,000 bytes; a keyword is cut to its first 200 characters long before."""
MAX_SUBSTRING_QUERY_CHARS = 1000
"""The longest text a tool searches for as one substring (search_conversations, timeline, contact names)."""
_TOKEN = re.compile(r"[^\W_]+")


def fts_tokens(text: str) -> list[str]:
    """Lower-cased, distinct tokens of two characters or more, in order of first appearance."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        if len(token) > 1:
            seen.setdefault(token, None)
            if len(seen) == MAX_TOKENS:
                break
    return list(seen)


def fts_query(text: str) -> str | None:
    """`"tok1" OR "tok2" ...`, or None when the text has no searchable token."""
    tokens = fts_tokens(text)
    if not tokens:
        return None
    # Tokens hold only letters and digits, so they need no escaping inside the quotes.
    return " OR ".join(f'"{token}"' for token in tokens)


def escape_like(text: str) -> str:
    """`text` as a literal inside a LIKE pattern that uses `ESCAPE '\\'`."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_keywords(text: str) -> list[str]:
    """The original's fallback keywords: lower-cased words longer than two characters, else the whole text."""
    words = [word[:MAX_LIKE_KEYWORD_CHARS] for word in text.lower().split() if len(word) > 2]
    if not words:
        stripped = text.strip().lower()[:MAX_LIKE_KEYWORD_CHARS]
        return [stripped] if stripped else []
    return list(dict.fromkeys(words))[:MAX_LIKE_KEYWORDS]


def like_patterns(text: str) -> list[str]:
    return [f"%{escape_like(word)}%" for word in like_keywords(text)]
