"""Parameter types shared by the tools, and the size limit every stored text obeys.

Agent ids follow agents.json (`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`): every read and write is scoped by one, and
the id also names the agent's export folder, so it can never carry a path.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field

from memorizer_mcp.fts import MAX_SUBSTRING_QUERY_CHARS
from shared.mcp_tools import InvalidArguments

DEFAULT_AGENT_ID = "annabelle"
AGENT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
MAX_TEXT_BYTES = 1024 * 1024
"""1 MB: the most any one text (a fact, a message, a note) may take, in UTF-8 bytes."""

TriggerType = Literal["cron", "manual", "event"]
ContactType = Literal["work", "personal", "ignored"]
ProjectStatus = Literal["active", "paused", "completed"]
ProjectType = Literal["work", "personal"]
ProjectPriority = Literal["high", "medium", "low"]
SourceType = Literal["auto", "manual"]
SourceStatus = Literal["ok", "warning", "error", "unknown"]
TimelineSource = Literal["facts", "conversations", "profile_changes", "skills", "contacts", "projects"]
TIMELINE_SOURCES: tuple[str, ...] = get_args(TimelineSource)
ExportFormat = Literal["markdown", "json"]

AgentId = Annotated[
    str,
    Field(
        pattern=AGENT_ID_PATTERN,
        description="Which agent's memory to use (default 'annabelle'). Each agent sees only its own records.",
    ),
]
RecordId = Annotated[int, Field(ge=1, le=2**62)]


def limit_text(field: str, value: str | None) -> None:
    """Refuse a text over `MAX_TEXT_BYTES` with a sentence naming the field and both sizes."""
    if value is None or len(value) * 4 <= MAX_TEXT_BYTES:  # cheap pre-check: 4 bytes per character at most
        return
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > MAX_TEXT_BYTES:
        raise InvalidArguments(
            f"{field} is too long: {size:,} bytes; the limit is 1 MB ({MAX_TEXT_BYTES:,} bytes). "
            "Store a summary instead, or keep the full text in a file."
        )


def limit_substring_query(field: str, value: str | None) -> None:
    """A text searched for as one substring must stay short enough for SQLite's LIKE (and useful)."""
    if value is not None and len(value) > MAX_SUBSTRING_QUERY_CHARS:
        raise InvalidArguments(
            f"{field} is {len(value):,} characters; a substring search takes at most {MAX_SUBSTRING_QUERY_CHARS:,}. "
            "Search for a distinctive part of the text."
        )


def require_text(field: str, value: str) -> str:
    """A text that must say something: not blank, within the size limit. Returns it stripped."""
    limit_text(field, value)
    stripped = value.strip()
    if not stripped:
        raise InvalidArguments(f"{field} is empty; give some text.")
    return stripped
