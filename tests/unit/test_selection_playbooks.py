"""Playbook keyword matching and the strict tool set of a skill with required tools."""

from __future__ import annotations

import pytest

from thinker.selection import Playbook, match_playbooks, required_selection


def _playbook(name: str, *keywords: str, priority: int = 10) -> Playbook:
    return Playbook(name=name, keywords=keywords, priority=priority, required_tools=(f"{name}_tool",))


@pytest.mark.parametrize(
    ("message", "keywords", "matches"),
    [
        ("Check my EMAIL please", ("email",), True),
        ("any emails?", ("email",), False),
        ("the emailer broke", ("email",), False),
        ("please   check   email now", ("check email",), True),
        ("check\nemail", ("check email",), True),
        ("what is Anna's email", ("'s email",), True),
        ("is c++ hard", ("c++",), True),
        ("schedule a meeting", ("meeting", "calendar"), True),
        ("nothing relevant", ("meeting", "calendar"), False),
        ("anything", ("", "   "), False),
        ("what's broken?", ("what's broken",), True),
    ],
)
def test_keywords_match_as_whole_words_in_any_case(message: str, keywords: tuple[str, ...], matches: bool) -> None:
    assert bool(match_playbooks(message, [_playbook("p", *keywords)])) is matches


def test_matches_are_sorted_by_priority_then_name() -> None:
    playbooks = [
        _playbook("research", "news", priority=5),
        _playbook("recall", "remember", priority=15),
        _playbook("briefing", "news", priority=15),
        _playbook("files", "file", priority=50),
    ]
    matched = match_playbooks("remember the news", playbooks)
    assert [p.name for p in matched] == ["briefing", "recall", "research"]


def test_no_playbooks_match_nothing() -> None:
    assert match_playbooks("remember the news", []) == []


def test_a_skill_gets_exactly_its_existing_required_tools() -> None:
    selection = required_selection(
        ["gmail_list_events", "memory_list_facts", "gone_tool", "gmail_list_events"],
        {"gmail_list_events", "memory_list_facts", "send_telegram", "browse_tools", "load_tools"},
    )
    assert selection.names == ("gmail_list_events", "memory_list_facts")
    assert selection.method == "required"
    assert selection.scores == {}
    assert selection.top_score is None


def test_a_skill_without_existing_tools_gets_none_not_the_core() -> None:
    assert required_selection(["gone_tool"], {"send_telegram"}).names == ()
    assert required_selection([], {"send_telegram"}).names == ()
