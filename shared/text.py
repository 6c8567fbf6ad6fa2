"""Text cut to a length: the one way every process shortens what it shows, logs or sends to a model. Pure.

Whatever is cut ends in a marker, and the result never passes the limit, marker included: a hostile text a
megabyte long becomes a line of the length its reader was promised.
"""

from __future__ import annotations

ELIDED = " […]"
"""The marker of text cut out of a model's prompt: the model reads that something was left out, not a typo."""


def shorten(text: str, limit: int, marker: str = "…") -> str:
    """`text` when it fits in `limit` characters; else its start (trailing blanks dropped) and `marker`."""
    if len(text) <= limit:
        return text
    if limit <= len(marker):
        return text[: max(limit, 0)]
    return text[: limit - len(marker)].rstrip() + marker


def clip(text: object, limit: int, marker: str = "…") -> str:
    """`text` on one line (every run of blanks and line breaks one space), shortened to `limit` characters."""
    return shorten(" ".join(str(text).split()), limit, marker)
