"""The local store: chats, messages, the getUpdates offset, the owner chat and what the hub has handled.

The Bot API has no history or search, so everything the bot sees in allowed chats (and what it sends) is kept
here. Each polled update is stored together with the next offset in one transaction, so a restart neither loses
an update (the offset only moves once it is stored) nor repeats one (the server forgets what the offset passed,
and a (chat, message) pair is stored at most once).

The hub's intake: an incoming message is pending until it is marked `handled`. `record_reply` stores the
hub's reply and marks the message it answers in one transaction, so a reply is never recorded without its
message being handled, nor the reverse. `intake_cursor` is the highest key ever acknowledged in bulk
(`ack`), kept for the `intake_ack` tool.

What the assistant has *read* is separate from what the hub has handled (a group message the hub skipped is still
unread for get_new_messages). It follows Telegram's own rule: each chat has a read mark (a message id), moved
forward by `mark_read` and by reading without `peek`; and the bot's own message in a chat reads everything before
it, as replying does in a Telegram client. An incoming message is unread when its id is above both.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shared.private_files import private_file
from shared.sqlite import immediate

SCHEMA = """
CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chats (
    chat_id INTEGER PRIMARY KEY, type TEXT NOT NULL, title TEXT, username TEXT, last_message_at REAL
);
CREATE TABLE IF NOT EXISTS messages (
    message_key INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    from_id INTEGER,
    from_name TEXT,
    outgoing INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL DEFAULT '',
    date REAL NOT NULL,
    media_kind TEXT,
    media_file_id TEXT,
    media_file_name TEXT,
    reply_to INTEGER,
    deleted INTEGER NOT NULL DEFAULT 0,
    handled INTEGER NOT NULL DEFAULT 0,
    answers INTEGER,
    UNIQUE (chat_id, message_id)
);
CREATE INDEX IF NOT EXISTS messages_by_chat ON messages (chat_id, message_id);
CREATE TABLE IF NOT EXISTS subscriptions (chat_id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS read_marks (chat_id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS callbacks (
    callback_key INTEGER PRIMARY KEY AUTOINCREMENT,
    callback_id TEXT NOT NULL UNIQUE,
    chat_id INTEGER NOT NULL,
    message_id INTEGER,
    from_id INTEGER,
    data TEXT NOT NULL,
    date REAL NOT NULL,
    handled INTEGER NOT NULL DEFAULT 0
);
"""


@dataclass(frozen=True)
class StoredMessage:
    message_key: int
    chat_id: int
    message_id: int
    from_id: int | None
    from_name: str | None
    outgoing: bool
    text: str
    date: float
    media_kind: str | None
    media_file_id: str | None
    media_file_name: str | None
    reply_to: int | None

    def public(self) -> dict[str, Any]:
        """What tools show: everything except the Bot API's file id."""
        return {
            "message_key": self.message_key,
            "chat_id": self.chat_id,
            "message_id": self.message_id,
            "from_id": self.from_id,
            "from_name": self.from_name,
            "outgoing": self.outgoing,
            "text": self.text,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.date)),
            "media": self.media_kind,
            "media_file_name": self.media_file_name,
            "reply_to": self.reply_to,
        }


_MESSAGE_COLUMNS = (
    "message_key, chat_id, message_id, from_id, from_name, outgoing, text, date, media_kind, media_file_id, "
    "media_file_name, reply_to"
)


def _message(row: sqlite3.Row) -> StoredMessage:
    return StoredMessage(**{**dict(row), "outgoing": bool(row["outgoing"])})


class Store:
    def __init__(self, path: Path) -> None:
        private_file(path)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Stores made before per-message intake: add the columns; the old cursor says what was handled."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(messages)")}
        if "handled" in columns:
            return
        with self._db:
            self._db.execute("ALTER TABLE messages ADD COLUMN handled INTEGER NOT NULL DEFAULT 0")
            self._db.execute("ALTER TABLE messages ADD COLUMN answers INTEGER")
            self._db.execute("UPDATE messages SET handled = 1 WHERE message_key <= ?", (self.intake_cursor,))

    def close(self) -> None:
        self._db.close()

    # --- state -------------------------------------------------------------------------------------------
    def _get(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row["value"])

    def _set(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    @property
    def update_offset(self) -> int | None:
        value = self._get("update_offset")
        return None if value is None else int(value)

    @property
    def owner_chat_id(self) -> int | None:
        value = self._get("owner_chat_id")
        return None if value is None else int(value)

    def set_owner(self, chat_id: int) -> None:
        with self._db:
            self._set("owner_chat_id", str(chat_id))

    @property
    def intake_cursor(self) -> int:
        return int(self._get("intake_cursor") or 0)

    # --- polling -----------------------------------------------------------------------------------------
    def record_update(self, update_id: int, message: dict[str, Any] | None, chat: dict[str, Any] | None) -> None:
        """Store one update's message (if any) and move the offset past it, atomically."""
        with immediate(self._db):
            if chat is not None:
                self._upsert_chat(chat)
            if message is not None:
                self._insert_message(message)
            self._set("update_offset", str(update_id + 1))

    def record_sent(self, message: dict[str, Any], chat: dict[str, Any], *, answers: int | None = None) -> int:
        """Store a message the bot sent; with `answers`, also mark that incoming message handled (atomically)."""
        with immediate(self._db):
            self._upsert_chat(chat)
            key = self._insert_message({**message, "outgoing": True, "answers": answers})
            if answers is not None:
                self._db.execute("UPDATE messages SET handled = 1 WHERE message_key = ?", (answers,))
        return key

    def _upsert_chat(self, chat: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO chats (chat_id, type, title, username, last_message_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(chat_id) DO UPDATE SET type = excluded.type, title = excluded.title, "
            "username = excluded.username, last_message_at = excluded.last_message_at",
            (chat["chat_id"], chat["type"], chat.get("title"), chat.get("username"), chat.get("last_message_at")),
        )

    def _insert_message(self, message: dict[str, Any]) -> int:
        cursor = self._db.execute(
            "INSERT INTO messages (chat_id, message_id, from_id, from_name, outgoing, text, date, media_kind, "
            "media_file_id, media_file_name, reply_to, answers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(chat_id, message_id) DO NOTHING",
            (
                message["chat_id"],
                message["message_id"],
                message.get("from_id"),
                message.get("from_name"),
                int(bool(message.get("outgoing"))),
                message.get("text") or "",
                message["date"],
                message.get("media_kind"),
                message.get("media_file_id"),
                message.get("media_file_name"),
                message.get("reply_to"),
                message.get("answers"),
            ),
        )
        return int(cursor.lastrowid or 0)

    # --- reading -----------------------------------------------------------------------------------------
    def messages(self, chat_id: int, limit: int, before_message_id: int | None = None) -> list[StoredMessage]:
        """Newest first; with `before_message_id`, only older messages (like the original's offset_id)."""
        where, params = ["chat_id = ?", "deleted = 0"], [chat_id]
        if before_message_id is not None:
            where.append("message_id < ?")
            params.append(before_message_id)
        return self._messages_where(where, params, "message_id DESC", limit)

    def message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        row = self._db.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE chat_id = ? AND message_id = ? AND deleted = 0",
            (chat_id, message_id),
        ).fetchone()
        return None if row is None else _message(row)

    def search(self, query: str, chat_id: int | None, limit: int) -> list[StoredMessage]:
        """Case-insensitive substring search over text, newest first."""
        escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where, params = ["deleted = 0", "text LIKE ? ESCAPE '\\'"], [f"%{escaped}%"]
        if chat_id is not None:
            where.append("chat_id = ?")
            params.append(chat_id)
        return self._messages_where(where, params, "date DESC, message_key DESC", limit)

    def _messages_where(self, where: list[str], params: list[Any], order_by: str, limit: int) -> list[StoredMessage]:
        """Messages matching every condition of `where` (constants; values in `params`), in `order_by` order."""
        sql = f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE {' AND '.join(where)} ORDER BY {order_by} LIMIT ?"
        return [_message(row) for row in self._db.execute(sql, [*params, limit])]

    def chats(self, limit: int) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT c.chat_id, c.type, c.title, c.username, c.last_message_at, "
            "(SELECT COUNT(*) FROM messages m WHERE m.chat_id = c.chat_id AND m.deleted = 0) AS stored_messages "
            "FROM chats c ORDER BY c.last_message_at DESC LIMIT ?",
            (limit,),
        )
        return [dict(row) for row in rows]

    def chat(self, chat_id: int) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT chat_id, type, title, username, last_message_at FROM chats WHERE chat_id = ?", (chat_id,)
        ).fetchone()
        return None if row is None else dict(row)

    def mark_deleted(self, chat_id: int, message_ids: list[int]) -> None:
        with self._db:
            self._db.executemany(
                "UPDATE messages SET deleted = 1 WHERE chat_id = ? AND message_id = ?",
                [(chat_id, message_id) for message_id in message_ids],
            )

    # --- intake ------------------------------------------------------------------------------------------
    def pending(self, limit: int, chat_ids: frozenset[int] | None = None) -> list[StoredMessage]:
        """Incoming messages not handled yet, oldest first.

        A message that already has a reply (part of a long reply was sent before a crash) counts as handled:
        answering it again would duplicate what the user already has.
        """
        sql = (
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE outgoing = 0 AND handled = 0 AND deleted = 0 "
            "AND NOT EXISTS (SELECT 1 FROM messages r WHERE r.answers = m.message_key)"
        )
        params: list[Any] = []
        if chat_ids:
            sql += f" AND chat_id IN ({','.join('?' * len(chat_ids))})"
            params.extend(sorted(chat_ids))
        sql += " ORDER BY message_key LIMIT ?"
        params.append(limit)
        return [_message(row) for row in self._db.execute(sql, params)]

    def incoming(self, message_key: int) -> StoredMessage | None:
        row = self._db.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE message_key = ? AND outgoing = 0", (message_key,)
        ).fetchone()
        return None if row is None else _message(row)

    def is_handled(self, message_key: int) -> bool:
        row = self._db.execute(
            "SELECT handled OR EXISTS (SELECT 1 FROM messages r WHERE r.answers = m.message_key) "
            "FROM messages m WHERE message_key = ?",
            (message_key,),
        ).fetchone()
        return bool(row and row[0])

    def mark_handled(self, message_keys: list[int]) -> int:
        """Mark these incoming messages handled (skipped, or answered elsewhere); returns how many changed."""
        with self._db:
            cursor = self._db.executemany(
                "UPDATE messages SET handled = 1 WHERE message_key = ? AND outgoing = 0 AND handled = 0",
                [(key,) for key in message_keys],
            )
        return cursor.rowcount

    def ack(self, up_to_message_key: int) -> int:
        """Mark every incoming message up to `up_to_message_key` handled; the cursor never moves backward."""
        with immediate(self._db):
            newest = self._db.execute("SELECT COALESCE(MAX(message_key), 0) FROM messages").fetchone()[0]
            cursor = max(self.intake_cursor, min(up_to_message_key, int(newest)))
            self._db.execute("UPDATE messages SET handled = 1 WHERE outgoing = 0 AND message_key <= ?", (cursor,))
            self._set("intake_cursor", str(cursor))
        return cursor

    # --- read marks --------------------------------------------------------------------------------------
    _UNREAD = (
        "m.outgoing = 0 AND m.deleted = 0 "
        "AND m.message_id > COALESCE((SELECT r.message_id FROM read_marks r WHERE r.chat_id = m.chat_id), 0) "
        "AND m.message_id > COALESCE((SELECT MAX(o.message_id) FROM messages o "
        "WHERE o.chat_id = m.chat_id AND o.outgoing = 1), 0)"
    )

    def unread(self, limit: int, chat_ids: frozenset[int] | None = None) -> tuple[list[StoredMessage], int]:
        """Incoming messages above their chat's read mark, oldest first, and how many there are in all."""
        where = self._UNREAD
        params: list[Any] = []
        if chat_ids:
            where += f" AND m.chat_id IN ({','.join('?' * len(chat_ids))})"
            params.extend(sorted(chat_ids))
        rows = self._db.execute(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages m WHERE {where} ORDER BY m.message_key LIMIT ?",
            [*params, limit],
        )
        total = self._db.execute(f"SELECT COUNT(*) FROM messages m WHERE {where}", params).fetchone()[0]
        return [_message(row) for row in rows], int(total)

    def unread_count(self, chat_id: int) -> int:
        row = self._db.execute(
            f"SELECT COUNT(*) FROM messages m WHERE {self._UNREAD} AND m.chat_id = ?", (chat_id,)
        ).fetchone()
        return int(row[0])

    def read_mark(self, chat_id: int) -> int:
        row = self._db.execute("SELECT message_id FROM read_marks WHERE chat_id = ?", (chat_id,)).fetchone()
        return 0 if row is None else int(row[0])

    def mark_read(self, chat_id: int, up_to_message_id: int | None = None) -> tuple[int, int]:
        """Move the chat's read mark to `up_to_message_id` (default: its newest stored message), never backward and
        never past the newest stored message (a made-up id cannot mark future messages read).

        Returns (the read mark now, how many incoming messages became read)."""
        with immediate(self._db):
            newest = self._db.execute(
                "SELECT COALESCE(MAX(message_id), 0) FROM messages WHERE chat_id = ?", (chat_id,)
            ).fetchone()[0]
            wanted = int(newest) if up_to_message_id is None else min(up_to_message_id, int(newest))
            before = self._db.execute(
                f"SELECT COUNT(*) FROM messages m WHERE {self._UNREAD} AND m.chat_id = ?", (chat_id,)
            ).fetchone()[0]
            mark = max(self.read_mark(chat_id), wanted)
            self._db.execute(
                "INSERT INTO read_marks (chat_id, message_id) VALUES (?, ?) "
                "ON CONFLICT(chat_id) DO UPDATE SET message_id = excluded.message_id",
                (chat_id, mark),
            )
            after = self._db.execute(
                f"SELECT COUNT(*) FROM messages m WHERE {self._UNREAD} AND m.chat_id = ?", (chat_id,)
            ).fetchone()[0]
        return mark, int(before) - int(after)

    # --- button presses (callback queries), for the hub's approvals ------------------------------------------------
    def record_callback(self, update_id: int, row: dict[str, Any]) -> None:
        """A button press, stored with the update's offset in one transaction (like a message)."""
        with self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO callbacks (callback_id, chat_id, message_id, from_id, data, date) "
                "VALUES (:callback_id, :chat_id, :message_id, :from_id, :data, :date)",
                row,
            )
            self._set("update_offset", str(update_id + 1))

    def pending_callbacks(self, limit: int) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT callback_key, chat_id, message_id, from_id, data FROM callbacks WHERE handled = 0 "
            "ORDER BY callback_key LIMIT ?",
            (limit,),
        ).fetchall()
        return [dict(row) for row in rows]

    def callback(self, callback_key: int) -> dict[str, Any] | None:
        row = self._db.execute("SELECT * FROM callbacks WHERE callback_key = ?", (callback_key,)).fetchone()
        return None if row is None else dict(row)

    def mark_callback_handled(self, callback_key: int) -> None:
        with self._db:
            self._db.execute("UPDATE callbacks SET handled = 1 WHERE callback_key = ?", (callback_key,))

    # --- subscriptions -----------------------------------------------------------------------------------
    def subscriptions(self) -> list[int]:
        return [int(row[0]) for row in self._db.execute("SELECT chat_id FROM subscriptions ORDER BY chat_id")]

    def subscribe(self, chat_id: int) -> None:
        with self._db:
            self._db.execute("INSERT OR IGNORE INTO subscriptions (chat_id) VALUES (?)", (chat_id,))

    def unsubscribe(self, chat_id: int) -> None:
        with self._db:
            self._db.execute("DELETE FROM subscriptions WHERE chat_id = ?", (chat_id,))

    def clear_subscriptions(self) -> None:
        with self._db:
            self._db.execute("DELETE FROM subscriptions")
