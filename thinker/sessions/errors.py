"""Errors of the session package.

    SessionError            base: anything this package refuses or cannot do
    ├── InvalidChatId       a chat id that cannot name a session file (empty, too long, a path, control chars)
    ├── SessionWriteError   the session file could not be written (disk full, permissions); the turn is lost
    └── UtilityModelError   the utility model did not answer usefully (see `utility_llm`)

Reading never raises for damaged content: a broken line is skipped and logged (see `store.parse_session`).
"""

from __future__ import annotations


class SessionError(Exception):
    """Base class; the message is a sentence naming the chat and what to do."""


class InvalidChatId(SessionError, ValueError):
    """The chat id cannot be used as a session file name."""


class SessionWriteError(SessionError):
    """Writing the session file failed; the message names the file and the operating system's reason."""


class UtilityModelError(SessionError):
    """The utility model (compaction summaries, fact extraction) gave no usable answer; the message says why."""
