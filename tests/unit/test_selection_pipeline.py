"""The selection pipeline's pure steps and `select_tools` on a small catalog (no embedder involved)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from thinker.selection import CORE_TOOLS, McpInfo, SelectionConfig, ToolInfo
from thinker.selection._pipeline import (
    apply_cap,
    build_catalog,
    definition_size,
    family_evidence,
    looks_like_followup,
    lookup_companions,
    pick,
    select_tools,
    split_clauses,
    sticky_tools,
    tool_texts,
)


def _tool(name: str, description: str, required: tuple[str, ...] = (), mcp: str | None = "") -> ToolInfo:
    schema = {"type": "object", "properties": {p: {"type": "string"} for p in required}, "required": list(required)}
    return ToolInfo(name, description, schema, name.split("_", 1)[0] if mcp == "" else mcp)


TOOLS = [
    _tool("calendar_list_events", "List events on the user's calendar in a time range."),
    _tool("calendar_create_event", "Create an event on the calendar.", ("summary", "start")),
    _tool("calendar_update_event", "Change the time or title of an existing event.", ("event_id",)),
    _tool("calendar_delete_event", "Delete an event.", ("event_id",)),
    _tool("reminders_create_reminder", "Remind the user of something at a given time.", ("text", "when")),
    _tool("reminders_list_reminders", "List upcoming reminders."),
    _tool("reminders_delete_reminder", "Delete a reminder.", ("reminder_id",)),
    _tool("mail_send_email", "Send an email.", ("to", "subject", "body")),
    _tool("mail_search_emails", "Search emails by sender or subject.", ("query",)),
    _tool("mail_list_emails", "List recent emails in the inbox."),
    _tool("mail_reply_email", "Reply to an email.", ("message_id", "body")),
    _tool("files_read_file", "[Files | Storage] Read a file from storage.", ("path",)),
    _tool("send_telegram", "Send a Telegram message.", ("message",), mcp=None),
    _tool("get_status", "Status of the hub.", mcp=None),
]
MCPS = [McpInfo("mail", "Mail", "Communication", ("mail",)), McpInfo("files", "Files", "Storage", ("folder",))]
CONFIG = SelectionConfig()
CATALOG = build_catalog(TOOLS, MCPS, CONFIG.core_tools)
"""The English fallback's catalog (built-in routes and concepts): what runs without embeddings."""


def picked(names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name not in CORE_TOOLS]


# -- pure steps ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "gap", "least", "most", "floor", "expected"),
    [
        ([0.9, 0.1, 0.85, 0.5], 0.1, 1, 4, 0.0, [0, 2]),
        ([0.9, 0.1, 0.85, 0.5], 0.1, 3, 4, 0.0, [0, 2, 3]),
        ([0.9, 0.1, 0.85, 0.5], 1.0, 1, 2, 0.0, [0, 2]),
        ([0.9, 0.1, 0.85, 0.5], 1.0, 1, 4, 0.6, [0, 2]),
        ([0.2, 0.1], 0.1, 2, 4, 0.3, []),
        ([0.5, 0.5, 0.5], 0.0, 1, 4, 0.0, [0, 1, 2]),
        ([0.5, -np.inf, 0.4], 1.0, 3, 4, -1.0, [0, 2]),
        ([], 0.1, 1, 4, 0.0, []),
    ],
)
def test_pick_keeps_the_least_then_the_close_ones_up_to_the_most(
    scores: list[float], gap: float, least: int, most: int, floor: float, expected: list[int]
) -> None:
    assert pick(np.array(scores, dtype=np.float64), gap=gap, least=least, most=most, floor=floor) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("drop the gym reminder and add one for the dentist", ["drop the gym reminder", "add one for the dentist"]),
        ("Find the invoice. Then email it to Tom", ["Find the invoice", "email it to Tom"]),
        ("check mail; also water the plants at 6", ["check mail", "water the plants at 6"]),
        ("lunch with Tom and Anna", []),
        ("book a table", []),
        ("search the news, and then summarise it", ["search the news", "summarise it"]),
        ("Найди письмо от бухгалтера и перешли его жене", ["Найди письмо от бухгалтера", "перешли его жене"]),
        ("Lies die Datei einkauf.md und schick sie an Eva", ["Lies die Datei einkauf.md", "schick sie an Eva"]),
        ("Lis le fichier puis envoie-le à Paul", ["Lis le fichier", "envoie-le à Paul"]),
        ("先查一下天气然后提醒我带伞", ["先查一下天气", "提醒我带伞"]),
        ("what is 3.5 times 2", []),
        ("hitta tandläkarens nummer och ring dem på fredag", ["hitta tandläkarens nummer", "ring dem på fredag"]),
        ("zkontroluj poštu a pak smaž reklamy", ["zkontroluj poštu", "smaž reklamy"]),
        ("tìm quán cà phê gần đây rồi chỉ đường cho tôi", ["tìm quán cà phê gần đây", "chỉ đường cho tôi"]),
        ("baca pesan dari Budi lalu hapus yang lama", ["baca pesan dari Budi", "hapus yang lama"]),
        ("βρες το αρχείο και σβήσ' το", ["βρες το αρχείο", "σβήσ' το"]),
        ("रिपोर्ट पढ़ो और सारांश भेजो", ["रिपोर्ट पढ़ो", "सारांश भेजो"]),
        ("天気を調べて、傘が要るか教えて", ["天気を調べて", "傘が要るか教えて"]),
        ("메일 읽고 답장 보내줘", ["메일 읽고", "답장 보내줘"]),
    ],
)
def test_split_clauses_finds_the_parts_of_a_request(message: str, expected: list[str]) -> None:
    assert split_clauses(message) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("at 6pm", True),
        ("It's anna@example.org", True),
        ("send it to him as well, he asked me for the latest version yesterday", True),
        ("Find the cheapest flights from Lyon to Lisbon for the second week of June", False),
    ],
)
def test_looks_like_followup(message: str, expected: bool) -> None:
    assert looks_like_followup(message) is expected


@pytest.mark.parametrize(
    ("turns", "lookback", "limit", "expected"),
    [
        ([["a"], ["b", "c"]], 3, 8, ["b", "c", "a"]),
        ([["a"], ["b", "c"]], 1, 8, ["b", "c"]),
        ([["a"], ["b", "c"]], 3, 2, ["b", "c"]),
        ([["a", "core"], ["a"], []], 3, 8, ["a"]),
        ([["x"], ["a"], ["b"], ["c"]], 3, 8, ["c", "b", "a"]),
        ([["a"]], 0, 8, []),
        ([["a"]], 3, 0, []),
        ([], 3, 8, []),
    ],
)
def test_sticky_tools_are_the_newest_turns_tools_without_core_or_repeats(
    turns: list[list[str]], lookback: int, limit: int, expected: list[str]
) -> None:
    assert sticky_tools(turns, lookback=lookback, limit=limit, exclude={"core"}) == expected


def test_the_cap_keeps_core_then_pinned_then_the_picks_in_order() -> None:
    kept, dropped = apply_cap(["c1", "c2"], ["p1"], ["y", "z", "x", "p1"], 4)
    assert kept == ["c1", "c2", "p1", "y"]
    assert dropped == ["z", "x"]


def test_the_messages_best_tools_are_kept_before_pinned_ones_when_pinned_ones_would_fill_the_cap() -> None:
    kept, dropped = apply_cap(["c1"], ["p1", "p2", "p3"], ["send_email", "list_emails", "x"], 4, reserved=1)
    assert kept == ["c1", "send_email", "p1", "p2"]
    assert dropped == ["p3", "list_emails", "x"]


def test_the_cap_never_drops_core_tools() -> None:
    kept, dropped = apply_cap(["c1", "c2", "c3"], ["p1"], ["x"], 2)
    assert kept == ["c1", "c2", "c3"]
    assert dropped == ["p1", "x"]


def test_a_schema_budget_drops_what_does_not_fit_but_keeps_core_and_reserved_tools_and_smaller_ones_after() -> None:
    ranked = ["best", "second", "big", "small", "last"]
    costs = {"c1": 10_000, "best": 700, "second": 700, "big": 900, "small": 300, "last": 400}
    kept, dropped = apply_cap(["c1"], [], ranked, 10, reserved=1, costs=costs, budget=1_500)
    # c1 is core (not counted), best is reserved (700), second fits (1,400); big, small and last would each
    # go over 1,500.
    assert kept == ["c1", "best", "second"]
    assert dropped == ["big", "small", "last"]
    kept, dropped = apply_cap(["c1"], [], ranked, 10, reserved=1, costs=costs, budget=1_800)
    assert kept == ["c1", "best", "second", "small"]  # big (900) did not fit, small (300) after it did
    assert dropped == ["big", "last"]
    kept, _ = apply_cap([], [], ranked, 10, reserved=2, costs=costs, budget=100)
    assert kept == ["best", "second"]  # the reserved picks are kept whatever they cost


def test_a_tools_cost_is_the_size_of_the_definition_the_model_is_sent() -> None:
    from thinker.compact import function_definition

    tool = ToolInfo(
        "mail_send_email",
        "[Mail | Communication] Send an email. For requests like: email Tom.",
        {"type": "object", "properties": {"to": {"type": "string", "description": "Who. Any address."}}},
        "mail",
    )
    sent = function_definition(tool.name, tool.description, tool.input_schema)["function"]
    assert definition_size(tool) == len(json.dumps(sent))
    assert build_catalog([tool], [], ()).costs == {"mail_send_email": len(json.dumps(sent))}


def test_lookup_companions_come_from_the_same_mcp_and_prefer_search_to_list() -> None:
    companions = {
        TOOLS[i].name: [[TOOLS[j].name for j in tier] for tier in tiers]
        for i, tiers in lookup_companions(TOOLS).items()
    }
    assert companions == {
        "calendar_update_event": [["calendar_list_events"]],
        "calendar_delete_event": [["calendar_list_events"]],
        "reminders_delete_reminder": [["reminders_list_reminders"]],
        "mail_reply_email": [["mail_search_emails"], ["mail_list_emails"]],
    }


def test_a_tool_of_another_mcp_or_without_an_mcp_is_no_companion() -> None:
    tools = [
        _tool("a_delete_item", "", ("item_id",)),
        _tool("b_list_items", ""),
        _tool("drop_item", "", ("item_id",), mcp=None),
        _tool("list_items", "", mcp=None),
    ]
    assert lookup_companions(tools) == {}


def test_the_embedded_texts_are_the_name_as_words_with_the_description_without_the_hub_tag() -> None:
    assert tool_texts(TOOLS[11]) == ["read file: Read a file from storage."]


# -- select_tools ----------------------------------------------------------------------------------------------


def test_core_tools_come_first_and_are_never_candidates() -> None:
    selection = select_tools(CATALOG, "set a reminder to water the plants at 6", CONFIG)
    assert selection.names[: len(CORE_TOOLS)] == CORE_TOOLS
    assert picked(selection.names)[0] == "reminders_create_reminder"
    assert not set(CORE_TOOLS) & set(CATALOG.names)
    # The essentials and the hub's status are candidates like any tool, picked on evidence.
    assert "send_telegram" in CATALOG.names and "get_status" in CATALOG.names
    assert "send_telegram" not in selection.names
    assert selection.method == "regex"
    assert selection.top_score is None
    assert set(selection.scores) == set(picked(selection.names))


def test_telegram_is_picked_when_asked_for() -> None:
    assert "send_telegram" in picked(select_tools(CATALOG, "send a telegram message to Anna", CONFIG).names)


def test_the_core_is_the_meta_tools_alone() -> None:
    assert CORE_TOOLS == ("browse_tools", "load_tools")


def test_a_message_without_evidence_gets_only_the_core_tools() -> None:
    assert select_tools(CATALOG, "hello!", CONFIG).names == CORE_TOOLS


def test_allowed_filters_candidates_and_core_tools_alike() -> None:
    selection = select_tools(
        CATALOG,
        "remind me to water the plants at 6",
        CONFIG,
        allowed=lambda name: not name.startswith("reminders_") and name != "get_status",
    )
    assert "get_status" not in selection.names
    assert not any(name.startswith("reminders_") for name in selection.names)


def test_each_clause_of_a_multi_part_message_brings_its_own_tool() -> None:
    narrow = replace(CONFIG, min_tools=1, top_k=1)
    message = "delete the dentist reminder and then send an email to Tom"
    assert picked(select_tools(CATALOG, message, replace(narrow, clause_top=0)).names) != []
    both = picked(select_tools(CATALOG, message, narrow).names)
    assert {"reminders_delete_reminder", "mail_send_email"} <= set(both)


def test_a_follow_up_gets_the_tool_its_previous_request_needed() -> None:
    alone = picked(select_tools(CATALOG, "at 6pm please", CONFIG).names)
    assert "reminders_create_reminder" not in alone
    followed = select_tools(CATALOG, "at 6pm please", CONFIG, recent_user_messages=["set a reminder to call Anna"])
    assert "reminders_create_reminder" in followed.names


def test_a_full_request_does_not_inherit_the_previous_ones_tools() -> None:
    message = "Read the file with the quarterly figures from storage and summarise the main numbers for me"
    selection = select_tools(CATALOG, message, CONFIG, recent_user_messages=["remind me to call Anna"])
    assert "reminders_create_reminder" not in selection.names


def test_the_assistants_last_question_lends_its_words_to_the_answer() -> None:
    answer = "Tom Kraus"
    without = select_tools(CATALOG, answer, CONFIG)
    assert "mail_send_email" not in without.names
    with_question = select_tools(
        CATALOG, answer, CONFIG, recent_assistant_messages=["Sure. To whom should I send the email?"]
    )
    assert "mail_send_email" in with_question.names


def test_a_tool_that_needs_an_id_brings_the_tool_that_finds_it() -> None:
    narrow = replace(CONFIG, min_tools=1, top_k=1, score_gap=0.0)
    message = "change the time of the design review event"
    assert picked(select_tools(CATALOG, message, replace(narrow, lookup_companions=False)).names) == [
        "calendar_update_event"
    ]
    assert picked(select_tools(CATALOG, message, narrow).names) == ["calendar_update_event", "calendar_list_events"]


def test_the_best_picks_companion_stays_under_a_tight_cap_and_a_weaker_picks_does_not_jump_ahead() -> None:
    # Ranked by its own score, the lookup fell behind picks that merely scored higher and was capped away; the
    # tool it serves then arrived without a way to find its ids.
    config = replace(CONFIG, max_tools=len(CORE_TOOLS) + 2, min_tools=3, top_k=3, clause_top=0, threshold=0.0)
    best_needs_ids = _cosines(calendar_update_event=0.9, mail_send_email=0.6, files_read_file=0.55)
    selection = select_tools(CATALOG, "zz", config, cosine=best_needs_ids)
    assert picked(selection.names) == ["calendar_update_event", "calendar_list_events"]
    # Only the best pick's (and each clause's best's): a weaker pick's lookup keeps its own rank.
    weaker_needs_ids = _cosines(mail_send_email=0.9, calendar_update_event=0.7, files_read_file=0.3)
    selection = select_tools(CATALOG, "zz", config, cosine=weaker_needs_ids)
    assert picked(selection.names) == ["mail_send_email", "calendar_update_event"]
    assert "calendar_list_events" in selection.dropped


def test_the_companion_is_skipped_when_not_allowed_and_the_next_tier_is_used() -> None:
    narrow = replace(CONFIG, min_tools=1, top_k=1, score_gap=0.0, clause_top=0)
    selection = select_tools(CATALOG, "reply to that email", narrow, allowed=lambda name: name != "mail_search_emails")
    assert picked(selection.names) == ["mail_reply_email", "mail_list_emails"]


def test_sticky_and_playbook_tools_are_pinned_right_after_the_core() -> None:
    selection = select_tools(
        CATALOG,
        "hello!",
        CONFIG,
        recent_tools_used=[["files_read_file"], ["send_telegram", "mail_list_emails", "no_such_tool"]],
        playbook_tools=["calendar_list_events", "no_such_tool", "send_telegram"],
    )
    # send_telegram is not core: a playbook can pin it like any tool (once).
    assert selection.names == (
        *CORE_TOOLS,
        "calendar_list_events",
        "send_telegram",
        "mail_list_emails",
        "files_read_file",
    )
    assert selection.scores == {}


def test_sticky_tools_respect_lookback_max_and_allowed() -> None:
    config = replace(CONFIG, sticky_lookback=1, sticky_max=1)
    selection = select_tools(
        CATALOG,
        "hello!",
        config,
        recent_tools_used=[["files_read_file"], ["mail_list_emails", "mail_send_email"]],
        allowed=lambda name: name != "mail_list_emails",
    )
    assert picked(selection.names) == ["mail_send_email"]


def test_the_cap_drops_the_weakest_picks_and_says_which() -> None:
    config = replace(CONFIG, max_tools=len(CORE_TOOLS) + 1)
    selection = select_tools(CATALOG, "send an email and then delete the old reminder", config)
    assert len(selection.names) == len(CORE_TOOLS) + 1
    assert selection.dropped
    assert set(selection.dropped).isdisjoint(selection.names)
    kept = picked(selection.names)[0]
    assert all(selection.scores[kept] >= score for name, score in selection.scores.items())


def test_each_clauses_best_tool_is_kept_before_the_messages_lesser_picks() -> None:
    # The message's ranking alone fills the cap with the first request's tools; the second clause's best tool,
    # which the whole message scores low, comes right after the message's best and so stays.
    config = replace(CONFIG, max_tools=len(CORE_TOOLS) + 2, min_tools=4, top_k=4, lookup_companions=False)
    message = "show my calendar events this week and then read the file"
    cosine = _cosines(
        calendar_list_events=0.9, calendar_create_event=0.8, calendar_update_event=0.8, files_read_file=0.1
    )
    clauses = split_clauses(message)
    clause_cosines = {clauses[0]: _cosines(calendar_list_events=0.9), clauses[1]: _cosines(files_read_file=0.9)}
    selection = select_tools(CATALOG, message, config, cosine=cosine, clause_cosines=clause_cosines)
    assert picked(selection.names) == ["calendar_list_events", "files_read_file"]
    assert "calendar_create_event" in selection.dropped


def test_a_file_name_an_address_or_a_link_points_at_the_tools_that_take_one() -> None:
    config = replace(CONFIG, min_tools=1, top_k=1, clause_top=0, lookup_companions=False, typed_readers=False)
    # No word of the message names a tool; the file name and the e-mail address do, in any language.
    assert picked(select_tools(CATALOG, "quarterly.ods bitte", config).names) == ["files_read_file"]
    assert picked(select_tools(CATALOG, "ana@example.org, bitte", config).names) == ["mail_send_email"]
    assert select_tools(CATALOG, "quarterly.ods bitte", replace(config, typed_weight=0.0)).names == CORE_TOOLS


def test_embeddings_join_the_evidence_in_hybrid_mode() -> None:
    cosine = np.zeros(CATALOG.size)
    cosine[CATALOG.index["files_read_file"]] = 0.7
    cosine[CATALOG.index["mail_list_emails"]] = 0.9
    selection = select_tools(CATALOG, "what does it say", CONFIG, cosine=cosine)
    assert selection.method == "hybrid"
    assert picked(selection.names)[:2] == ["mail_list_emails", "files_read_file"]
    assert selection.top_score == pytest.approx(0.9)
    hidden = select_tools(CATALOG, "what does it say", CONFIG, cosine=cosine, allowed=lambda n: n != "mail_list_emails")
    assert hidden.top_score == pytest.approx(0.7)


def test_without_lexical_and_route_weights_the_method_is_embedding() -> None:
    config = replace(CONFIG, lexical_weight=0.0, route_weight=0.0, family_weight=0.0)
    cosine = np.linspace(0.0, 0.5, CATALOG.size)
    selection = select_tools(CATALOG, "remind me at 6", config, cosine=cosine)
    assert selection.method == "embedding"
    assert picked(selection.names)[0] == CATALOG.names[-1]


def test_an_empty_catalog_selects_the_core_tools() -> None:
    empty = build_catalog([], [], CONFIG.core_tools)
    selection = select_tools(empty, "remind me at 6", CONFIG, cosine=np.zeros(0))
    assert selection.names == CORE_TOOLS
    assert selection.top_score is None


def _cosines(**values: float) -> np.ndarray:
    out = np.zeros(CATALOG.size)
    for name, value in values.items():
        out[CATALOG.index[name]] = value
    return out


def test_a_followup_takes_the_meaning_of_the_request_it_follows() -> None:
    config = replace(CONFIG, min_tools=1, top_k=1, clause_top=0, context_top=0, lookup_companions=False)
    alone = _cosines(mail_send_email=0.3)
    with_request = _cosines(calendar_update_event=0.6)
    selection = select_tools(
        CATALOG,
        "auf 16 Uhr bitte",
        config,
        cosine=alone,
        context_cosine=with_request,
        recent_user_messages=["Verschieb den Termin"],
    )
    assert picked(selection.names) == ["calendar_update_event"]
    # A message that stands on its own ignores the earlier turn's meaning.
    standalone = "send the quarterly report to our finance team before lunch on Thursday"
    selection = select_tools(
        CATALOG, standalone, config, cosine=alone, context_cosine=with_request, recent_user_messages=["x"]
    )
    assert picked(selection.names) == ["mail_send_email"]


def test_each_clause_brings_its_own_best_tool_by_meaning() -> None:
    config = replace(CONFIG, min_tools=1, top_k=1, context_top=0, lookup_companions=False)
    message = "zeig mir die Termine und schick Eva eine Nachricht"
    clauses = split_clauses(message)
    selection = select_tools(
        CATALOG,
        message,
        config,
        cosine=_cosines(calendar_list_events=0.5),
        clause_cosines={clauses[0]: _cosines(calendar_list_events=0.5), clauses[1]: _cosines(send_telegram=0.5)},
    )
    assert picked(selection.names) == ["calendar_list_events", "send_telegram"]


def test_the_mcp_cosine_lifts_every_tool_of_the_mcp_the_message_is_about() -> None:
    config = replace(CONFIG, min_tools=2, top_k=2, clause_top=0, context_top=0, lookup_companions=False)
    cosine = _cosines(mail_send_email=0.40, files_read_file=0.41, mail_reply_email=0.35)
    mail = np.array([0.5 if name.startswith("mail_") else 0.0 for name in CATALOG.names])
    selection = select_tools(CATALOG, "x", config, cosine=cosine, mcp_cosine=mail)
    assert picked(selection.names) == ["mail_send_email", "mail_reply_email"]


@pytest.mark.parametrize(
    ("servers", "per_server", "expected"),
    [
        ([0, 0, 0, 1], 2, [0, 1, 3]),  # the third tool of MCP 0 gives way to MCP 1's
        ([0, 0, 0, 1], 0, [0, 1, 2]),  # 0: no limit
        ([-1, -1, -1, 1], 1, [0, 1, 2]),  # tools of no MCP are never limited
    ],
)
def test_pick_takes_at_most_per_server_tools_of_one_mcp(
    servers: list[int], per_server: int, expected: list[int]
) -> None:
    scores = np.array([0.9, 0.8, 0.7, 0.6], dtype=np.float64)
    chosen = pick(
        scores, gap=0.0, least=3, most=3, floor=0.0, servers=np.array(servers, dtype=np.intp), per_server=per_server
    )
    assert chosen == expected


def test_family_evidence_is_the_mean_of_the_best_cosines_of_each_mcp() -> None:
    cosine = np.array([0.6, 0.2, 0.4, 0.9, 0.5], dtype=np.float64)
    servers = np.array([0, 0, 0, 1, -1], dtype=np.intp)
    assert family_evidence(cosine, servers, 2) == pytest.approx([0.5, 0.5, 0.5, 0.9, 0.0])


def test_a_named_file_brings_the_tool_that_reads_it_right_after_the_best_pick() -> None:
    # The request is about the calendar; the letter it names must be read first, and ranked by its score the
    # reader lost its place to the calendar's siblings.
    config = replace(CONFIG, max_tools=len(CORE_TOOLS) + 3, min_tools=3, top_k=3, clause_top=0, threshold=0.0)
    cosine = _cosines(calendar_create_event=0.9, calendar_list_events=0.8, calendar_update_event=0.7)
    message = "put the visit in letter.txt in my calendar"
    unread = select_tools(CATALOG, message, replace(config, typed_readers=False), cosine=cosine)
    assert "files_read_file" not in unread.names
    selection = select_tools(CATALOG, message, config, cosine=cosine)
    assert picked(selection.names)[:2] == ["calendar_create_event", "files_read_file"]
    # Not offered where it may not be, nor for a message that names no file.
    hidden = select_tools(CATALOG, message, config, cosine=cosine, allowed=lambda n: n != "files_read_file")
    assert "files_read_file" not in hidden.names
    assert "files_read_file" not in select_tools(CATALOG, "put the visit in my calendar", config, cosine=cosine).names


def test_a_family_that_fits_as_a_whole_outranks_a_lone_close_tool() -> None:
    # No calendar tool is the best match on its own, but the calendar tools fit together, while the lone close
    # tool's siblings do not.
    config = replace(CONFIG, min_tools=1, top_k=1, clause_top=0, context_top=0, lookup_companions=False)
    cosine = _cosines(
        mail_send_email=0.5, calendar_update_event=0.45, calendar_list_events=0.4, calendar_create_event=0.35
    )
    alone = select_tools(CATALOG, "x", replace(config, family_weight=0.0), cosine=cosine)
    assert picked(alone.names) == ["mail_send_email"]
    together = select_tools(CATALOG, "x", replace(config, family_weight=0.3), cosine=cosine)
    assert picked(together.names) == ["calendar_update_event"]


def test_one_mcp_cannot_fill_every_ranked_slot() -> None:
    config = replace(CONFIG, min_tools=3, top_k=3, clause_top=0, context_top=0, lookup_companions=False)
    cosine = _cosines(
        calendar_list_events=0.9, calendar_create_event=0.8, calendar_update_event=0.7, mail_send_email=0.3
    )
    selection = select_tools(CATALOG, "x", replace(config, per_server=2, family_weight=0.0), cosine=cosine)
    assert picked(selection.names) == ["calendar_list_events", "calendar_create_event", "mail_send_email"]


def test_an_essential_and_the_hub_tool_it_stands_for_take_one_slot_offered_as_the_essential() -> None:
    tools = [
        *TOOLS,
        _tool("telegram_send_message", "Send a Telegram text message to a chat.", ("chat_id", "message")),
        replace(_tool("store_fact", "Remember a fact.", ("fact",), mcp=None), stands_for="memory_store_fact"),
    ]
    tools = [replace(t, stands_for="telegram_send_message") if t.name == "send_telegram" else t for t in tools]
    catalog = build_catalog(tools, MCPS, CONFIG.core_tools)
    config = replace(CONFIG, min_tools=2, top_k=2, clause_top=0, context_top=0, lookup_companions=False)
    cosine = np.zeros(catalog.size)
    cosine[catalog.index["telegram_send_message"]] = 0.9
    cosine[catalog.index["send_telegram"]] = 0.8
    cosine[catalog.index["mail_send_email"]] = 0.5
    selection = select_tools(catalog, "ping Maria", config, cosine=cosine)
    # One slot for the pair, with the better of the two scores; the freed slot goes to the next tool.
    assert picked(selection.names) == ["send_telegram", "mail_send_email"]
    assert selection.scores["send_telegram"] > selection.scores["mail_send_email"]
    # A stand-in that may not be offered leaves the tool it stands for in the ranking.
    hidden = select_tools(catalog, "ping Maria", config, cosine=cosine, allowed=lambda n: n != "send_telegram")
    assert picked(hidden.names)[0] == "telegram_send_message"
    # The tool a stand-in names but the catalog lacks (memory_store_fact) pairs with nothing.
    assert catalog.twins == ((catalog.index["send_telegram"], catalog.index["telegram_send_message"]),)
    # Pinned by a playbook or a recent call, the tool is pinned as its stand-in: the same action is sent once.
    pinned = select_tools(
        catalog,
        "ping Maria",
        config,
        cosine=cosine,
        playbook_tools=["telegram_send_message"],
        recent_tools_used=[["telegram_send_message"]],
    )
    assert "telegram_send_message" not in pinned.names
    assert pinned.names.count("send_telegram") == 1
    hidden_pin = select_tools(
        catalog, "hi", config, playbook_tools=["telegram_send_message"], allowed=lambda n: n != "send_telegram"
    )
    assert "telegram_send_message" in hidden_pin.names
