"""Subagents: the pure decisions (tools, definition, exact tools) and their lifecycle in the agent manager with a
stand-in Thinker: at most five per parent, no nesting, stopped with their parent, every file removed after."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from orchestrator.agents import AgentError, AgentManager
from orchestrator.agents.subagents import (
    MAX_SUBAGENTS_PER_PARENT,
    SubagentRequest,
    required_tools,
    subagent_definition,
    subagent_id,
    subagent_tools,
)
from shared.agents import AgentDefinition
from shared.envelope import ErrorCode
from tests.unit.test_agent_lifecycle import FakeClock, RecordingNotifier, chat, config, make_manager, running, wait_gone

LISTED = ["echo_echo", "echo_sleep", "filer_read_file", "get_status", "spawn_subagent", "memory_store_fact"]


def parent(**fields: Any) -> AgentDefinition:
    return AgentDefinition.model_validate(
        {"agentId": "main", "model": "openai/big", "apiBase": "http://x:1/v1", **fields}
    )


@pytest.mark.parametrize(
    ("parent_fields", "allowed", "denied", "expected"),
    [
        ({}, (), (), ["echo_echo", "echo_sleep", "filer_read_file", "get_status", "memory_store_fact"]),
        ({"allowedTools": ["echo_*", "get_status"]}, ("echo_*", "filer_*"), (), ["echo_echo", "echo_sleep"]),
        ({"deniedTools": ["echo_sleep"]}, ("echo_*",), (), ["echo_echo"]),
        ({}, ("*",), ("memory_*", "filer_*"), ["echo_echo", "echo_sleep", "get_status"]),
        ({}, ("spawn_subagent",), (), []),
    ],
)
def test_a_subagent_gets_the_tools_both_its_parent_and_the_call_allow_and_never_spawn_subagent(
    parent_fields: dict[str, Any], allowed: tuple[str, ...], denied: tuple[str, ...], expected: list[str]
) -> None:
    request = SubagentRequest("t", allowed_tools=allowed, denied_tools=denied)
    assert subagent_tools(parent(**parent_fields), request, LISTED) == expected


def test_the_definition_inherits_the_parents_model_settings_and_denies_nesting() -> None:
    boss = parent(temperature=0.2, maxSteps=4, costControls={"notifyChatId": "7"})
    sub = subagent_definition(boss, "main-sub-1", 4321, SubagentRequest("t"), ["echo_echo"])
    assert (sub.model, sub.apiBase, sub.temperature, sub.maxSteps, sub.port) == (
        "openai/big",
        boss.apiBase,
        0.2,
        4,
        4321,
    )
    assert sub.allowedTools == ["echo_echo"] and sub.deniedTools == ["spawn_subagent"]
    assert sub.costControls.notifyChatId == "7" and "subagent of the agent 'main'" in sub.systemPrompt
    # No tools at all is a deny-all glob: an empty allow-list would mean every tool.
    assert subagent_definition(boss, "main-sub-2", 1, SubagentRequest("t"), []).deniedTools == ["*"]


def test_a_subagent_spends_from_its_parents_budgets_on_the_parents_ledger() -> None:
    boss = parent(budgets={"dailyTokens": 50_000})
    sub = subagent_definition(boss, "main-sub-1", 1, SubagentRequest("t"), [])
    assert (sub.budgets.dailyTokens, sub.budgets.account) == (50_000, "main")
    shared = parent(budgets={"account": "household"})
    assert subagent_definition(shared, "main-sub-2", 1, SubagentRequest("t"), []).budgets.account == "household"


def test_another_model_keeps_the_api_base_only_for_the_same_provider() -> None:
    same = subagent_definition(parent(), "s", 1, SubagentRequest("t", model="openai/small"), [])
    other = subagent_definition(parent(), "s", 1, SubagentRequest("t", model="groq/llama-3.3-70b-versatile"), [])
    assert (same.model, same.apiBase) == ("openai/small", "http://x:1/v1") and other.apiBase is None


def test_exact_tool_names_become_required_tools_and_globs_leave_the_choice_to_the_thinker() -> None:
    tools = ["echo_echo", "get_status"]
    assert required_tools(SubagentRequest("t", allowed_tools=("get_status", "filer_x")), tools) == ["get_status"]
    assert required_tools(SubagentRequest("t", allowed_tools=("echo_*",)), tools) is None
    assert required_tools(SubagentRequest("t"), tools) is None


def test_subagent_ids_fit_the_agent_id_limit() -> None:
    long_parent = "p" * 64
    assert len(subagent_id(long_parent, 12)) <= 64 and subagent_id("main", 3) == "main-sub-3"
    AgentDefinition(agentId=subagent_id(long_parent, 12))


def manager(tmp_path: Path) -> tuple[AgentManager, FakeClock]:
    clock = FakeClock()
    return make_manager(tmp_path, clock, RecordingNotifier(), config(idleTimeoutMinutes=10)), clock


async def test_a_subagent_runs_its_task_and_leaves_nothing_behind(tmp_path: Path) -> None:
    agents, _ = manager(tmp_path)
    async with running(agents):
        request = SubagentRequest("look it up", allowed_tools=("echo_echo",))
        subagent, reply = await agents.run_subagent("a", request, ["echo_echo"])
        answer = {"agentId": subagent, **reply.wire()}
        assert answer["success"] is True and answer["response"] == "did look it up"
        assert answer["agentId"] == answer["agent"] == "a-sub-1" and answer["requiredTools"] == ["echo_echo"]
        assert await wait_gone(answer["pid"])
        assert not (tmp_path / "sessions" / "a-sub-1").exists()
        assert list((tmp_path / "agents" / "subagents").iterdir()) == []
        assert [agent["agentId"] for agent in agents.describe()] == ["a"]
        subagent, second = await agents.run_subagent("a", SubagentRequest("again"), [])
        assert subagent == "a-sub-2" and second.wire().get("requiredTools") is None


async def test_a_subagent_is_known_by_its_own_token_while_it_runs(tmp_path: Path) -> None:
    agents, _ = manager(tmp_path)
    async with running(agents), anyio.create_task_group() as group:
        group.start_soon(delegate, agents, "slow", None, ("echo_echo",))
        sub = await wait_for_subagents(agents, 1)
        written = json.loads(sub[0].config_path.read_text())
        assert written["agents"][0]["agentId"] == "a-sub-1" and written["agents"][0]["deniedTools"] == [
            "spawn_subagent"
        ]
        definition = agents.agent_for_token(sub[0].token)
        assert definition is not None and definition.allowedTools == ["echo_echo"]
        assert {agent["agentId"]: agent["parent"] for agent in agents.describe()}["a-sub-1"] == "a"
        await agents.stop()


async def delegate(
    agents: AgentManager, task: str, outcome: list[str] | None = None, tools: tuple[str, ...] = ()
) -> None:
    """Run a subagent in the background; its error (the hub stopping it, say) is kept, not raised."""
    try:
        await agents.run_subagent("a", SubagentRequest(task), list(tools))
    except AgentError as exc:
        if outcome is not None:
            outcome.append(str(exc))


async def wait_for_subagents(agents: AgentManager, count: int) -> list[Any]:
    for _ in range(200):
        running_subs = [sub for sub in agents.subagents_of("a") if sub.state == "running"]
        if len(running_subs) >= count:
            return running_subs
        await anyio.sleep(0.05)
    raise AssertionError(f"fewer than {count} subagents running")


async def test_a_parent_runs_at_most_five_subagents_at_once(tmp_path: Path) -> None:
    agents, _ = manager(tmp_path)
    async with running(agents), anyio.create_task_group() as group:
        for _ in range(MAX_SUBAGENTS_PER_PARENT):
            group.start_soon(delegate, agents, "slow")
        await wait_for_subagents(agents, MAX_SUBAGENTS_PER_PARENT)
        with pytest.raises(AgentError, match="already runs 5 subagents") as refused:
            await agents.run_subagent("a", SubagentRequest("one more"), [])
        assert refused.value.code is ErrorCode.NOT_ALLOWED
        await agents.stop()


async def test_a_subagent_cannot_start_subagents(tmp_path: Path) -> None:
    agents, _ = manager(tmp_path)
    async with running(agents), anyio.create_task_group() as group:
        group.start_soon(delegate, agents, "slow")
        (sub,) = await wait_for_subagents(agents, 1)
        with pytest.raises(AgentError, match="cannot start subagents") as refused:
            await agents.run_subagent(sub.definition.agentId, SubagentRequest("nested"), [])
        assert refused.value.code is ErrorCode.NOT_ALLOWED
        await agents.stop()


async def test_subagents_are_stopped_with_their_parent_and_their_files_removed(tmp_path: Path) -> None:
    agents, clock = manager(tmp_path)
    outcome: list[str] = []

    async with running(agents):
        await chat(agents, "hi")  # the parent runs
        async with anyio.create_task_group() as group:
            group.start_soon(delegate, agents, "slow", outcome)
            (sub,) = await wait_for_subagents(agents, 1)
            pid = sub.pid
            assert pid is not None and (tmp_path / "agents" / "subagents" / "a-sub-1.json").exists()
            for _ in range(100):  # the stub writes its session as the task starts
                if (tmp_path / "sessions" / "a-sub-1").exists():
                    break
                await anyio.sleep(0.05)
            clock.now += 601
            assert await agents.reap_idle() == ["a"]
        assert await wait_gone(pid)
        assert outcome and "a-sub-1 was stopped because its parent agent was stopped (idle" in outcome[0]
        assert not (tmp_path / "sessions" / "a-sub-1").exists()
        assert not (tmp_path / "agents" / "subagents" / "a-sub-1.json").exists()
        assert agents.subagents == {}


async def test_a_failed_task_comes_back_as_the_thinkers_answer(tmp_path: Path) -> None:
    agents, _ = manager(tmp_path)
    async with running(agents):
        _, answer = await agents.run_subagent("a", SubagentRequest("fail"), [])
        assert answer.success is False and answer.error == "the model failed"
