"""Pure search logic: FTS5 queries from hostile text, LIKE escaping, ranking math, keyword similarity."""

from __future__ import annotations

import pytest
import sqlean as sqlite3

from memorizer_mcp.dedup import STOP_WORDS, keywords, overlap, similar
from memorizer_mcp.fts import MAX_TOKENS, escape_like, fts_query, fts_tokens, like_keywords, like_patterns
from memorizer_mcp.ranking import hybrid_rank, normalise, rank_single

HOSTILE = [
    "",
    " ",
    "\t\n  \r",
    '"',
    '""',
    '"unbalanced',
    "'); DROP TABLE facts;--",
    "NEAR(tea coffee, 3)",
    "tea AND coffee OR NOT milk",
    "AND",
    "OR OR OR",
    "NOT",
    "tea*",
    "*",
    "^start",
    "-excluded",
    "(((",
    ")))",
    "fact: tea",
    "{fact}: tea",
    "a",
    "C++",
    "\x00null\x00byte",
    "emoji 🍵 tea",
    "日本語のテキスト",
    "über straße",
    "snake_case_word",
    "x" * 10_000,
    " ".join(f"word{i}" for i in range(500)),
    "%_\\",
]


@pytest.fixture(scope="module")
def fts_table() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(fact, tokenize='porter unicode61')")
    for text in ("likes green tea", "drinks coffee at work", "NEAR the river", "über straße", "snake case word"):
        conn.execute("INSERT INTO t (fact) VALUES (?)", (text,))
    return conn


@pytest.mark.parametrize("text", HOSTILE)
def test_any_text_gives_a_query_that_fts5_accepts_or_no_query_at_all(fts_table: sqlite3.Connection, text: str) -> None:
    query = fts_query(text)
    if query is None:
        assert fts_tokens(text) == []
        return
    fts_table.execute("SELECT rowid FROM t WHERE t MATCH ?", (query,)).fetchall()


def test_operators_become_ordinary_words() -> None:
    assert fts_query("tea AND coffee OR NOT milk") == '"tea" OR "and" OR "coffee" OR "or" OR "not" OR "milk"'
    assert fts_query("NEAR(tea coffee, 3)") == '"near" OR "tea" OR "coffee"'


def test_an_operator_word_matches_the_word_itself(fts_table: sqlite3.Connection) -> None:
    query = fts_query("near")
    assert query is not None
    assert fts_table.execute("SELECT fact FROM t WHERE t MATCH ?", (query,)).fetchall() == [("NEAR the river",)]


def test_tokens_are_distinct_lower_case_and_capped() -> None:
    assert fts_tokens("Tea tea TEA coffee") == ["tea", "coffee"]
    assert fts_tokens("a b cd") == ["cd"]
    assert len(fts_tokens(" ".join(f"w{i}" for i in range(1000)))) == MAX_TOKENS


def test_stemming_still_applies_to_quoted_tokens(fts_table: sqlite3.Connection) -> None:
    query = fts_query("drinking")
    assert fts_table.execute("SELECT fact FROM t WHERE t MATCH ?", (query,)).fetchall() == [("drinks coffee at work",)]


def test_like_patterns_escape_wildcards() -> None:
    assert escape_like("100%_done\\") == "100\\%\\_done\\\\"
    assert like_patterns("50% off") == ["%50\\%%", "%off%"]


def test_like_keywords_follow_the_original_and_ignore_blank_text() -> None:
    assert like_keywords("Do I like tea") == ["like", "tea"]
    assert like_keywords("a b") == ["a b"]
    assert like_keywords("   ") == []


# -- ranking ------------------------------------------------------------------------------------------------------


def test_normalisation_maps_to_the_unit_interval() -> None:
    assert normalise({1: 2.0, 2: 4.0, 3: 3.0}) == {1: 0.0, 2: 1.0, 3: 0.5}


def test_equal_scores_all_normalise_to_one_half() -> None:
    assert normalise({1: 7.0, 2: 7.0}) == {1: 0.5, 2: 0.5}
    assert normalise({9: -1.0}) == {9: 0.5}
    assert normalise({}) == {}


def test_hybrid_rank_weights_both_sides_over_the_union_of_ids() -> None:
    vector = {1: 0.9, 2: 0.5, 3: 0.1}
    text = {2: 10.0, 4: 2.0}
    ranked = dict(hybrid_rank(vector, text, 0.6, 0.4))
    assert ranked == pytest.approx({1: 0.6, 2: 0.6 * 0.5 + 0.4, 3: 0.0, 4: 0.0})
    order = [key for key, _ in hybrid_rank(vector, text, 0.6, 0.4)]
    assert order == [2, 1, 3, 4]


def test_a_side_that_found_nothing_leaves_the_other_sides_order() -> None:
    assert [key for key, _ in hybrid_rank({}, {5: 1.0, 6: 3.0}, 0.6, 0.4)] == [6, 5]
    assert [key for key, _ in hybrid_rank({5: 0.2, 6: 0.8}, {}, 0.6, 0.4)] == [6, 5]


def test_ties_prefer_the_better_vector_then_the_lower_id() -> None:
    ranked = hybrid_rank({1: 0.5, 2: 0.5}, {}, 1.0, 0.0)
    assert [key for key, _ in ranked] == [1, 2]


def test_single_side_ranking_is_normalised_and_sorted() -> None:
    assert rank_single({1: 1.0, 2: 3.0, 3: 2.0}) == [(2, 1.0), (3, 0.5), (1, 0.0)]


# -- keyword similarity -------------------------------------------------------------------------------------------


def test_keywords_drop_punctuation_short_words_and_stop_words() -> None:
    assert keywords("The user LIKES green-tea, and coffee!") == {"user", "greentea", "coffee"}
    assert {"likes", "prefers", "uses", "wants", "needs"} <= STOP_WORDS


def test_overlap_is_shared_keywords_over_the_smaller_set() -> None:
    assert overlap(frozenset({"green", "tea"}), frozenset({"green", "tea", "morning", "daily"})) == 1.0
    assert overlap(frozenset({"green", "tea", "cup"}), frozenset({"green", "coffee", "mug"})) == pytest.approx(1 / 3)
    assert overlap(frozenset(), frozenset({"tea"})) == 0.0


def test_similar_facts_reach_the_threshold_and_come_most_similar_first() -> None:
    existing = [(1, "Drinks green tea every morning"), (2, "Owns a bicycle"), (3, "Green tea lover")]
    found = similar("Likes green tea in the morning", existing, 0.6)
    assert [(fact_id, round(score, 2)) for fact_id, _, score in found] == [(1, 1.0), (3, 0.67)]
    assert similar("Owns a red car", existing, 0.6) == []


def test_history_hits_count_for_the_current_fact_that_replaced_them() -> None:
    from memorizer_mcp.ranking import carry_to

    ranked = [(1, 0.9), (2, 0.5), (3, 0.4), (4, 0.3)]
    # 1 was replaced by 3; 4 leads nowhere current (its successor was deleted); 2 is current.
    assert carry_to(ranked, {1: 3, 2: 2, 3: 3, 4: None}) == [(3, 0.9), (2, 0.5)]
