"""Session files: one JSONL file per chat at `<root>/<agentId>/<chatId>.jsonl`, and an in-memory cache of them.

A file holds a header line, at most one compaction line (written only by `rewrite`) and one line per turn:

    {"type": "header", "chatId": "8304042211", "agentId": "annabelle", "createdAt": "2026-...Z", "version": 1}
    {"type": "compaction", "summary": "The user asked about...", "compactedTurns": 25, "timestamp": "2026-...Z"}
    {"type": "turn", "user": "...", "assistant": "...", "timestamp": "2026-...Z", "toolsUsed": ["gmail_list_emails"],
     "tokens": {"prompt": 12955, "completion": 100}, "messages": [...]}

A turn's `messages` (present only when tools were used) are the structured messages the model produced after
the user message - assistant tool calls, tool results, the final answer - so history replays the real chain.

Durability: a turn is one `write` to a file opened for appending, then fsync. A process killed mid-write leaves
at most one torn last line; loading skips it (and any other line that is not a valid entry) with a warning, and
the next append starts on a fresh line so it is not glued to the fragment. Compaction replaces the whole file
atomically: a temporary file in the same folder, fsync, `os.replace`, fsync of the folder.

Parsing and serialising are pure functions (`parse_session`, `session_lines`); `SessionStore` is the I/O.
One Thinker process writes an agent's sessions: the cache trusts that nobody else edits the files meanwhile.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import logging
import os
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from shared.timeutil import Clock, as_utc, format_timestamp, parse_timestamp, utc_now
from thinker.sessions.errors import InvalidChatId, SessionWriteError
from thinker.sessions.messages import (
    ChatMessage,
    assistant_message,
    coerce_message,
    text_of,
    user_message,
)

log = logging.getLogger(__name__)

SESSION_VERSION = 1
CACHE_IDLE = timedelta(minutes=30)
"""A chat's session leaves the memory cache after this long without use (it is read from disk again)."""
MAX_AGE_DAYS = 7
"""`cleanup` deletes session files not written for this many days."""
STALE_TEMP = timedelta(minutes=10)
"""A compaction's temporary file older than this was left by a crash: `cleanup` removes it."""
MAX_CHAT_ID_BYTES = 180
"""Longest chat id (UTF-8): its encoded file name must stay under the usual 255-byte limit."""

_PLAIN_CHAT_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
_ENCODED_PREFIX = "~"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SUFFIX = ".jsonl"


# --- the data ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TokenUsage:
    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion


@dataclass(frozen=True)
class SessionHeader:
    chat_id: str
    agent_id: str
    created_at: datetime
    version: int = SESSION_VERSION


@dataclass(frozen=True)
class Compaction:
    summary: str
    compacted_turns: int
    timestamp: datetime


@dataclass(frozen=True)
class Turn:
    """One exchange: the user's message, the final answer, and (when tools were used) the chain between."""

    user: str
    assistant: str
    timestamp: datetime
    tools_used: tuple[str, ...] = ()
    tokens: TokenUsage = field(default_factory=TokenUsage)
    messages: tuple[ChatMessage, ...] | None = None
    hub_turn: str | None = None
    """The hub's turn this exchange was answered in: work derived from it later (fact extraction) names it, so the
    hub can tell whether untrusted content had entered it."""

    @property
    def chars(self) -> int:
        """Characters of user and assistant text: what the compaction threshold counts."""
        return len(self.user) + len(self.assistant)

    def chat_messages(self) -> list[ChatMessage]:
        """The turn as the model saw it: the user message, then the stored chain or the plain answer."""
        out: list[ChatMessage] = [user_message(self.user)] if self.user else []
        chain = [m for m in self.messages or () if m["role"] != "system"]
        # Writers that stored the user message at the head of the chain are accepted; it is not repeated.
        if chain and chain[0]["role"] == "user":
            chain = chain[1:]
        out.extend(chain)
        last = out[-1] if out else None
        answered = last is not None and last["role"] == "assistant" and bool(text_of(last))
        if self.assistant and not answered:
            out.append(assistant_message(self.assistant))
        return out


def make_turn(
    user: str,
    assistant: str,
    *,
    now: datetime,
    tools_used: Sequence[str] = (),
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    messages: Sequence[ChatMessage] | None = None,
    hub_turn: str | None = None,
) -> Turn:
    """A turn ready for `SessionStore.append_turn`.

    `messages` are the model's messages after the user message; they are kept only when they contain a tool
    call, because a plain answer is already `assistant` and storing it twice only grows the file.
    """
    chain: tuple[ChatMessage, ...] | None = None
    if messages and any(m["role"] == "assistant" and m.get("tool_calls") for m in messages):
        chain = tuple(messages)
    return Turn(
        user=user,
        assistant=assistant,
        timestamp=as_utc(now),
        tools_used=tuple(tools_used),
        tokens=TokenUsage(max(0, prompt_tokens), max(0, completion_tokens)),
        messages=chain,
        hub_turn=hub_turn,
    )


@dataclass(frozen=True)
class Session:
    header: SessionHeader
    compaction: Compaction | None = None
    turns: tuple[Turn, ...] = ()

    @property
    def chat_id(self) -> str:
        return self.header.chat_id

    @property
    def summary(self) -> str | None:
        """The compaction summary, for the system prompt ("Previous conversation context")."""
        return self.compaction.summary if self.compaction else None

    @property
    def chars(self) -> int:
        return sum(turn.chars for turn in self.turns)

    def messages(self) -> list[ChatMessage]:
        """Every turn as chat messages, oldest first (the compaction summary is not among them)."""
        return [message for turn in self.turns for message in turn.chat_messages()]


def new_session(chat_id: str, agent_id: str, now: datetime) -> Session:
    return Session(SessionHeader(chat_id=chat_id, agent_id=agent_id, created_at=as_utc(now)))


# --- file names ------------------------------------------------------------------------------------------------
def chat_file_stem(chat_id: str) -> str:
    """The file name (without `.jsonl`) for a chat; different chat ids never share a file.

    Plain ids (letters, digits, `_`, `-`, inner dots - Telegram's `-100123`, `http-abc`) are used as they are;
    anything else (`user@example.com`, `cli:local`, non-ASCII) is stored as `~` + URL-safe base64, a prefix no
    plain id can have. Ids that try to be paths, or could not be a file name, are refused.
    """
    if not isinstance(chat_id, str) or not chat_id:
        raise InvalidChatId("A chat id must be a non-empty string.")
    if len(chat_id.encode("utf-8")) > MAX_CHAT_ID_BYTES:
        raise InvalidChatId(f"The chat id is longer than {MAX_CHAT_ID_BYTES} bytes; use a shorter id.")
    if "/" in chat_id or "\\" in chat_id or chat_id in (".", "..") or _CONTROL.search(chat_id):
        raise InvalidChatId(f"The chat id {chat_id!r} contains a path separator or control characters.")
    if _PLAIN_CHAT_ID.fullmatch(chat_id):
        return chat_id
    encoded = base64.urlsafe_b64encode(chat_id.encode("utf-8")).decode("ascii").rstrip("=")
    return _ENCODED_PREFIX + encoded


def chat_id_from_stem(stem: str) -> str | None:
    """The chat id a file name stands for (the inverse of `chat_file_stem`), or None for a foreign name."""
    if not stem.startswith(_ENCODED_PREFIX):
        return stem if _PLAIN_CHAT_ID.fullmatch(stem) else None
    encoded = stem[len(_ENCODED_PREFIX) :]
    try:
        chat_id = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode("utf-8")
        # The decoder skips characters outside its alphabet: only a name that encodes back exactly is ours.
        return chat_id if chat_file_stem(chat_id) == stem else None
    except (binascii.Error, UnicodeDecodeError, InvalidChatId):
        return None


# --- serialising -----------------------------------------------------------------------------------------------
def _dumps(entry: dict[str, Any]) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def _record_line(kind: str, record: SessionHeader | Compaction) -> str:
    """A header or compaction line: the record's fields in order, named in camelCase, times as ISO 8601."""
    entry: dict[str, Any] = {"type": kind}
    for item in fields(record):
        value = getattr(record, item.name)
        head, *rest = item.name.split("_")
        entry[head + "".join(word.title() for word in rest)] = (
            format_timestamp(value) if isinstance(value, datetime) else value
        )
    return _dumps(entry)


def header_line(header: SessionHeader) -> str:
    return _record_line("header", header)


def compaction_line(compaction: Compaction) -> str:
    return _record_line("compaction", compaction)


def turn_line(turn: Turn) -> str:
    entry: dict[str, Any] = {
        "type": "turn",
        "user": turn.user,
        "assistant": turn.assistant,
        "timestamp": format_timestamp(turn.timestamp),
        "toolsUsed": list(turn.tools_used),
        "tokens": {"prompt": turn.tokens.prompt, "completion": turn.tokens.completion},
    }
    if turn.messages:
        entry["messages"] = list(turn.messages)
    if turn.hub_turn:
        entry["hubTurn"] = turn.hub_turn
    return _dumps(entry)


def session_lines(session: Session) -> list[str]:
    """The whole file for `session`, one string per line (without newlines)."""
    lines = [header_line(session.header)]
    if session.compaction is not None:
        lines.append(compaction_line(session.compaction))
    lines.extend(turn_line(turn) for turn in session.turns)
    return lines


# --- parsing ---------------------------------------------------------------------------------------------------
def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _parse_turn(entry: dict[str, Any], fallback_time: datetime) -> Turn | None:
    user, assistant = entry.get("user"), entry.get("assistant")
    if not isinstance(user, str) and not isinstance(assistant, str):
        return None
    tools = entry.get("toolsUsed")
    raw_tokens = entry.get("tokens")
    tokens: dict[str, Any] = raw_tokens if isinstance(raw_tokens, dict) else {}
    raw_messages = entry.get("messages")
    messages: tuple[ChatMessage, ...] | None = None
    if isinstance(raw_messages, list):
        coerced = [m for m in map(coerce_message, raw_messages) if m is not None]
        messages = tuple(coerced) or None
    return Turn(
        user=user if isinstance(user, str) else "",
        assistant=assistant if isinstance(assistant, str) else "",
        timestamp=parse_timestamp(entry.get("timestamp")) or fallback_time,
        tools_used=tuple(t for t in tools if isinstance(t, str)) if isinstance(tools, list) else (),
        tokens=TokenUsage(_count(tokens.get("prompt")), _count(tokens.get("completion"))),
        messages=messages,
        hub_turn=hub_turn if isinstance(hub_turn := entry.get("hubTurn"), str) and hub_turn else None,
    )


def parse_session(text: str, chat_id: str, agent_id: str, now: datetime) -> tuple[Session, list[str]]:
    """A session from a file's text, and the problems met (one sentence each, for the log).

    Nothing in the text can make this raise: lines that are not JSON objects of a known type are skipped. A
    missing header is rebuilt (created at the first turn's time, else `now`); of several compaction lines the
    last counts.
    """
    problems: list[str] = []
    header: SessionHeader | None = None
    compaction: Compaction | None = None
    turns: list[Turn] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            problems.append(f"line {number} is not valid JSON (a torn write?): skipped")
            continue
        kind = entry.get("type") if isinstance(entry, dict) else None
        fallback_time = turns[-1].timestamp if turns else (header.created_at if header else as_utc(now))
        if kind == "turn":
            turn = _parse_turn(entry, fallback_time)
            if turn is None:
                problems.append(f"line {number} is a turn without text: skipped")
            else:
                turns.append(turn)
        elif kind == "header" and header is None:
            created = parse_timestamp(entry.get("createdAt")) or as_utc(now)
            version = entry.get("version")
            header = SessionHeader(
                chat_id=chat_id,
                agent_id=agent_id,
                created_at=created,
                version=version if isinstance(version, int) and not isinstance(version, bool) else SESSION_VERSION,
            )
        elif kind == "compaction" and isinstance(entry.get("summary"), str) and entry["summary"].strip():
            compaction = Compaction(
                summary=entry["summary"],
                compacted_turns=_count(entry.get("compactedTurns")),
                timestamp=parse_timestamp(entry.get("timestamp")) or fallback_time,
            )
        else:
            problems.append(f"line {number} is not a session entry ({str(kind or 'no type')[:40]}): skipped")
    if header is None:
        if turns or compaction:
            problems.append("the header line is missing: rebuilt")
        created = turns[0].timestamp if turns else as_utc(now)
        header = SessionHeader(chat_id=chat_id, agent_id=agent_id, created_at=created)
    return Session(header=header, compaction=compaction, turns=tuple(turns)), problems


# --- the store -------------------------------------------------------------------------------------------------
@dataclass
class _Cached:
    session: Session
    last_used: datetime


def _fsync_folder(folder: Path) -> None:
    # Makes a new or renamed directory entry durable. Not possible on every platform (Windows): best effort.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class SessionStore:
    """An agent's session files under `root/<agent_id>/`, with a per-chat cache evicted after 30 idle minutes.

    `clock` gives the time for cache bookkeeping and for the header of a new session; pass a fake in tests.
    """

    def __init__(
        self,
        root: Path,
        agent_id: str,
        *,
        clock: Clock = utc_now,
        cache_idle: timedelta = CACHE_IDLE,
    ) -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}", agent_id):
            raise InvalidChatId(f"The agent id {agent_id!r} cannot name a session folder.")
        self.agent_id = agent_id
        self.folder = Path(root) / agent_id
        self._clock = clock
        self._cache_idle = cache_idle
        self._cache: dict[str, _Cached] = {}

    # --- paths ---
    def path_for(self, chat_id: str) -> Path:
        path = self.folder / (chat_file_stem(chat_id) + _SUFFIX)
        # The stem cannot contain separators; this guards the guard.
        if path.parent != self.folder:
            raise InvalidChatId(f"The chat id {chat_id!r} does not name a file in the session folder.")
        return path

    # --- reading ---
    def load(self, chat_id: str) -> Session:
        """The chat's session: from the cache, else from its file, else a new empty one (not yet written)."""
        now = as_utc(self._clock())
        self.evict_idle(now)
        path = self.path_for(chat_id)
        cached = self._cache.get(chat_id)
        if cached is not None:
            cached.last_used = now
            return cached.session
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            session = new_session(chat_id, self.agent_id, now)
        except OSError as exc:
            # An unreadable file must not stop the conversation: start over in memory and say why.
            log.warning("session file unreadable, starting empty", extra={"path": str(path), "error": str(exc)})
            session = new_session(chat_id, self.agent_id, now)
        else:
            # A write torn inside a multi-byte character must not make the whole file undecodable.
            session, problems = parse_session(raw.decode("utf-8", errors="replace"), chat_id, self.agent_id, now)
            for problem in problems:
                log.warning("session file: %s", problem, extra={"path": str(path)})
        self._cache[chat_id] = _Cached(session, now)
        return session

    @property
    def cached_chats(self) -> list[str]:
        return list(self._cache)

    def evict_idle(self, now: datetime | None = None) -> list[str]:
        """Drop sessions unused for `cache_idle` from memory (their files stay); returns their chat ids."""
        moment = as_utc(now or self._clock())
        idle = [chat for chat, entry in self._cache.items() if moment - entry.last_used >= self._cache_idle]
        for chat in idle:
            del self._cache[chat]
        return idle

    # --- writing ---
    def append_turn(self, chat_id: str, turn: Turn) -> Session:
        """Append one turn (creating the file with its header if needed), durably; returns the updated session."""
        session = self.load(chat_id)
        path = self.path_for(chat_id)
        line = (turn_line(turn) + "\n").encode("utf-8")
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size == 0:
                    data = (header_line(session.header) + "\n").encode("utf-8") + line
                else:
                    os.lseek(fd, size - 1, os.SEEK_SET)
                    # After a torn write the file does not end with a newline: start a fresh line.
                    data = line if os.read(fd, 1) == b"\n" else b"\n" + line
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            if size == 0:
                _fsync_folder(self.folder)
        except OSError as exc:
            raise SessionWriteError(
                f"Could not save the turn to {path} ({exc.strerror or exc}); check free disk space and permissions."
            ) from None
        updated = replace(session, turns=(*session.turns, turn))
        self._cache[chat_id] = _Cached(updated, as_utc(self._clock()))
        return updated

    def rewrite(self, session: Session) -> None:
        """Replace the chat's file with `session`, atomically: readers see the old file or the new, never half."""
        path = self.path_for(session.chat_id)
        data = ("\n".join(session_lines(session)) + "\n").encode("utf-8")
        temp = self.folder / f".{path.stem}.{secrets.token_hex(4)}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
            _fsync_folder(self.folder)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            raise SessionWriteError(
                f"Could not rewrite {path} ({exc.strerror or exc}); the previous file is unchanged."
            ) from None
        self._cache[session.chat_id] = _Cached(session, as_utc(self._clock()))

    def clear(self, chat_id: str) -> bool:
        """Forget a chat: its file and its cached state. True when there was a file."""
        path = self.path_for(chat_id)
        self._cache.pop(chat_id, None)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise SessionWriteError(f"Could not delete {path} ({exc.strerror or exc}).") from None
        return True

    def clear_all(self) -> int:
        """Delete every session of this agent (a sub-agent's temporary sessions); returns how many files."""
        self._cache.clear()
        removed = 0
        for path in self._files(self.folder.glob("*" + _SUFFIX)):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
        with contextlib.suppress(OSError):
            self.folder.rmdir()
        return removed

    def cleanup(self, now: datetime, max_age_days: float = MAX_AGE_DAYS) -> list[str]:
        """Delete session files not written for `max_age_days`, and temporary files left by a crash.

        Returns the chat ids whose sessions were deleted (so the caller can drop their other state).
        """
        moment = as_utc(now)
        cutoff = (moment - timedelta(days=max_age_days)).timestamp()
        removed: list[str] = []
        for path in self._files(self.folder.glob("*" + _SUFFIX)):
            chat_id = chat_id_from_stem(path.name[: -len(_SUFFIX)])
            try:
                if path.stat().st_mtime >= cutoff:
                    continue
                path.unlink()
            except OSError:
                continue
            if chat_id is not None:
                self._cache.pop(chat_id, None)
                removed.append(chat_id)
        stale = (moment - STALE_TEMP).timestamp()
        for temp in self._files(self.folder.glob(".*.tmp")):
            with contextlib.suppress(OSError):
                if temp.stat().st_mtime < stale:
                    temp.unlink()
        self.evict_idle(moment)
        return sorted(removed)

    @staticmethod
    def _files(paths: Iterable[Path]) -> list[Path]:
        return sorted(path for path in paths if path.is_file())


__all__ = [
    "CACHE_IDLE",
    "MAX_AGE_DAYS",
    "Compaction",
    "Session",
    "SessionHeader",
    "SessionStore",
    "TokenUsage",
    "Turn",
    "chat_file_stem",
    "chat_id_from_stem",
    "make_turn",
    "new_session",
    "parse_session",
    "session_lines",
]
