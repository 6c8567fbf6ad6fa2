"""Telegram MCP pure logic: splitting, allow-list/pairing decisions, path confinement, settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shared.mcp_tools import InvalidArguments, NotAllowed
from telegram_mcp.access import Decision, decide
from telegram_mcp.paths import confine
from telegram_mcp.settings import parse_chat_ids
from telegram_mcp.text import split_message


def test_short_text_is_one_part() -> None:
    assert split_message("hello") == ["hello"]


def test_split_prefers_paragraphs_then_lines_then_words() -> None:
    text = "a" * 30 + "\n\n" + "b" * 30
    assert split_message(text, limit=40) == ["a" * 30, "b" * 30]
    assert split_message("aaa bbb\nccc ddd", limit=10) == ["aaa bbb", "ccc ddd"]
    assert split_message("one two three four", limit=9) == ["one two", "three", "four"]


def test_a_word_longer_than_the_limit_is_cut() -> None:
    assert split_message("x" * 25, limit=10) == ["x" * 10, "x" * 10, "x" * 5]


def test_ten_thousand_characters_fit_in_parts_within_the_limit_and_nothing_is_lost() -> None:
    words = [f"w{n:08d}" for n in range(1000)]
    text = " ".join(words) + " "
    assert len(text) == 9000 + 1000
    parts = split_message(text)
    assert all(len(part) <= 4096 for part in parts)
    assert len(parts) == 3
    assert " ".join(parts).split() == words


def test_allow_list_decides_alone() -> None:
    allowed = frozenset({1, 2})
    assert decide(1, "private", "hi", allowed=allowed, owner=None, pairing_code="c") is Decision.ACCEPT
    assert decide(3, "private", "/pair c", allowed=allowed, owner=None, pairing_code="c") is Decision.IGNORE


def test_pairing_needs_the_right_code_from_a_private_chat() -> None:
    none: frozenset[int] = frozenset()
    assert decide(5, "private", "/pair abcd", allowed=none, owner=None, pairing_code="abcd") is Decision.PAIR
    assert decide(5, "private", "/pair@bot abcd", allowed=none, owner=None, pairing_code="abcd") is Decision.PAIR
    assert decide(5, "private", "/pair wrong", allowed=none, owner=None, pairing_code="abcd") is Decision.IGNORE
    assert decide(5, "group", "/pair abcd", allowed=none, owner=None, pairing_code="abcd") is Decision.IGNORE
    assert decide(5, "private", "hello", allowed=none, owner=None, pairing_code="abcd") is Decision.IGNORE


def test_once_paired_only_the_owner_is_accepted() -> None:
    none: frozenset[int] = frozenset()
    assert decide(5, "private", "hi", allowed=none, owner=5, pairing_code=None) is Decision.ACCEPT
    assert decide(6, "private", "/pair abcd", allowed=none, owner=5, pairing_code="abcd") is Decision.IGNORE


def test_chat_id_list_parsing() -> None:
    assert parse_chat_ids(" 12, -100345 ,,") == frozenset({12, -100345})
    with pytest.raises(ValueError, match="'abc'"):
        parse_chat_ids("12,abc")


def test_confine_accepts_workspace_paths(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert confine(ws, "a/b.txt") == ws.resolve() / "a" / "b.txt"
    assert confine(ws, str(ws / "c.txt")) == ws.resolve() / "c.txt"


@pytest.mark.parametrize("raw", ["../x", "a/../../x", "/etc/passwd", "~/x"])
def test_confine_refuses_escapes(tmp_path: Path, raw: str) -> None:
    with pytest.raises(NotAllowed):
        confine(tmp_path, raw)


def test_confine_refuses_a_symlink_out(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, ws / "link")
    with pytest.raises(NotAllowed):
        confine(ws, "link/secret.txt")


def test_confine_refuses_empty(tmp_path: Path) -> None:
    with pytest.raises(InvalidArguments):
        confine(tmp_path, " ")


def test_the_manifest_is_valid_and_marks_the_channel() -> None:
    from shared.manifest import load_manifest

    manifest = load_manifest(Path(__file__).resolve().parents[2] / "telegram_mcp" / "manifest.json")
    assert manifest.role == "channel"
    assert manifest.mcpName == "telegram"
