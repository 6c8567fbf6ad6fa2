"""Keyword routes: groups by tool-name pattern, the built-in routes and the automatic ones from manifests."""

from __future__ import annotations

import numpy as np
import pytest

from thinker.selection._routes import (
    AUTO_ROUTE_WEIGHT,
    BUILTIN_ROUTES,
    auto_routes,
    group_members,
    mcp_group,
    route_scores,
    route_strengths,
)
from thinker.selection._types import McpInfo


@pytest.mark.parametrize(
    ("name", "group", "member"),
    [
        ("gmail_send_email", "email", True),
        ("outlook_list_emails", "email", True),
        ("gmail_create_draft", "email", True),
        ("gmail_create_event", "email", False),
        ("gmail_create_event", "calendar", True),
        ("gmail_find_free_time", "calendar", True),
        ("gmail_search_contacts", "email", False),
        ("gmail_search_contacts", "contacts", True),
        ("memory_list_contacts", "contacts", True),
        ("searcher_web_search", "web_search", True),
        ("searcher_news_search", "web_search", False),
        ("filer_read_file", "files", True),
        ("telegram_send_file", "files", True),
        ("profile_summary", "files", False),
        ("memory_store_skill", "reminders", True),
        ("scheduler_delete_reminder", "reminders", True),
        ("web_browser_click", "browser", True),
        ("browser_click", "browser", True),
        ("onepassword_get_item", "passwords", True),
        ("get_status", "system", True),
        ("spawn_subagent", "subagents", True),
    ],
)
def test_groups_are_defined_by_name_patterns(name: str, group: str, member: bool) -> None:
    members = group_members([name], [name.split("_", 1)[0]])
    assert (0 in members[group].tolist()) is member


def test_every_mcp_is_also_a_group_of_its_own_tools() -> None:
    members = group_members(["a_one", "b_two", "a_three", "native"], ["a", "b", "a", None])
    assert members[mcp_group("a")].tolist() == [0, 2]
    assert members[mcp_group("b")].tolist() == [1]
    assert not any(group.startswith("mcp:") and 3 in m.tolist() for group, m in members.items())


@pytest.mark.parametrize(
    ("message", "group"),
    [
        ("anything new in my inbox?", "email"),
        ("move my dentist appointment to Friday", "calendar"),
        ("wake me at dawn", "reminders"),
        ("every morning send me the weather", "reminders"),
        ("post it in the telegram group", "telegram"),
        ("summarise ~/notes/plan.md", "files"),
        ("open report.pdf", "files"),
        ("what's my wifi password", "passwords"),
        ("remember that I like green tea", "memory"),
        ("show me pictures of otters", "images"),
        ("any pharmacies open now near me", "local"),
        ("read https://example.org/post", "fetch"),
        ("log in to the site and fill in the form", "browser"),
        ("plot these numbers in python", "code"),
        ("what's the weather in Lyon tomorrow", "web_search"),
        ("Who painted the Night Watch?", "web_search"),
        ("is every mcp healthy", "system"),
    ],
)
def test_builtin_routes_point_at_their_group(message: str, group: str) -> None:
    assert group in route_strengths(message, BUILTIN_ROUTES)


@pytest.mark.parametrize("message", ["hello there", "cheers, that will do", "ok"])
def test_small_talk_fires_no_route(message: str) -> None:
    assert route_strengths(message, BUILTIN_ROUTES) == {}


def test_an_explicit_noun_outweighs_a_hint() -> None:
    strengths = route_strengths("any appointments today? what is on?", BUILTIN_ROUTES)
    assert strengths["calendar"] == 1.0
    # The trailing question is only a weak hint at web search.
    assert route_strengths("what is on?", BUILTIN_ROUTES)["web_search"] < strengths["calendar"]


def test_auto_routes_match_manifest_keywords_as_whole_words() -> None:
    routes = auto_routes([McpInfo("mail", "Mail", "Communication", ("mail", "inbox"))])
    group = mcp_group("mail")
    assert route_strengths("check my mail", routes) == {group: AUTO_ROUTE_WEIGHT}
    assert route_strengths("two new mails", routes) == {group: AUTO_ROUTE_WEIGHT}
    # The original joined keywords without boundaries: "mail" fired inside "gmail" and "email".
    assert route_strengths("open gmail", routes) == {}
    assert route_strengths("send an email", routes) == {}


def test_auto_routes_escape_keywords_and_skip_mcps_without_any() -> None:
    routes = auto_routes(
        [
            McpInfo("cpp", "C++", "Code", ("c++", "feature flag", " ")),
            McpInfo("quiet", "Quiet", "None", ()),
            McpInfo("blank", "Blank", "None", ("", "  ")),
        ]
    )
    assert len(routes) == 1
    assert route_strengths("compile this c++ file", routes) == {mcp_group("cpp"): AUTO_ROUTE_WEIGHT}
    assert route_strengths("turn the feature flags off", routes) == {mcp_group("cpp"): AUTO_ROUTE_WEIGHT}
    assert route_strengths("cxx", routes) == {}


def test_route_scores_give_each_tool_its_strongest_group() -> None:
    names = ["gmail_send_email", "gmail_create_event", "filer_read_file"]
    members = group_members(names, ["gmail", "gmail", "filer"])
    routes = [*BUILTIN_ROUTES, *auto_routes([McpInfo("gmail", "Gmail", "Mail", ("google",))])]
    scores = route_scores("put the google meeting on the calendar", routes, members, len(names))
    assert scores.tolist() == [AUTO_ROUTE_WEIGHT, 1.0, 0.0]
    assert np.all(route_scores("hello", routes, members, len(names)) == 0)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("who won the match last night?", 0.8),  # a question about the world: the web search is implied
        ("how tall is the tallest tower in Europe", 0.8),
        ("what is on my calendar tomorrow?", 0.3),  # tied to the user's calendar: only the weak question route
        ("thanks, that is all", None),  # not a question
    ],
)
def test_a_question_with_no_other_tool_signal_implies_the_web_search(message: str, expected: float | None) -> None:
    assert route_strengths(message, BUILTIN_ROUTES).get("web_search") == expected


@pytest.mark.parametrize(
    ("message", "fires"),
    [
        ("email Tom the quarterly report", True),
        ("send a mail to Anna about the party", True),
        ("email tom@example.com the notes", False),  # the address is given: no lookup needed
        ("check my email", False),  # no one named
        ("send the mail on Monday", False),  # a day is not a person
    ],
)
def test_mailing_a_named_person_implies_the_contacts_lookup(message: str, fires: bool) -> None:
    assert ("contacts" in route_strengths(message, BUILTIN_ROUTES)) is fires
