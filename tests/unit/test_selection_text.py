"""Words, stems and concepts for lexical tool matching, and the BM25 index built on them."""

from __future__ import annotations

import pytest

from thinker.selection._lexical import LexicalIndex, parameter_names, plain_description, tool_terms
from thinker.selection._text import STOP_WORDS, name_words, stem, stems, terms, words
from thinker.selection._types import McpInfo, ToolInfo


@pytest.mark.parametrize(
    ("family", "expected"),
    [
        (("reminders", "reminder", "remind", "reminded"), "remind"),
        (("schedule", "scheduled", "scheduling", "schedules"), "schedul"),
        (("file", "files"), "fil"),
        (("search", "searches", "searching"), "search"),
        (("category", "categories"), "category"),
        (("running", "run"), "run"),
        (("meetings", "meeting"), "meet"),
    ],
)
def test_a_word_family_lands_on_one_stem(family: tuple[str, ...], expected: str) -> None:
    assert {stem(word) for word in family} == {expected}


@pytest.mark.parametrize("word", ["news", "status", "gmail", "api", "2fa", "2024", "café", "日本"])
def test_short_protected_numeric_and_non_ascii_words_are_kept_whole(word: str) -> None:
    assert stem(word) == word


def test_news_does_not_become_new() -> None:
    # "new" evokes creating things; "news" must not.
    assert stem("news") != stem("new")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gmail_create_event", ["gmail", "create", "event"]),
        ("listPullRequests", ["list", "pull", "requests"]),
        ("What's new?", ["what", "s", "new"]),
        ("  ", []),
    ],
)
def test_words_split_names_and_sentences(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_stop_words_are_dropped_but_action_verbs_are_not() -> None:
    assert stems("Can you please get me the file") == ["get", "fil"]
    assert {"get", "make", "tell", "send"}.isdisjoint(STOP_WORDS)


@pytest.mark.parametrize(
    ("text", "concepts"),
    [
        ("set an alarm before sunrise", {"#remind", "#create"}),
        ("cancel my dentist appointment", {"#delete", "#event", "#local"}),
        ("check my inbox", {"#email", "#list"}),
        ("take a picture", {"#image"}),
    ],
)
def test_synonyms_evoke_concepts(text: str, concepts: set[str]) -> None:
    found = {term for term in terms(text) if term.startswith("#")}
    assert concepts <= found


def test_a_concept_weighs_less_than_the_word_itself() -> None:
    weights = terms("alarm")
    assert weights["alarm"] == 1.0
    assert 0 < weights["#remind"] < 1.0


@pytest.mark.parametrize(
    ("name", "mcp", "expected"),
    [
        ("gmail_create_event", "gmail", ["create", "event"]),
        ("web_browser_click", "web", ["browser", "click"]),
        ("get_status", None, ["get", "status"]),
        ("memory_store_fact", "gmail", ["memory", "store", "fact"]),
    ],
)
def test_name_words_drop_only_the_tools_own_prefix(name: str, mcp: str | None, expected: list[str]) -> None:
    assert name_words(name, mcp) == expected


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("[Gmail | Communication] Send an email.", "Send an email."),
        ("Send an email. [draft]", "Send an email. [draft]"),
        ("", ""),
    ],
)
def test_the_hubs_tag_is_removed_from_descriptions(description: str, expected: str) -> None:
    assert plain_description(description) == expected


def test_parameter_names_tolerate_schemas_without_properties() -> None:
    assert parameter_names({"type": "object", "properties": {"to": {}, "body": {}}}) == ["to", "body"]
    assert parameter_names({"type": "object"}) == []
    assert parameter_names({"properties": ["not", "a", "mapping"]}) == []


def test_name_words_outweigh_description_words_and_the_mcp_label_counts() -> None:
    tool = ToolInfo("scheduler_create_reminder", "Ping the user later.", {"properties": {"deadline": {}}}, "scheduler")
    bag = tool_terms(tool, McpInfo("scheduler", "Scheduler", "Reminders"))
    assert bag["remind"] > bag["ping"]
    assert bag["deadlin"] < bag["ping"]
    assert "schedul" in bag


def test_the_index_ranks_the_tool_whose_terms_the_text_shares() -> None:
    tools = [
        ToolInfo("calendar_create_event", "Create an event on the calendar.", {}, "calendar"),
        ToolInfo("calendar_delete_event", "Delete an event from the calendar.", {}, "calendar"),
        ToolInfo("files_read_file", "Read a file.", {}, "files"),
    ]
    index = LexicalIndex([tool_terms(t, None) for t in tools])
    scores = index.score("please cancel the meeting")
    # "cancel" evokes #delete and "meeting" evokes #event: no shared word is needed.
    assert scores.argmax() == 1
    assert scores[2] == 0.0
    assert index.score("").tolist() == [0.0, 0.0, 0.0]


def test_an_empty_index_scores_nothing() -> None:
    assert LexicalIndex([]).score("anything").shape == (0,)
