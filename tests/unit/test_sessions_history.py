"""History for the model: relevance selection, the three repair rules, tool-result truncation, the pipeline."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from shared.embeddings.base import EmbeddingError
from tests.fakes.embedder import FakeEmbedder
from thinker.sessions.history import (
    SYNTHETIC_TOOL_RESULT,
    build_history,
    cosine_scores,
    older_pairs,
    relevance_scores,
    repair_history,
    select_relevant_history,
    truncate_tool_results,
)
from thinker.sessions.messages import (
    AssistantMessage,
    ChatMessage,
    ToolMessage,
    UserMessage,
    assistant_message,
    system_message,
    tool_call,
    tool_message,
    user_message,
)

# Short builders: the tests read like the histories they describe.
U = user_message
A = assistant_message


def call(*ids: str, text: str | None = None) -> AssistantMessage:
    return assistant_message(text, [tool_call(i, f"tool_{i}", {"n": i}) for i in ids])


def result(call_id: str, content: str = "ok", name: str | None = None) -> ToolMessage:
    return tool_message(call_id, content, name)


def missing(call_id: str) -> ToolMessage:
    return tool_message(call_id, SYNTHETIC_TOOL_RESULT, f"tool_{call_id}")


def exchanges(n: int, prefix: str = "topic") -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for i in range(n):
        out += [U(f"{prefix} question {i}"), A(f"{prefix} answer {i}")]
    return out


# --- repair: each rule -------------------------------------------------------------------------------------------
REPAIR_CASES: list[tuple[str, list[ChatMessage], list[ChatMessage] | None]] = [
    ("an intact history is left as it is", [U("hi"), call("1"), result("1"), A("done")], None),
    ("rule 1: a leading tool result is dropped", [result("x"), U("hi"), A("hello")], [U("hi"), A("hello")]),
    ("rule 1: several leading tool results are dropped", [result("x"), result("y"), A("so")], [A("so")]),
    (
        "rule 1: a history that is only tool results becomes empty",
        [result("x"), result("y")],
        [],
    ),
    (
        "rule 2: a call at the very end gets a synthetic result",
        [U("hi"), call("1")],
        [U("hi"), call("1"), missing("1")],
    ),
    (
        "rule 2: a call followed by a user message gets a synthetic result before it",
        [U("hi"), call("1"), U("again"), A("ok")],
        [U("hi"), call("1"), missing("1"), U("again"), A("ok")],
    ),
    (
        "rule 2: a call followed by plain text gets a synthetic result before it",
        [U("hi"), call("1"), A("I could not wait for it")],
        [U("hi"), call("1"), missing("1"), A("I could not wait for it")],
    ),
    (
        "rule 2: of two parallel calls only the unanswered one is synthesised",
        [U("hi"), call("1", "2"), result("2"), A("half")],
        [U("hi"), call("1", "2"), missing("1"), result("2"), A("half")],
    ),
    (
        "rule 2: three parallel calls with no results get three synthetic ones in call order",
        [call("a", "b", "c")],
        [call("a", "b", "c"), missing("a"), missing("b"), missing("c")],
    ),
    (
        "rule 3: a result for an id the preceding call does not have is dropped",
        [U("hi"), call("1"), result("1"), result("zzz"), A("done")],
        [U("hi"), call("1"), result("1"), A("done")],
    ),
    (
        "rule 3: a result after a plain assistant message is dropped",
        [U("hi"), A("hello"), result("1"), U("next")],
        [U("hi"), A("hello"), U("next")],
    ),
    (
        "rule 3: a result after a user message is dropped",
        [U("hi"), result("1"), A("hello")],
        [U("hi"), A("hello")],
    ),
    (
        "rule 3: a second result for the same call is dropped",
        [call("1"), result("1", "first"), result("1", "second")],
        [call("1"), result("1", "first")],
    ),
    (
        "rules 2 and 3: a result answering an earlier call across a user message is dropped, the call synthesised",
        [call("1"), U("interrupt"), result("1"), A("late")],
        [call("1"), missing("1"), U("interrupt"), A("late")],
    ),
    (
        "rule 3: a result for the previous round's call is dropped, the new call synthesised",
        [call("1"), result("1"), call("2"), result("1")],
        [call("1"), result("1"), call("2"), missing("2")],
    ),
    (
        "results out of order come back in the order of the calls",
        [call("1", "2", "3"), result("3"), result("1"), result("2")],
        [call("1", "2", "3"), result("1"), result("2"), result("3")],
    ),
    (
        "all three rules at once",
        [result("0"), U("hi"), call("1", "2"), result("2"), result("9"), U("more"), call("3")],
        [U("hi"), call("1", "2"), missing("1"), result("2"), U("more"), call("3"), missing("3")],
    ),
    (
        "a repeated call id in one message is answered once",
        [A(None, [tool_call("1", "t", {}), tool_call("1", "t", {})]), result("1")],
        [A(None, [tool_call("1", "t", {}), tool_call("1", "t", {})]), result("1")],
    ),
    (
        "an empty tool_calls list is removed and the text kept",
        [U("hi"), {"role": "assistant", "content": "hello", "tool_calls": []}],
        [U("hi"), A("hello")],
    ),
    (
        "an assistant message with an empty tool_calls list and no text is dropped",
        [U("hi"), {"role": "assistant", "content": None, "tool_calls": []}, A("hello")],
        [U("hi"), A("hello")],
    ),
    (
        "system messages pass through",
        [system_message("be brief"), result("x"), U("hi")],
        [system_message("be brief"), U("hi")],
    ),
    ("an empty history stays empty", [], []),
]


@pytest.mark.parametrize(
    ("messages", "expected"),
    [pytest.param(messages, expected, id=name) for name, messages, expected in REPAIR_CASES],
)
def test_repair_history_applies_the_rules(messages: list[ChatMessage], expected: list[ChatMessage] | None) -> None:
    snapshot = json.dumps(messages)
    assert repair_history(messages) == (messages if expected is None else expected)
    assert json.dumps(messages) == snapshot  # the input is never modified


def test_a_synthetic_result_says_the_result_was_lost_and_names_the_tool() -> None:
    repaired = repair_history([call("1")])
    assert repaired[-1] == {
        "role": "tool",
        "tool_call_id": "1",
        "content": '{"error": "Tool result unavailable (recovered from broken history)"}',
        "name": "tool_1",
    }


def assert_valid_chain(messages: Sequence[ChatMessage]) -> None:
    """What providers check: each tool result answers a call of the assistant message before its run."""
    expected: list[str] = []
    for message in messages:
        if message["role"] == "tool":
            assert message["tool_call_id"] in expected, messages
            expected.remove(message["tool_call_id"])
        else:
            assert not expected, f"unanswered calls {expected} before {message}"
            if message["role"] == "assistant":
                assert message.get("tool_calls", None) != []
                expected = list(dict.fromkeys(c["id"] for c in message.get("tool_calls") or []))
    assert not expected


@pytest.mark.parametrize("seed", range(40))
def test_any_shuffled_or_cut_history_comes_out_as_a_valid_chain(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pieces: list[ChatMessage] = [U("hi"), A("hello"), call("1"), result("1"), call("2", "3"), result("2")]
    pieces += [result("3"), result("4"), A("done"), call("5"), U("more"), result("5"), result("5")]
    order = rng.permutation(len(pieces))[: rng.integers(0, len(pieces) + 1)]
    history = [pieces[i] for i in order]
    repaired = repair_history(history)
    assert_valid_chain(repaired)
    assert repair_history(repaired) == repaired  # repairing twice changes nothing


# --- truncation ---------------------------------------------------------------------------------------------------
BIG = "x" * 500


def test_tool_results_older_than_the_last_two_are_truncated_with_their_size() -> None:
    history: list[ChatMessage] = [
        U("q"),
        call("1"),
        result("1", BIG, "web_fetch"),
        call("2"),
        result("2", "y" * 300),
        call("3"),
        result("3", BIG),
        call("4"),
        result("4", BIG),
        A("done"),
    ]
    out = truncate_tool_results(history)
    assert out[2] == tool_message("1", "[web_fetch: truncated, was 500 chars]", "web_fetch")
    assert out[4] == tool_message("2", "[tool_2: truncated, was 300 chars]")  # name taken from the call
    assert out[6] == history[6] and out[8] == history[8]
    assert [m["role"] for m in out] == [m["role"] for m in history]
    assert history[2]["content"] == BIG  # not modified


@pytest.mark.parametrize(("keep", "kept"), [(0, []), (1, ["4"]), (2, ["3", "4"]), (4, ["1", "2", "3", "4"])])
def test_how_many_results_stay_whole_is_a_parameter(keep: int, kept: list[str]) -> None:
    history: list[ChatMessage] = [m for i in "1234" for m in (call(i), result(i, BIG))]
    out = truncate_tool_results(history, keep_last=keep)
    whole = [m["tool_call_id"] for m in out if m["role"] == "tool" and m["content"] == BIG]
    assert whole == kept


def test_a_short_old_result_is_kept_because_its_summary_would_be_longer() -> None:
    history: list[ChatMessage] = [call("1"), result("1", "ok"), call("2"), result("2"), call("3"), result("3")]
    assert truncate_tool_results(history) == history


def test_parallel_results_in_one_round_count_one_by_one() -> None:
    history: list[ChatMessage] = [call("1", "2", "3"), result("1", BIG), result("2", BIG), result("3", BIG)]
    out = truncate_tool_results(history)
    assert out[1]["content"] == "[tool_1: truncated, was 500 chars]"
    assert out[2]["content"] == BIG and out[3]["content"] == BIG


def test_a_result_whose_call_is_unknown_is_named_tool() -> None:
    history: list[ChatMessage] = [result("?", BIG), call("1"), result("1", BIG), call("2"), result("2", BIG)]
    assert truncate_tool_results(history)[0]["content"] == "[tool: truncated, was 500 chars]"


def test_a_shortened_result_keeps_the_record_ids_it_held_and_a_failure_keeps_none() -> None:
    listing = {"success": True, "data": {"emails": [{"id": "msg18", "subject": "x" * 400}], "skill_id": 7}}
    failure = {"success": False, "error": "Not run: skill_id 43147 is not in this conversation." + " " * 400}
    history: list[ChatMessage] = [
        call("1"),
        result("1", json.dumps(listing)),
        call("2"),
        result("2", json.dumps(failure)),
        call("3"),
        result("3", BIG),
        call("4"),
        result("4", BIG),
    ]
    out = truncate_tool_results(history)
    assert out[1]["content"].startswith("[tool_1: truncated, was ")
    assert out[1]["content"].endswith('chars; its ids: {"ids": [{"email_id": "msg18"}, {"skill_id": "7"}]}]')
    assert out[3]["content"] == f"[tool_2: truncated, was {len(json.dumps(failure))} chars]"


# --- relevance selection ------------------------------------------------------------------------------------------
def test_older_pairs_are_user_messages_with_their_final_text_answer() -> None:
    history: list[ChatMessage] = [
        A("a stray answer before any question"),
        U("mail?"),
        call("1"),
        result("1"),
        A("two mails"),
        U("weather?"),
        call("2"),
        result("2"),
        U("no answer came"),
        U("thanks"),
        A("welcome"),
        *exchanges(3, "recent"),
    ]
    pairs = older_pairs(history, recent=6)
    assert [(p.index, p.user["content"], p.assistant["content"]) for p in pairs] == [
        (1, "mail?", "two mails"),
        (9, "thanks", "welcome"),
    ]
    assert pairs[0].text == "mail?\ntwo mails"


def test_without_scores_the_last_twenty_messages_are_kept() -> None:
    history = exchanges(15)
    assert select_relevant_history(history, None) == history[-20:]


def test_the_last_six_messages_are_always_kept_and_relevant_older_pairs_join_them_in_order() -> None:
    history = exchanges(12)
    pairs = older_pairs(history)
    scores = [0.0] * len(pairs)
    scores[1], scores[4] = 0.9, 0.5
    selected = select_relevant_history(history, scores)
    older = [U("topic question 1"), A("topic answer 1"), U("topic question 4"), A("topic answer 4")]
    assert selected == [*older, *history[-6:]]


@pytest.mark.parametrize(("score", "kept"), [(0.45, True), (0.4499, False), (1.0, True), (-0.3, False)])
def test_the_relevance_threshold_is_inclusive(score: float, kept: bool) -> None:
    history = exchanges(5)
    scores = [score] + [0.0] * (len(older_pairs(history)) - 1)
    assert (U("topic question 0") in select_relevant_history(history, scores)) is kept


def test_at_most_twenty_messages_go_out_and_the_best_pairs_win() -> None:
    history = exchanges(12)  # 24 messages: 9 older pairs, 6 recent messages
    scores = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.46, 0.47]
    selected = select_relevant_history(history, scores)
    assert len(selected) == 20
    chosen = [m["content"] for m in selected[:-6] if m["role"] == "user"]
    assert chosen == [f"topic question {i}" for i in range(7)]  # 0.46 and 0.47 lose to the seven better


def test_equal_scores_prefer_the_more_recent_pair() -> None:
    history = exchanges(12)
    selected = select_relevant_history(history, [0.8] * 9, max_messages=10)
    assert [m["content"] for m in selected[:4]] == [
        "topic question 7",
        "topic answer 7",
        "topic question 8",
        "topic answer 8",
    ]


def test_the_kept_tail_never_starts_inside_a_turn() -> None:
    # The real 1.5B model's follow-up: its first turn had five tool results, so the last six messages began
    # after "Create shopping.txt with apples"; the follow-up "add bananas to it too" lost what "it" was.
    first_turn: list[ChatMessage] = [
        U("Create shopping.txt with apples"),
        call("1", "2", "3", "4", "5"),
        *[result(i) for i in "12345"],
        A("The file shopping.txt has been created."),
    ]
    history = [*exchanges(3, "old"), *first_turn]
    for scores in (None, [0.0] * len(older_pairs(history))):
        selected = select_relevant_history(history, scores, max_messages=8)
        assert selected[: len(first_turn)] == first_turn or selected[-len(first_turn) :] == first_turn
        assert repair_history(selected)[-len(first_turn)] == U("Create shopping.txt with apples")
    assert [p.user["content"] for p in older_pairs(history)] == [f"old question {i}" for i in range(3)]


def test_a_short_history_is_kept_whole() -> None:
    history = exchanges(2)
    assert select_relevant_history(history, []) == history
    assert select_relevant_history(history, None) == history


def test_scores_that_do_not_match_the_pairs_are_a_programming_error() -> None:
    with pytest.raises(ValueError, match="2 scores for 3 older pairs"):
        select_relevant_history(exchanges(6), [0.5, 0.5])


def test_cosine_scores_are_dot_products_of_unit_rows() -> None:
    rows = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    assert cosine_scores(np.array([1.0, 0.0], dtype=np.float32), rows) == pytest.approx([1.0, 0.0, 0.6])
    assert cosine_scores(np.array([1.0, 0.0], dtype=np.float32), np.zeros((0, 2), dtype=np.float32)) == []


# --- the pipeline -------------------------------------------------------------------------------------------------
async def test_with_an_embedder_old_exchanges_on_the_current_topic_come_back() -> None:
    history: list[ChatMessage] = [
        U("I want to plan a trip to Lisbon in May"),
        A("Lisbon in May is lovely; flights from Vilnius take about five hours."),
        *exchanges(10, "unrelated chatter"),
    ]
    embedder = FakeEmbedder()
    out = await build_history(history, "which hotels in Lisbon for the May trip?", embedder)
    assert out[:2] == history[:2]
    assert out[2:] == history[-6:]
    assert len(embedder.calls) == 1 and embedder.calls[0][0] == "which hotels in Lisbon for the May trip?"


async def test_without_an_embedder_the_last_twenty_are_used() -> None:
    history = exchanges(20)
    assert await build_history(history, "anything", None) == history[-20:]


async def test_a_failing_embedder_falls_back_to_the_last_twenty() -> None:
    embedder = FakeEmbedder()
    embedder.fail_with = EmbeddingError("the embedding server is down")
    history = exchanges(20)
    assert await build_history(history, "anything", embedder) == history[-20:]


async def test_only_the_last_thirty_messages_are_candidates() -> None:
    history: list[ChatMessage] = [U("Lisbon trip in May"), A("Lisbon in May: yes."), *exchanges(15)]
    embedder = FakeEmbedder()
    out = await build_history(history, "Lisbon trip in May", embedder)
    assert U("Lisbon trip in May") not in out


async def test_the_pipeline_repairs_and_truncates_what_it_selects() -> None:
    history: list[ChatMessage] = [
        *exchanges(4),
        U("read three pages"),
        call("1"),
        result("1", BIG, "web_fetch"),
        call("2"),
        result("2", BIG, "web_fetch"),
        call("3"),
    ]
    out = await build_history(history, "what did the pages say?", None)
    assert out[-1] == missing("3")
    fetched = [m["content"] for m in out if m["role"] == "tool"]
    assert fetched == ["[web_fetch: truncated, was 500 chars]", BIG, SYNTHETIC_TOOL_RESULT]
    assert_valid_chain(out)


async def test_a_recent_window_that_starts_inside_a_tool_chain_loses_the_orphaned_results() -> None:
    history: list[ChatMessage] = [U("q"), call("1", "2", "3"), result("1"), result("2"), result("3"), A("done")]
    history = [*exchanges(3), *history]
    out = await build_history(history, "next", FakeEmbedder())
    assert out[-6:][0] != result("1")
    assert_valid_chain(out)


async def test_relevance_scores_need_no_embedding_call_when_there_is_nothing_to_score() -> None:
    embedder = FakeEmbedder()
    assert await relevance_scores([], "hi", embedder) == []
    assert embedder.calls == []
    assert await relevance_scores([], "hi", None) is None


def test_history_message_builders_make_the_canonical_shapes() -> None:
    user: UserMessage = U("hi")
    assert user == {"role": "user", "content": "hi"}
    assert call("1") == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "1", "type": "function", "function": {"name": "tool_1", "arguments": '{"n": "1"}'}}],
    }
