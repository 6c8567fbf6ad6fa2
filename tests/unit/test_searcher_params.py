"""Pure argument rules of the search tools: count clamping and freshness mapping."""

from __future__ import annotations

import pytest

from searcher_mcp.params import BadParameter, clamp_count, fetch_timeout_ms, map_freshness


@pytest.mark.parametrize(
    ("word", "code"),
    [
        ("24h", "pd"),
        ("day", "pd"),
        ("today", "pd"),
        ("1d", "pd"),
        ("week", "pw"),
        ("7d", "pw"),
        ("month", "pm"),
        ("30d", "pm"),
        ("year", "py"),
        ("1y", "py"),
        ("365d", "py"),
        (" Week ", "pw"),
        ("pm", "pm"),
        ("2026-01-01to2026-02-01", "2026-01-01to2026-02-01"),
    ],
)
def test_freshness_words_map_to_brave_codes(word: str, code: str) -> None:
    assert map_freshness(word) == code


@pytest.mark.parametrize("empty", [None, "", "  "])
def test_no_freshness_means_no_filter(empty: str | None) -> None:
    assert map_freshness(empty) is None


@pytest.mark.parametrize("word", ["fortnight", "2w", "yesterday"])
def test_unknown_freshness_is_refused_with_the_accepted_words(word: str) -> None:
    with pytest.raises(BadParameter, match="24h/day/today/1d"):
        map_freshness(word)


@pytest.mark.parametrize("word", ["year", "1y", "365d", "py"])
def test_news_freshness_has_no_year(word: str) -> None:
    with pytest.raises(BadParameter) as caught:
        map_freshness(word, allow_year=False)
    assert "year" not in str(caught.value).split("use one of")[1]


@pytest.mark.parametrize(
    ("value", "default", "expected"),
    [(None, 10, 10), (None, 5, 5), (0, 10, 1), (-3, 10, 1), (1, 10, 1), (20, 10, 20), (50, 10, 20), (7, 5, 7)],
)
def test_count_is_clamped_into_one_to_twenty(value: int | None, default: int, expected: int) -> None:
    assert clamp_count(value, default) == expected


@pytest.mark.parametrize(("given", "ms"), [(30, 30_000), (1, 1_000), (5000, 5000), (1000, 1000), (30_000, 30_000)])
def test_a_fetch_timeout_is_milliseconds_or_small_seconds(given: int, ms: int) -> None:
    assert fetch_timeout_ms(given) == ms


@pytest.mark.parametrize("given", [0, 31, 999, 30_001])
def test_a_fetch_timeout_between_the_two_readings_is_refused(given: int) -> None:
    with pytest.raises(BadParameter, match=r"1000\.\.30000 milliseconds"):
        fetch_timeout_ms(given)
