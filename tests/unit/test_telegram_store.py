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
