"""spawn_subagent with the real hub, real Thinkers and the fake LLM: a temporary Thinker runs the task with only
the tools it was given (never spawn_subagent), answers, and is removed with its files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI, RecordedRequest, Reply
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("subagents")
    env = {
        **fake_llm_agent_env(
            workdir,
            llm.api_base,
            allowedTools=["echo_*", "get_status", "spawn_subagent"],
            deniedTools=["echo_sleep"],
        ),
        "GUARDIAN_FAIL_MODE": "open",
    }
    with start_hub(workdir, workdir / "home", ["echo_mcp"], env=env) as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_llm(llm: FakeOpenAI) -> None:
    llm.reset()


def is_subagent(request: RecordedRequest) -> bool:
    return "subagent of the agent 'annabelle'" in str(request.messages[0].get("content"))


def has_tool_result(request: RecordedRequest) -> bool:
    return any(message["role"] == "tool" for message in request.messages)


def test_the_master_token_spawns_a_subagent_of_the_default_agent_that_is_removed_afterwards(
    stack: RunningHub, llm: FakeOpenAI
) -> None:
    def answer(body: dict[str, Any]) -> Reply | str:
        request = RecordedRequest("", body, {})
        if not has_tool_result(request):
            return Reply.tool("echo_echo", {"text": "from the subagent"})
        return "The echo said: from the subagent."

    llm.set_handler(answer)
    arguments = {"task": "Echo 'from the subagent'.", "allowedTools": ["echo_echo", "echo_sleep"]}
    envelope = stack.call("spawn_subagent", arguments)
    assert envelope["success"] is True, envelope
    data = envelope["data"]
    assert data["response"] == "The echo said: from the subagent." and data["toolsUsed"] == ["echo_echo"]
    sub_id = data["agentId"]
    assert sub_id.startswith("annabelle-sub-")
    assert all(is_subagent(request) for request in llm.requests)
    # Offered exactly the tools asked for that the parent may use: echo_sleep is denied to the parent.
    assert llm.requests[0].tool_names == ["echo_echo"]
    assert not (stack.home / "sessions" / sub_id).exists()
    assert not (stack.home / "agents" / "subagents" / f"{sub_id}.json").exists()
    with stack.client() as client:
        assert [agent["agentId"] for agent in client.get("/agents").json()["agents"]] == ["annabelle"]


def test_an_agent_delegates_to_a_subagent_that_cannot_spawn_its_own(stack: RunningHub, llm: FakeOpenAI) -> None:
    def answer(body: dict[str, Any]) -> Reply | str:
        request = RecordedRequest("", body, {})
        if is_subagent(request):
            return "Sub found: 42."
        if not has_tool_result(request):
            return Reply.tool("spawn_subagent", {"task": "Find the answer.", "allowedTools": ["*"]})
        result = json.loads(next(m for m in request.messages if m["role"] == "tool")["content"])
        return f"My helper says: {result['data']['response']}"

    llm.set_handler(answer)
    with stack.client() as client:
        reply = client.post("/message", json={"message": "delegate this please", "chatId": "sub"}, timeout=180).json()
    assert reply["success"] is True and reply["reply"] == "My helper says: Sub found: 42."
    assert reply["toolsUsed"] == ["spawn_subagent"]
    sub_requests = [request for request in llm.requests if is_subagent(request)]
    assert sub_requests and all("spawn_subagent" not in request.tool_names for request in sub_requests)


def test_spawn_subagent_checks_its_arguments(stack: RunningHub) -> None:
    assert stack.call("spawn_subagent", {"task": "x", "timeoutMinutes": 31})["errorCode"] == "INVALID_ARGUMENTS"
    bad_model = stack.call("spawn_subagent", {"task": "x", "model": "llama3"})
    assert bad_model["errorCode"] == "INVALID_ARGUMENTS" and "provider prefix" in bad_model["error"]
