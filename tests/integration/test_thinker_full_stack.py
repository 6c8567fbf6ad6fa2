"""The whole chain with real processes: hub `/message` → the hub starts `python -m thinker` with a token it
minted → the Thinker calls the fake LLM and the hub's tools with that token, limited to the agent's tools."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("thinker-stack")
    env = {
        **fake_llm_agent_env(
            workdir,
            llm.api_base,
            bindings=[{"channel": "*", "agentId": "annabelle"}],
            allowedTools=["echo_*", "memory_*"],
            deniedTools=["echo_sleep"],
        ),
        "GUARDIAN_FAIL_MODE": "open",
    }
    with start_hub(workdir, workdir / "home", ["echo_mcp", "memorizer_mcp"], env=env) as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_llm(llm: FakeOpenAI) -> None:
    llm.reset()


def chat(stack: RunningHub, text: str, chat_id: str) -> dict[str, object]:
    with stack.client() as client:
        response = client.post("/message", json={"message": text, "chatId": chat_id}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_message_through_the_hub_is_answered_by_the_thinker_it_started(stack: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply(Reply.tool("echo_echo", {"text": "over the hub"}), "It echoed: over the hub.")
    answer = chat(stack, "echo 'over the hub'", "stack")
    assert answer["success"] is True and answer["reply"] == "It echoed: over the hub."
    assert answer["toolsUsed"] == ["echo_echo"]
    offered = set(llm.requests[0].tool_names)
    assert "echo_echo" in offered and "echo_sleep" not in offered and "get_tool_catalog" not in offered
    tool_result = json.loads(next(m for m in llm.requests[1].messages if m["role"] == "tool")["content"])
    assert tool_result["data"]["text"] == "over the hub"
    assert (stack.home / "sessions" / "annabelle" / "stack.jsonl").exists()


def test_a_tool_the_agent_may_not_use_never_runs(stack: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply(Reply.tool("echo_sleep", {"seconds": 0}), Reply.tool("get_tool_catalog", {}), "I cannot do that.")
    answer = chat(stack, "sleep for a moment", "denied")
    assert answer["toolsUsed"] == []
    results = [json.loads(m["content"]) for m in llm.requests[2].messages if m["role"] == "tool"]
    assert [r["errorCode"] for r in results] == ["UNKNOWN_TOOL", "UNKNOWN_TOOL"]


def test_a_skill_through_the_hub_runs_in_its_sandbox(stack: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply(Reply.tool("echo_echo", {"text": "tick"}), "Ticked.")
    body = {"instructions": "Echo tick.", "requiredTools": ["echo_echo"], "maxSteps": 3}
    with stack.client() as client:
        answer = client.post("/agents/annabelle/execute-skill", json=body, timeout=120).json()
    assert answer["success"] is True and answer["toolsUsed"] == ["echo_echo"] and answer["summary"] == "Ticked."
    assert llm.requests[0].tool_names == ["echo_echo"]


def test_the_thinker_refuses_callers_without_its_token(stack: RunningHub) -> None:
    with stack.client() as client:
        url = client.get("/agents").json()["agents"][0]["url"]
    assert httpx.post(f"{url}/process-message", json={}, timeout=5).status_code == 401
    assert httpx.get(f"{url}/health", timeout=5).json()["status"] == "ok"
    # the master token is accepted too
    assert httpx.get(f"{url}/cost-status", headers={"X-Annabelle-Token": stack.token}, timeout=5).status_code == 200


def test_a_cost_pause_reaches_the_hub_and_resuming_through_the_hub_lifts_it(stack: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply(Reply(content="That was expensive.", usage={"prompt_tokens": 5_000_000, "completion_tokens": 1}))
    first = chat(stack, "think hard", "costly")
    # The reply that tripped the cap was paid for: it is delivered, with the pause notice beside it.
    assert first["success"] is True and first["reply"] == "That was expensive."
    assert first["paused"] is True and "resume" in first["notice"]
    calls = len(llm.requests)
    second = chat(stack, "and again", "costly")
    assert second["paused"] is True and "resume" in str(second["error"])
    assert len(llm.requests) == calls  # a paused agent never calls the model
    with stack.client() as client:
        resumed = client.post("/agents/annabelle/resume", json={"resetWindow": True}, timeout=30).json()
    assert resumed["success"] is True
    llm.reply("Back.")
    assert chat(stack, "hello", "costly")["reply"] == "Back."
