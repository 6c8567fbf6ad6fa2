"""Session files: the JSONL format, chat ids as file names, damaged files, atomic rewrites, cache and cleanup."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from thinker.sessions.errors import InvalidChatId, SessionWriteError
from thinker.sessions.messages import ChatMessage, assistant_message, tool_call, tool_message, user_message
from thinker.sessions.store import (
    Compaction,
    Session,
    SessionStore,
    TokenUsage,
    Turn,
    chat_file_stem,
    chat_id_from_stem,
    make_turn,
    new_session,
    parse_session,
    session_lines,
)

START = datetime(2026, 2, 11, 1, 14, 59, 755000, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[2]


class FakeClock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def tool_chain(answer: str = "You have 2 unread emails.") -> list[ChatMessage]:
    return [
        assistant_message(None, [tool_call("call_1", "gmail_list_emails", {"unread": True})]),
        tool_message("call_1", '{"success": true, "data": ["a", "b"]}', "gmail_list_emails"),
        assistant_message(answer),
    ]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> SessionStore:
    return SessionStore(tmp_path / "sessions", "annabelle", clock=clock)


def fresh(store: SessionStore, clock: FakeClock) -> SessionStore:
    """Another store on the same folder with an empty cache: what a restarted process sees."""
    return SessionStore(store.folder.parent, store.agent_id, clock=clock)


def turn(user: str = "hello", assistant: str = "hi there", *, at: datetime = START) -> Turn:
    return make_turn(user, assistant, now=at, prompt_tokens=120, completion_tokens=8)


# --- chat ids as file names ----------------------------------------------------------------------------------
@pytest.mark.parametrize("chat_id", ["8304042211", "-1001234567890", "http-abc", "cli_local", "a.b", "A-z_0"])
def test_a_plain_chat_id_is_its_own_file_name(chat_id: str) -> None:
    assert chat_file_stem(chat_id) == chat_id
    assert chat_id_from_stem(chat_id) == chat_id


@pytest.mark.parametrize(
    "chat_id", ["user@example.com", "cli:local", "café", "a b", ".hidden", "trailing.", "~tilde", "日本語", "-"]
)
def test_any_other_chat_id_is_encoded_reversibly_with_a_prefix_no_plain_id_has(chat_id: str) -> None:
    stem = chat_file_stem(chat_id)
    if stem != chat_id:
        assert stem.startswith("~")
    assert chat_id_from_stem(stem) == chat_id
    assert "/" not in stem and len(stem.encode()) + len(".jsonl") <= 255


def test_different_chat_ids_never_share_a_file() -> None:
    ids = ["a_b", "a:b", "a b", "a.b", "A.b", "~YV9i", "YV9i", "a@b", "ä", "a"]
    stems = {chat_file_stem(chat_id) for chat_id in set(ids)}
    assert len(stems) == len(set(ids))


@pytest.mark.parametrize(
    "chat_id",
    ["", ".", "..", "../etc/passwd", "a/b", "a\\b", "/abs", "nul\x00byte", "line\nbreak", "tab\there", "x" * 181],
)
def test_a_chat_id_that_is_a_path_or_not_a_name_is_refused(store: SessionStore, chat_id: str) -> None:
    with pytest.raises(InvalidChatId):
        store.path_for(chat_id)
    with pytest.raises(InvalidChatId):
        store.append_turn(chat_id, turn())
    assert not store.folder.exists() or list(store.folder.iterdir()) == []


def test_a_long_chat_id_within_the_limit_still_makes_a_valid_file_name(store: SessionStore) -> None:
    chat_id = "é" * 90  # 180 bytes of UTF-8: the longest accepted
    store.append_turn(chat_id, turn())
    assert store.path_for(chat_id).exists()
    assert chat_id_from_stem(store.path_for(chat_id).name.removesuffix(".jsonl")) == chat_id


@pytest.mark.parametrize("stem", ["~!!!", "~", "~_w", ".hidden", "has space"])
def test_a_file_name_the_store_did_not_make_maps_to_no_chat(stem: str) -> None:
    assert chat_id_from_stem(stem) is None


@pytest.mark.parametrize("agent_id", ["", "../x", "a/b", ".hidden"])
def test_an_agent_id_that_cannot_be_a_folder_name_is_refused(tmp_path: Path, agent_id: str) -> None:
    with pytest.raises(InvalidChatId):
        SessionStore(tmp_path, agent_id)


# --- the format ------------------------------------------------------------------------------------------------
def test_the_first_turn_creates_the_file_with_a_header_then_one_line_per_turn(store: SessionStore) -> None:
    store.append_turn("8304042211", turn("What emails do I have?", "You have 20 unread emails."))
    store.append_turn("8304042211", turn("thanks", "You're welcome."))
    lines = [json.loads(line) for line in store.path_for("8304042211").read_text().splitlines()]
    assert lines[0] == {
        "type": "header",
        "chatId": "8304042211",
        "agentId": "annabelle",
        "createdAt": "2026-02-11T01:14:59.755Z",
        "version": 1,
    }
    assert lines[1] == {
        "type": "turn",
        "user": "What emails do I have?",
        "assistant": "You have 20 unread emails.",
        "timestamp": "2026-02-11T01:14:59.755Z",
        "toolsUsed": [],
        "tokens": {"prompt": 120, "completion": 8},
    }
    assert [line["type"] for line in lines] == ["header", "turn", "turn"]


def test_the_hub_turn_an_exchange_was_answered_in_survives_a_restart(store: SessionStore, clock: FakeClock) -> None:
    store.append_turn("42", make_turn("hi", "hello", now=clock.now, hub_turn="t-abc"))
    store.append_turn("42", make_turn("direct", "ok", now=clock.now))
    turns = fresh(store, clock).load("42").turns
    assert [t.hub_turn for t in turns] == ["t-abc", None]
    assert "hubTurn" not in store.path_for("42").read_text().splitlines()[2]


def test_a_turn_with_tool_calls_keeps_its_structured_messages(store: SessionStore, clock: FakeClock) -> None:
    chain = tool_chain()
    stored = make_turn(
        "What emails do I have?",
        "You have 2 unread emails.",
        now=START,
        tools_used=["gmail_list_emails"],
        messages=chain,
    )
    store.append_turn("42", stored)
    line = json.loads(store.path_for("42").read_text().splitlines()[1])
    assert line["toolsUsed"] == ["gmail_list_emails"]
    assert line["messages"] == chain
    loaded = fresh(store, clock).load("42")
    assert loaded.turns == (stored,)
    assert loaded.messages() == [user_message("What emails do I have?"), *chain]


def test_a_plain_answer_does_not_store_its_messages_twice() -> None:
    plain = make_turn("hi", "hello", now=START, messages=[assistant_message("hello")])
    assert plain.messages is None


def test_a_loaded_session_equals_the_one_written(store: SessionStore, clock: FakeClock) -> None:
    for n in range(5):
        clock.advance(minutes=1)
        store.append_turn("chat", turn(f"question {n}", f"answer {n}", at=clock.now))
    written = store.load("chat")
    assert fresh(store, clock).load("chat") == written
    assert len(written.turns) == 5
    assert written.chars == sum(len(f"question {n}") + len(f"answer {n}") for n in range(5))


def test_a_missing_file_is_an_empty_session_that_is_not_written_until_a_turn_arrives(store: SessionStore) -> None:
    session = store.load("new-chat")
    assert session.turns == () and session.compaction is None
    assert session.header.chat_id == "new-chat" and session.header.agent_id == "annabelle"
    assert not store.path_for("new-chat").exists()


def test_timestamps_in_other_zones_and_naive_ones_are_stored_as_utc(store: SessionStore, clock: FakeClock) -> None:
    from zoneinfo import ZoneInfo

    store.append_turn("z", turn(at=datetime(2026, 3, 1, 12, 0, tzinfo=ZoneInfo("Europe/Vilnius"))))
    store.append_turn("z", turn(at=datetime(2026, 3, 1, 12, 0)))
    lines = [json.loads(line) for line in store.path_for("z").read_text().splitlines()[1:]]
    assert [line["timestamp"] for line in lines] == ["2026-03-01T10:00:00.000Z", "2026-03-01T12:00:00.000Z"]


def test_session_lines_put_the_compaction_right_after_the_header() -> None:
    session = Session(
        header=new_session("c", "annabelle", START).header,
        compaction=Compaction("The user talked about tea.", 12, START),
        turns=(turn(),),
    )
    kinds = [json.loads(line)["type"] for line in session_lines(session)]
    assert kinds == ["header", "compaction", "turn"]
    parsed, problems = parse_session("\n".join(session_lines(session)), "c", "annabelle", START)
    assert parsed == session and problems == []


# --- turns as messages -----------------------------------------------------------------------------------------
def test_a_plain_turn_is_a_user_message_and_an_assistant_message() -> None:
    assert turn("hi", "hello").chat_messages() == [user_message("hi"), assistant_message("hello")]


def test_a_chain_that_stored_the_user_message_too_does_not_repeat_it() -> None:
    chained = Turn("hi", "done", START, messages=(user_message("hi"), *tool_chain("done")))
    assert chained.chat_messages() == [user_message("hi"), *tool_chain("done")]


def test_a_chain_cut_before_the_answer_gets_the_answer_text_appended() -> None:
    chain = tuple(tool_chain()[:2])
    chained = Turn("hi", "You have mail.", START, messages=chain)
    assert chained.chat_messages() == [user_message("hi"), *chain, assistant_message("You have mail.")]


def test_system_messages_in_a_stored_chain_are_not_replayed() -> None:
    chained = Turn("hi", "ok", START, messages=({"role": "system", "content": "injected"}, *tool_chain("ok")))
    assert all(message["role"] != "system" for message in chained.chat_messages())


def test_empty_sides_of_a_turn_produce_no_empty_messages() -> None:
    assert Turn("", "only an answer", START).chat_messages() == [assistant_message("only an answer")]
    assert Turn("only a question", "", START).chat_messages() == [user_message("only a question")]


# --- damaged files ---------------------------------------------------------------------------------------------
def test_a_torn_last_line_is_skipped_and_logged(
    store: SessionStore, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    store.append_turn("torn", turn("one", "1"))
    store.append_turn("torn", turn("two", "2"))
    path = store.path_for("torn")
    with path.open("ab") as handle:
        handle.write(b'{"type":"turn","user":"thr')  # what a kill in the middle of a write leaves
    with caplog.at_level(logging.WARNING):
        loaded = fresh(store, clock).load("torn")
    assert [t.user for t in loaded.turns] == ["one", "two"]
    assert "line 4 is not valid JSON" in caplog.text


def test_the_next_turn_after_a_torn_line_starts_on_a_fresh_line(store: SessionStore, clock: FakeClock) -> None:
    store.append_turn("torn", turn("one", "1"))
    with store.path_for("torn").open("ab") as handle:
        handle.write(b'{"type":"turn","us')
    restarted = fresh(store, clock)
    restarted.append_turn("torn", turn("two", "2"))
    assert [t.user for t in fresh(store, clock).load("torn").turns] == ["one", "two"]


def test_a_write_torn_inside_a_multibyte_character_does_not_spoil_the_file(
    store: SessionStore, clock: FakeClock
) -> None:
    store.append_turn("utf", turn("labas", "sveiki"))
    line = ('{"type":"turn","user":"ąčę","assistant":"žū"}').encode()
    with store.path_for("utf").open("ab") as handle:
        handle.write(line[:25])  # ends in the middle of a two-byte letter
    assert [t.user for t in fresh(store, clock).load("utf").turns] == ["labas"]


@pytest.mark.parametrize(
    ("bad_line", "problem"),
    [
        ("not json at all", "not valid JSON"),
        ("[1, 2, 3]", "not a session entry"),
        ('"just a string"', "not a session entry"),
        ('{"type": "mystery"}', "not a session entry (mystery)"),
        ('{"no": "type"}', "not a session entry (no type)"),
        ('{"type": "turn", "user": 5, "assistant": null}', "a turn without text"),
        ('{"type": "compaction", "summary": ""}', "not a session entry (compaction)"),
    ],
)
def test_a_broken_line_in_the_middle_is_skipped_and_the_rest_loads(bad_line: str, problem: str) -> None:
    good = session_lines(Session(new_session("c", "a", START).header, None, (turn("one", "1"), turn("two", "2"))))
    text = "\n".join([*good[:2], bad_line, good[2]])
    session, problems = parse_session(text, "c", "a", START)
    assert [t.user for t in session.turns] == ["one", "two"]
    assert len(problems) == 1 and problem in problems[0]


def test_a_file_without_a_header_is_rebuilt_from_its_first_turn() -> None:
    later = START + timedelta(hours=3)
    text = session_lines(Session(new_session("c", "a", START).header, None, (turn(at=later),)))[1]
    session, problems = parse_session(text, "c", "a", START + timedelta(days=1))
    assert session.header.created_at == later
    assert problems == ["the header line is missing: rebuilt"]


def test_an_empty_or_blank_file_is_an_empty_session() -> None:
    for text in ("", "\n\n", "   \n"):
        session, problems = parse_session(text, "c", "a", START)
        assert session.turns == () and problems == []


def test_odd_values_in_a_turn_get_safe_defaults() -> None:
    line = json.dumps(
        {
            "type": "turn",
            "user": "hi",
            "timestamp": "yesterday",
            "toolsUsed": ["ok", 3, None],
            "tokens": {"prompt": -4, "completion": True},
            "messages": [{"role": "wizard"}, {"role": "assistant", "content": None, "tool_calls": "nope"}],
        }
    )
    header = session_lines(new_session("c", "a", START))[0]
    session, _ = parse_session(f"{header}\n{line}", "c", "a", START + timedelta(days=2))
    (parsed,) = session.turns
    assert parsed.assistant == "" and parsed.timestamp == START
    assert parsed.tools_used == ("ok",)
    assert parsed.tokens == TokenUsage(0, 0)
    assert parsed.messages is None


def test_the_last_of_several_compaction_lines_counts() -> None:
    header = session_lines(new_session("c", "a", START))[0]
    first = json.dumps({"type": "compaction", "summary": "old", "compactedTurns": 3, "timestamp": "2026-01-01T00:00Z"})
    second = json.dumps({"type": "compaction", "summary": "new", "compactedTurns": 9})
    session, _ = parse_session("\n".join([header, first, second]), "c", "a", START)
    assert session.compaction == Compaction("new", 9, START)


def test_a_session_file_survives_a_process_killed_while_appending(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    script = (
        "import sys\n"
        "from datetime import UTC, datetime\n"
        "from pathlib import Path\n"
        "from thinker.sessions.store import SessionStore, make_turn\n"
        "store = SessionStore(Path(sys.argv[1]), 'annabelle')\n"
        "n = 0\n"
        "while True:\n"
        "    n += 1\n"
        "    store.append_turn('victim', make_turn(f'question {n}', 'x' * 20000, now=datetime.now(UTC)))\n"
    )
    child = subprocess.Popen([sys.executable, "-c", script, str(root)], cwd=REPO, stderr=subprocess.PIPE)
    path = root / "annabelle" / "victim.jsonl"
    try:
        deadline = time.monotonic() + 30
        while not (path.exists() and path.stat().st_size > 400_000):
            assert child.poll() is None, child.stderr.read().decode() if child.stderr else "the writer exited"
            assert time.monotonic() < deadline, "the writer did not write in time"
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
        if child.stderr:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL

    store = SessionStore(root, "annabelle")
    loaded = store.load("victim")
    assert len(loaded.turns) >= 20
    assert [t.user for t in loaded.turns] == [f"question {n}" for n in range(1, len(loaded.turns) + 1)]
    store.append_turn("victim", make_turn("after the crash", "still here", now=START))
    again = SessionStore(root, "annabelle").load("victim")
    assert again.turns[-1].user == "after the crash"
    assert len(again.turns) == len(loaded.turns) + 1


# --- rewriting, clearing -----------------------------------------------------------------------------------------
def test_a_rewrite_replaces_the_file_and_leaves_no_temporary_file(store: SessionStore, clock: FakeClock) -> None:
    for n in range(3):
        store.append_turn("c", turn(f"q{n}", f"a{n}"))
    session = store.load("c")
    compacted = Session(session.header, Compaction("Summary.", 2, START), session.turns[2:])
    store.rewrite(compacted)
    assert fresh(store, clock).load("c") == compacted
    assert store.load("c") == compacted
    assert sorted(p.name for p in store.folder.iterdir()) == ["c.jsonl"]
    assert oct(store.path_for("c").stat().st_mode & 0o777) == oct(0o600)


def test_a_rewrite_that_fails_leaves_the_old_file_whole(
    store: SessionStore, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append_turn("c", turn("q", "a"))
    before = store.path_for("c").read_bytes()

    def refuse(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    session = store.load("c")
    with pytest.raises(SessionWriteError, match="previous file is unchanged"):
        store.rewrite(Session(session.header, Compaction("S", 1, START), ()))
    assert store.path_for("c").read_bytes() == before
    assert sorted(p.name for p in store.folder.iterdir()) == ["c.jsonl"]
    assert store.load("c") == session


def test_an_append_that_cannot_write_says_which_file_and_what_to_check(tmp_path: Path, clock: FakeClock) -> None:
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "annabelle").write_text("a file where the folder should be")
    store = SessionStore(tmp_path / "sessions", "annabelle", clock=clock)
    with pytest.raises(SessionWriteError, match=r"annabelle/c\.jsonl.*disk space and permissions"):
        store.append_turn("c", turn())


def test_clear_deletes_the_file_and_the_cached_session(store: SessionStore) -> None:
    store.append_turn("c", turn())
    assert store.clear("c") is True
    assert not store.path_for("c").exists()
    assert store.load("c").turns == ()
    assert store.clear("c") is False


def test_clear_all_removes_every_session_of_the_agent(store: SessionStore) -> None:
    for chat in ("a", "b", "c@d"):
        store.append_turn(chat, turn())
    assert store.clear_all() == 3
    assert not store.folder.exists()
    assert store.cached_chats == []


# --- cache -------------------------------------------------------------------------------------------------------
def test_a_cached_session_is_served_from_memory_until_it_is_idle_for_30_minutes(
    store: SessionStore, clock: FakeClock
) -> None:
    store.append_turn("c", turn())
    first = store.load("c")
    store.path_for("c").unlink()  # behind the store's back: only a fresh read would notice
    clock.advance(minutes=29)
    assert store.load("c") is first
    clock.advance(minutes=29)  # used 29 minutes ago: still warm
    assert store.load("c") is first
    clock.advance(minutes=30)
    assert store.load("c").turns == ()


def test_evict_idle_names_the_chats_it_dropped(store: SessionStore, clock: FakeClock) -> None:
    store.load("old")
    clock.advance(minutes=20)
    store.load("recent")
    clock.advance(minutes=10)
    assert store.evict_idle() == ["old"]
    assert store.cached_chats == ["recent"]


# --- cleanup -------------------------------------------------------------------------------------------------------
def test_cleanup_deletes_sessions_older_than_seven_days_and_stale_temporary_files(
    store: SessionStore, clock: FakeClock
) -> None:
    for chat in ("old", "new", "old@mail"):
        store.append_turn(chat, turn())
    now = START + timedelta(days=30)
    eight_days_ago = (now - timedelta(days=8)).timestamp()
    six_days_ago = (now - timedelta(days=6)).timestamp()
    os.utime(store.path_for("old"), (eight_days_ago, eight_days_ago))
    os.utime(store.path_for("old@mail"), (eight_days_ago, eight_days_ago))
    os.utime(store.path_for("new"), (six_days_ago, six_days_ago))
    stale, fresh_temp = store.folder / ".x.dead.tmp", store.folder / ".y.busy.tmp"
    stale.write_text("left by a crash")
    fresh_temp.write_text("being written")
    os.utime(stale, (eight_days_ago, eight_days_ago))
    os.utime(fresh_temp, (now.timestamp(), now.timestamp()))
    foreign = store.folder / "notes.txt"
    foreign.write_text("not ours")
    os.utime(foreign, (eight_days_ago, eight_days_ago))

    assert store.cleanup(now) == ["old", "old@mail"]
    assert sorted(p.name for p in store.folder.iterdir()) == [".y.busy.tmp", "new.jsonl", "notes.txt"]
    assert "old" not in store.cached_chats


def test_cleanup_takes_its_age_limit_as_an_argument(store: SessionStore) -> None:
    store.append_turn("c", turn())
    written = store.path_for("c").stat().st_mtime
    now = datetime.fromtimestamp(written, UTC) + timedelta(days=2)
    assert store.cleanup(now, max_age_days=7) == []
    assert store.cleanup(now, max_age_days=1) == ["c"]


def test_cleanup_of_an_agent_with_no_sessions_yet_does_nothing(store: SessionStore) -> None:
    assert store.cleanup(START) == []


def test_an_unreadable_session_file_starts_the_chat_afresh_with_a_warning(
    store: SessionStore, caplog: pytest.LogCaptureFixture
) -> None:
    store.path_for("c").mkdir(parents=True)  # something that cannot be read as a file
    with caplog.at_level(logging.WARNING):
        assert store.load("c").turns == ()
    assert "session file unreadable" in caplog.text


def test_a_clear_that_cannot_delete_says_which_file(store: SessionStore) -> None:
    store.path_for("c").mkdir(parents=True)
    with pytest.raises(SessionWriteError, match=r"Could not delete .*c\.jsonl"):
        store.clear("c")


def test_token_usage_adds_up() -> None:
    assert turn().tokens == TokenUsage(120, 8)
    assert turn().tokens.total == 128
