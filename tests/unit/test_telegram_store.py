"""The Telegram store: offset with each update, no duplicates, the intake cursor, search, subscriptions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from telegram_mcp.store import Store


def msg(chat_id: int, message_id: int, text: str, *, outgoing: bool = False) -> dict[str, Any]:
    return {
        "chat_id": chat_id,
        "message_id": message_id,
        "text": text,
        "date": 1000.0 + message_id,
        "outgoing": outgoing,
    }


def chat(chat_id: int) -> dict[str, Any]:
    return {"chat_id": chat_id, "type": "private", "title": "Ann", "username": None, "last_message_at": 1.0}


def test_offset_and_messages_survive_reopening(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    store.record_update(10, msg(1, 1, "hi"), chat(1))
    store.record_update(11, msg(1, 1, "hi again, same id"), chat(1))
    store.close()
    reopened = Store(tmp_path / "t.db")
    assert reopened.update_offset == 12
    assert [m.text for m in reopened.messages(1, 10)] == ["hi"]


def test_intake_pending_until_ack_and_ack_persists(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    store.record_update(1, msg(1, 1, "first"), chat(1))
    store.record_update(2, msg(1, 2, "second"), chat(1))
    store.record_sent(msg(1, 3, "bot reply", outgoing=True), chat(1))
    pending = store.pending(10)
    assert [m.text for m in pending] == ["first", "second"]
    assert [m.text for m in store.pending(10)] == ["first", "second"]
    assert store.ack(pending[0].message_key) == pending[0].message_key
    assert [m.text for m in store.pending(10)] == ["second"]
    assert store.ack(0) == pending[0].message_key  # never backward
    assert store.ack(10**9) == 3  # never past what is stored
    store.close()
    assert Store(tmp_path / "t.db").pending(10) == []


def test_search_history_and_subscriptions(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    store.record_update(1, msg(1, 1, "Buy MILK"), chat(1))
    store.record_update(2, msg(2, 1, "milk 100%"), chat(2))
    store.record_update(3, msg(1, 2, "other"), chat(1))
    assert {m.chat_id for m in store.search("milk", None, 10)} == {1, 2}
    assert [m.text for m in store.search("100%", None, 10)] == ["milk 100%"]
    assert [m.chat_id for m in store.search("milk", 2, 10)] == [2]
    assert [m.message_id for m in store.messages(1, 10, before_message_id=2)] == [1]
    store.mark_deleted(1, [1])
    assert [m.message_id for m in store.messages(1, 10)] == [2]
    store.subscribe(2)
    assert [m.chat_id for m in store.pending(10, frozenset(store.subscriptions()))] == [2]
    store.clear_subscriptions()
    assert store.subscriptions() == []
    assert [c["chat_id"] for c in store.chats(10)] != []


def test_a_reply_marks_its_message_handled_and_other_chats_stay_pending(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    store.record_update(1, msg(1, 1, "to answer"), chat(1))
    store.record_update(2, msg(2, 1, "other chat"), chat(2))
    first = store.pending(10)[0]
    store.record_sent(msg(1, 2, "the answer", outgoing=True), chat(1), answers=first.message_key)
    assert [m.text for m in store.pending(10)] == ["other chat"]
    assert store.is_handled(first.message_key)
    assert store.mark_handled([store.pending(10)[0].message_key]) == 1
    assert store.pending(10) == []


def test_a_store_from_before_per_message_intake_keeps_its_cursor(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE chats (chat_id INTEGER PRIMARY KEY, type TEXT NOT NULL, title TEXT, username TEXT,"
        " last_message_at REAL);"
        "CREATE TABLE messages (message_key INTEGER PRIMARY KEY AUTOINCREMENT, chat_id INTEGER NOT NULL,"
        " message_id INTEGER NOT NULL, from_id INTEGER, from_name TEXT, outgoing INTEGER NOT NULL DEFAULT 0,"
        " text TEXT NOT NULL DEFAULT '', date REAL NOT NULL, media_kind TEXT, media_file_id TEXT,"
        " media_file_name TEXT, reply_to INTEGER, deleted INTEGER NOT NULL DEFAULT 0, UNIQUE (chat_id, message_id));"
        "INSERT INTO messages (chat_id, message_id, text, date) VALUES (1, 1, 'done', 1), (1, 2, 'new', 2);"
        "INSERT INTO state VALUES ('intake_cursor', '1');"
    )
    old.commit()
    old.close()
    store = Store(path)
    assert [m.text for m in store.pending(10)] == ["new"]


def test_messages_stay_unread_until_marked_and_the_mark_persists_and_never_moves_back(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    for number in (1, 2, 3):
        store.record_update(number, msg(1, number, f"m{number}"), chat(1))
    store.record_update(4, msg(2, 1, "other chat"), chat(2))
    unread, total = store.unread(2)
    assert [m.text for m in unread] == ["m1", "m2"] and total == 4
    assert store.mark_read(1, 2) == (2, 2)
    assert store.mark_read(1, 1) == (2, 0)  # never backward
    assert store.mark_read(1, 10**9) == (3, 1)  # never past the newest stored message
    store.record_update(5, msg(1, 4, "m4"), chat(1))
    store.close()
    reopened = Store(tmp_path / "t.db")
    assert [m.text for m in reopened.unread(10)[0]] == ["other chat", "m4"]
    assert [m.text for m in reopened.unread(10, frozenset({1}))[0]] == ["m4"]
    # Reading is the assistant's own record: the hub's intake (what it must still answer) is untouched.
    assert [m.text for m in reopened.pending(10)] == ["m1", "m2", "m3", "other chat", "m4"]


def test_the_bots_own_message_reads_what_came_before_it_as_a_reply_does_in_telegram(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.db")
    store.record_update(1, msg(1, 1, "question"), chat(1))
    store.record_sent(msg(1, 2, "answer", outgoing=True), chat(1))
    store.record_update(2, msg(1, 3, "follow-up"), chat(1))
    assert [m.text for m in store.unread(10)[0]] == ["follow-up"]
    assert store.unread_count(1) == 1 and store.mark_read(1) == (3, 1)
    assert store.unread(10) == ([], 0)
