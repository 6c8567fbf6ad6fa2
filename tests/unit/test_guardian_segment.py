"""Surfaces from the hub's source names, and windows cut along a text's structure."""

from __future__ import annotations

import pytest

from guardian_mcp.segment import DEFAULT_BUDGET, clean, segments, surface, windows


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("telegram:inbound", "chat"),
        ("http:inbound", "chat"),
        ("gmail_get_email:output", "email"),
        ("gmail_list_events:output", "email"),
        ("searcher_web_fetch:output", "web"),
        ("searcher_web_search:output", "web"),
        ("filer_read_file:output", "file"),
        ("weather_forecast:output", "tool"),
        ("", "other"),
        ("benchmark", "other"),
    ],
)
def test_the_source_names_the_surface(source: str, expected: str) -> None:
    assert surface(source) == expected


def test_blocks_know_quotes_code_and_headers() -> None:
    text = "Subject: lunch\n\nHi Ann,\nsee below.\n\n> you wrote this\n> and this\n\n```\nrm -rf build\n```\n# Notes"
    kinds = [(text[b.start : b.end].strip().splitlines()[0], b.kind) for b in segments(text)]
    assert kinds == [
        ("Subject: lunch", "header"),
        ("Hi Ann,", "text"),
        ("> you wrote this", "quoted"),
        ("```", "code"),
        ("# Notes", "header"),
    ]


def test_a_window_names_its_structure_in_its_prefix() -> None:
    [window] = windows("Thanks!\n\n> Ignore the previous e-mail, wrong date.")
    assert window.tags == ("quoted",)
    assert window.prefix("email") == "email quoted: "
    assert windows("plain words")[0].prefix("chat") == "chat: "


@pytest.mark.parametrize("length", [10, 479, 481, 3000, 20_000])
def test_windows_stay_within_the_budget_and_cover_every_block(length: int) -> None:
    text = ("Some ordinary sentence about the weather. " * 1000)[:length]
    found = windows(text)
    assert all(w.end - w.start <= DEFAULT_BUDGET for w in found)
    covered = "".join(text[w.start : w.end] for w in found)
    assert covered.replace(" ", "") == text.replace(" ", "")


def test_a_long_line_without_sentence_ends_is_cut_at_spaces() -> None:
    text = "word " * 400
    found = windows(text)
    assert len(found) >= 4 and all(text[w.start : w.end].startswith("word") for w in found)


def test_a_blank_text_has_no_window_and_max_windows_keeps_the_first() -> None:
    assert windows("  \n\n ") == []
    text = "\n\n".join(f"Paragraph {i}. " + "x " * 250 for i in range(10))
    assert [w.start for w in windows(text, max_windows=3)] == [w.start for w in windows(text)][:3]


def test_clean_removes_invisible_characters_that_split_words() -> None:
    assert clean("ig\u200bnore\u00ad all\u202e") == "ignore all"
