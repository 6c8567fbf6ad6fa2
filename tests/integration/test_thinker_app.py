"""The Thinker in-process (httpx.ASGITransport) against the real hub and the scripted fake LLM.

The hub runs `echo_mcp` and `memorizer_mcp` (no embeddings; Guardian absent and its fail mode open, so memory
writes go through). The agent's model is `openai/fake` on the fake LLM, reached through litellm.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.settings import load_settings
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import RunningHub, start_hub
from thinker.app import create_app
from thinker.guards import HONEST_FAILURE
from thinker.runtime import ThinkerRuntime
from thinker.sessions import CompactionConfig
from thinker.sessions.compaction import SUMMARY_PROMPT
from thinker.settings import ThinkerSettings, load_agent

pytest_plugins = ["tests.fakes.fixtures"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("thinker-hub")
    env = {"EMBEDDING_PROVIDER": "none", "GUARDIAN_FAIL_MODE": "open", "UTILITY_MODEL": "off"}
    with start_hub(workdir, workdir / "home", ["echo_mcp", "memorizer_mcp"], env=env) as running:
        yield running


def write_agents(path: Path, fake_llm: FakeOpenAI, **agent: Any) -> Path:
    entry = {"agentId": "annabelle", "model": "openai/fake", "apiBase": fake_llm.api_base, "maxSteps": 6, **agent}
    path.write_text(json.dumps({"agents": [entry]}))
    return path


@pytest.fixture
async def thinker(
    hub: RunningHub, fake_llm: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[ThinkerRuntime, httpx.AsyncClient]]:
    monkeypatch.setenv("AGENTS_CONFIG", str(write_agents(tmp_path / "agents.json", fake_llm)))
    monkeypatch.setenv("ORCHESTRATOR_URL", hub.url)
    monkeypatch.setenv("ANNABELLE_AGENT_TOKEN", hub.token)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("EMBEDDING_PROVIDER", "none")
    monkeypatch.setenv("ANNABELLE_TIMEZONE", "Europe/Lisbon")
    settings = load_settings(ThinkerSettings)
    runtime = ThinkerRuntime(settings, load_agent(settings, "annabelle"))
    await runtime.start()
    await runtime.until_warm()  # the tool index is built, as before the first message
    transport = httpx.ASGITransport(app=create_app(runtime))
    headers = {"X-Annabelle-Token": hub.token}
    async with httpx.AsyncClient(transport=transport, base_url="http://thinker", headers=headers) as client:
        yield runtime, client
    await runtime.aclose()


def message(text: str, chat_id: str = "chat-1", **extra: Any) -> dict[str, Any]:
    return {
        "id": "m1",
        "chatId": chat_id,
        "senderId": "user",
        "text": text,
        "date": "2026-02-11T09:30:00Z",
        "channel": "http",
        **extra,
    }


def tool_messages(request: Any) -> list[dict[str, Any]]:
    return [m for m in request.messages if m["role"] == "tool"]


async def test_a_turn_calls_a_hub_tool_and_answers_with_its_result(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply(Reply.tool("echo_echo", {"text": "hello there"}), "The echo said: hello there.")
    answer = (await client.post("/process-message", json=message("Please echo 'hello there' back to me"))).json()
    assert answer == {
        "success": True,
        "response": "The echo said: hello there.",
        "toolsUsed": ["echo_echo"],
        "totalSteps": 2,
    }
    first, second = fake_llm.requests
    assert first.body["max_tokens"] == second.body["max_tokens"] == 4_096  # the agent's default maxOutputTokens
    assert "echo_echo" in first.tool_names
    assert {"browse_tools", "load_tools"} <= set(first.tool_names)  # the core: the meta-tools
    assert "send_telegram" not in first.tool_names  # no Telegram MCP: no essential for it
    assert first.messages[0]["role"] == "system" and "chat_id: chat-1" in first.messages[0]["content"]
    assert first.messages[-1] == {"role": "user", "content": "Please echo 'hello there' back to me"}
    result = json.loads(tool_messages(second)[0]["content"])
    assert result["success"] is True and result["data"]["text"] == "hello there"


async def test_the_next_turn_sees_the_previous_one_and_its_tool_chain(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply(Reply.tool("echo_echo", {"text": "one"}), "Echoed one.", "You asked me to echo one.")
    await client.post("/process-message", json=message("echo one", chat_id="memory-chat"))
    await client.post("/process-message", json=message("what did I ask?", chat_id="memory-chat"))
    roles = [m["role"] for m in fake_llm.requests[2].messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert "echo_echo" in fake_llm.requests[2].tool_names  # sticky: used in the previous turn


async def test_a_skill_with_required_tools_is_offered_exactly_those(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply(Reply.tool("echo_echo", {"text": "tick"}), "Sent the tick.")
    body = {"skillName": "ticker", "instructions": "Echo the word tick.", "requiredTools": ["echo_echo"], "maxSteps": 3}
    answer = (await client.post("/execute-skill", json=body)).json()
    assert fake_llm.requests[0].tool_names == ["echo_echo"]
    assert answer["success"] is True and answer["toolsUsed"] == ["echo_echo"] and answer["totalSteps"] == 2
    assert answer["response"] == "Sent the tick." and answer["summary"] == "Sent the tick."
    assert fake_llm.requests[0].messages[-1] == {"role": "user", "content": "Echo the word tick."}
    assert "## Current task" in fake_llm.requests[0].messages[0]["content"]


async def test_a_skill_sandbox_refuses_a_tool_it_did_not_require(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply(Reply.tool("memory_list_facts", {}), "Could not.")
    body = {"instructions": "List facts.", "requiredTools": ["echo_echo", "not_a_tool"]}
    answer = (await client.post("/execute-skill", json=body)).json()
    assert fake_llm.requests[0].tool_names == ["echo_echo"]
    refused = json.loads(tool_messages(fake_llm.requests[1])[0]["content"])
    assert refused["errorCode"] == "UNKNOWN_TOOL"
    assert answer["toolsUsed"] == []


async def test_a_skill_without_tools_gets_none(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply("A poem.")
    answer = (await client.post("/execute-skill", json={"instructions": "Write a poem.", "noTools": True})).json()
    assert answer["success"] and fake_llm.requests[0].tools == []


async def test_a_claimed_action_is_retried_with_a_required_tool_then_answered_honestly(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply("I've sent the email to Ana.", "I have sent the email.")
    answer = (await client.post("/process-message", json=message("Email Ana that I am late"))).json()
    assert answer["success"] is False and answer["response"] == HONEST_FAILURE
    assert answer["toolsUsed"] == [] and answer["totalSteps"] == 2
    retry = fake_llm.requests[1].body
    assert retry["tool_choice"] == "required" and retry["temperature"] <= 0.3
    assert "tool_choice" not in fake_llm.requests[0].body


async def test_a_paused_agent_answers_at_once_without_calling_the_model(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    runtime, client = thinker
    runtime.cost.record(10_000_000, 0)  # over the hard cap
    assert runtime.cost.paused
    answer = (await client.post("/process-message", json=message("hello"))).json()
    assert answer["success"] is False and answer["paused"] is True and "cost" in answer["error"]
    skill = (await client.post("/execute-skill", json={"instructions": "do it"})).json()
    assert skill["paused"] is True and skill["success"] is False
    assert fake_llm.requests == []
    status = (await client.get("/cost-status")).json()
    assert status["paused"] is True and status["currentHourTokens"] >= 10_000_000
    resumed = (await client.post("/cost-resume", json={"resetWindow": True})).json()
    assert resumed["success"] and not runtime.cost.paused
    assert (await client.get("/cost-status")).json()["currentHourTokens"] == 0


async def test_every_model_call_is_counted_by_the_cost_monitor(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    runtime, client = thinker
    fake_llm.reply(Reply(content="hi", usage={"prompt_tokens": 100, "completion_tokens": 7}))
    await client.post("/process-message", json=message("hi"))
    assert runtime.cost.status().currentHourTokens == 107


async def test_load_tools_brings_a_category_into_the_turn(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply(
        Reply.tool("browse_tools", {}),
        Reply.tool("load_tools", {"category": "memory"}),
        Reply.tool("memory_get_memory_stats", {}),
        "You have some memories.",
    )
    answer = (await client.post("/process-message", json=message("how big is my knowledge base"))).json()
    assert answer["toolsUsed"] == ["browse_tools", "load_tools", "memory_get_memory_stats"]
    browsed = json.loads(tool_messages(fake_llm.requests[1])[0]["content"])["data"]
    memory = next(c for c in browsed["categories"] if c["name"] == "memory")
    assert memory["tool_count"] == 31 and memory["label"] == "Memory"
    assert "memory_query_timeline" not in fake_llm.requests[1].tool_names
    assert "memory_query_timeline" in fake_llm.requests[2].tool_names


async def test_a_stored_fact_reaches_the_next_prompt(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply(
        Reply.tool("store_fact", {"fact": "The user's cat is called Miso", "category": "background"}), "Noted."
    )
    await client.post("/process-message", json=message("Remember that my cat is called Miso", chat_id="facts"))
    fake_llm.reply("Miso.")
    await client.post("/process-message", json=message("What is my cat called, Miso?", chat_id="facts"))
    system = fake_llm.requests[2].messages[0]["content"]
    # With its id, so that the model can correct or delete it without a lookup.
    assert re.search(r"## Relevant memories about the user\n- \(fact \d+\) The user's cat is called Miso", system)


async def test_a_matching_skill_file_is_injected_as_a_playbook(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI, annabelle_home: Path
) -> None:
    runtime, client = thinker
    folder = annabelle_home / "skills" / "echo-etiquette"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: echo-etiquette\ndescription: How to echo\nmetadata:\n  keywords: [parrot]\n"
        "  required_tools: [echo_echo]\n---\nAlways echo twice.\n"
    )
    runtime.context.invalidate_playbooks()
    fake_llm.reply("ok")
    await client.post("/process-message", json=message("be a parrot"))
    request = fake_llm.requests[0]
    assert "## Workflow guidance\n### echo-etiquette\nAlways echo twice." in request.messages[0]["content"]
    assert "echo_echo" in request.tool_names


async def test_a_tainted_message_gets_the_caution_layer(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply("ok")
    await client.post("/process-message", json=message("hi", tainted=True))
    assert "## Caution" in fake_llm.requests[0].messages[0]["content"]


async def test_clearing_a_session_forgets_its_history(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    runtime, client = thinker
    fake_llm.reply("first", "second")
    await client.post("/process-message", json=message("one", chat_id="wipe"))
    assert runtime.sessions.path_for("wipe").exists()
    cleared = (await client.post("/clear-session", json={"chatId": "wipe"})).json()
    assert cleared == {"success": True, "message": "Session wipe cleared."}
    await client.post("/process-message", json=message("two", chat_id="wipe"))
    assert [m["role"] for m in fake_llm.requests[1].messages] == ["system", "user"]


async def test_a_model_that_is_down_gives_a_sentence_not_a_500(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.fail(503, "overloaded")
    response = await client.post("/process-message", json=message("hi"))
    assert response.status_code == 200
    answer = response.json()
    assert (
        answer["success"] is False and "openai/fake" in answer["error"] and "apiBase in agents.json" in answer["error"]
    )


# -- the HTTP boundary ---------------------------------------------------------------------------------------------


async def test_health_is_open_and_describes_the_agent(thinker: tuple[ThinkerRuntime, httpx.AsyncClient]) -> None:
    _, client = thinker
    response = await client.get("/health", headers={"X-Annabelle-Token": ""})
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ok" and body["service"] == "thinker"
    assert body["agentId"] == "annabelle" and body["orchestratorConnected"] is True and body["toolCount"] > 30


@pytest.mark.parametrize("token", [None, "", "wrong-token"])
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/process-message"),
        ("POST", "/execute-skill"),
        ("POST", "/clear-session"),
        ("GET", "/cost-status"),
        ("POST", "/cost-resume"),
    ],
)
async def test_every_endpoint_but_health_needs_the_token(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI, method: str, path: str, token: str | None
) -> None:
    _, client = thinker
    headers = {} if token is None else {"X-Annabelle-Token": token}
    client.headers.pop("X-Annabelle-Token")
    response = await client.request(method, path, json=message("hi"), headers=headers)
    assert response.status_code == 401
    assert "X-Annabelle-Token" in response.json()["error"]
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    ("path", "status", "body", "expected"),
    [
        ("/process-message", 400, "{not json", "not valid JSON"),
        ("/process-message", 400, "", "needs a JSON body"),
        ("/process-message", 422, json.dumps({"text": "hi"}), "chatId: Field required"),
        ("/process-message", 422, json.dumps(message("")), "text: String should have at least 1 character"),
        ("/process-message", 422, json.dumps(message("hi", tainted="very")), "tainted"),
        ("/process-message", 422, json.dumps(message("hi", extra=1)), "Unknown argument: 'extra'"),
        (
            "/process-message",
            400,
            json.dumps(message("hi", agentId="other")),
            "runs the agent 'annabelle', not 'other'",
        ),
        ("/process-message", 400, json.dumps(message("hi", chat_id="../etc")), "path separator"),
        ("/execute-skill", 422, json.dumps({"maxSteps": 3}), "instructions: Field required"),
        ("/execute-skill", 422, json.dumps({"instructions": "x", "maxSteps": 0}), "maxSteps"),
        ("/execute-skill", 422, json.dumps({"instructions": "x", "requiredTools": "echo_echo"}), "requiredTools"),
        ("/clear-session", 422, json.dumps({}), "chatId: Field required"),
        ("/cost-resume", 422, json.dumps({"resetWindow": "maybe"}), "resetWindow"),
    ],
)
async def test_bad_requests_get_a_4xx_with_a_sentence(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient],
    fake_llm: FakeOpenAI,
    path: str,
    body: str,
    status: int,
    expected: str,
) -> None:
    """400 for a body that is not JSON or a request this Thinker cannot serve, 422 for JSON that does not fit."""
    _, client = thinker
    response = await client.post(path, content=body)
    assert response.status_code == status, response.text
    answer = response.json()
    assert answer["success"] is False and expected in answer["error"]
    assert fake_llm.requests == []


async def test_unknown_paths_and_methods_are_4xx_sentences(thinker: tuple[ThinkerRuntime, httpx.AsyncClient]) -> None:
    _, client = thinker
    assert (await client.get("/nope")).status_code == 404
    response = await client.get("/process-message")
    assert response.status_code == 405 and "not allowed" in response.json()["error"]


async def test_a_body_sent_as_a_form_type_is_still_read_as_json(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    _, client = thinker
    fake_llm.reply("hi")
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    response = await client.post("/process-message", content=json.dumps(message("hi")), headers=headers)
    assert response.status_code == 200 and response.json()["response"] == "hi"


async def test_the_master_token_works_too(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], hub: RunningHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime, client = thinker
    monkeypatch.setattr(runtime.settings, "annabelle_agent_token", None)
    monkeypatch.setenv("ANNABELLE_TOKEN", "")
    (runtime.settings.annabelle_home / "annabelle.token").write_text("master-secret\n")
    assert (await client.get("/cost-status", headers={"X-Annabelle-Token": "master-secret"})).status_code == 200


# -- compaction and fact extraction, wired to the utility model and the hub ------------------------------------------


async def test_a_long_chat_is_compacted_in_the_background_with_a_counted_summary(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    runtime, client = thinker
    runtime.compaction = CompactionConfig(min_turns=2, threshold_chars=10, keep_recent_turns=1, cooldown=timedelta(0))
    fake_llm.reply("first answer", "second answer")
    await client.post("/process-message", json=message("first question", chat_id="long"))
    assert not runtime.compactions  # one turn: not yet
    fake_llm.reply(
        Reply(content="The user asked a first question.", usage={"prompt_tokens": 50, "completion_tokens": 9})
    )
    await client.post("/process-message", json=message("second question", chat_id="long"))
    await asyncio.gather(*runtime.compactions)
    summary_request = fake_llm.requests[2]
    assert summary_request.messages[0] == {"role": "system", "content": SUMMARY_PROMPT}
    assert "first question" in summary_request.messages[1]["content"]
    session = runtime.sessions.load("long")
    assert session.summary == "The user asked a first question." and len(session.turns) == 1
    runtime.compaction = CompactionConfig(enabled=False)
    fake_llm.reply("third answer")
    await client.post("/process-message", json=message("third question", chat_id="long"))
    system = fake_llm.requests[3].messages[0]["content"]
    assert "## Previous conversation context\nThe user asked a first question." in system


async def test_facts_of_a_quiet_chat_are_extracted_and_stored_through_the_hub(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI, hub: RunningHub
) -> None:
    runtime, client = thinker
    fake_llm.reply("Nice to meet you, Rui.", "Lisbon is lovely.")
    await client.post("/process-message", json=message("Hi, my name is Rui", chat_id="quiet"))
    await client.post("/process-message", json=message("I live in Porto but work in Lisbon", chat_id="quiet"))
    assert "quiet" in runtime.extraction.pending  # the idle timer is armed
    facts = {"facts": [{"fact": "The user works in Lisbon", "category": "background", "confidence": 0.95}]}
    fake_llm.reply(json.dumps(facts))
    stored = await runtime.extract_facts("quiet")
    assert [fact.fact for fact in stored] == ["The user works in Lisbon"]
    assert fake_llm.requests[2].body.get("response_format") == {"type": "json_object"}
    listed = hub.call("memory_list_facts", {"agent_id": "annabelle", "limit": 100})
    assert "The user works in Lisbon" in str(listed["data"])


async def test_a_fact_extracted_later_supersedes_the_one_it_updates(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI, hub: RunningHub
) -> None:
    runtime, client = thinker
    fake_llm.reply("Noted.", "Porto is lovely.")
    await client.post("/process-message", json=message("I'm a violinist", chat_id="before"))
    await client.post("/process-message", json=message("I live in Porto", chat_id="before"))
    fake_llm.reply(
        json.dumps({"facts": [{"fact": "The user lives in Porto", "category": "background", "confidence": 0.95}]})
    )
    await runtime.extract_facts("before")
    fake_llm.reply("Exciting!", "Enjoy Faro.")
    await client.post("/process-message", json=message("Big news", chat_id="after"))
    await client.post("/process-message", json=message("I moved to Faro last week", chat_id="after"))
    fake_llm.reply(
        json.dumps({"facts": [{"fact": "The user moved to Faro", "category": "background", "confidence": 0.95}]})
    )
    await runtime.extract_facts("after")
    current = hub.call("memory_list_facts", {"agent_id": "annabelle", "limit": 100})["data"]["facts"]
    history = hub.call("memory_list_facts", {"agent_id": "annabelle", "limit": 100, "include_history": True})
    texts = [fact["fact"] for fact in current]
    assert "The user moved to Faro" in texts and "The user lives in Porto" not in texts
    porto = next(f for f in history["data"]["facts"] if f["fact"] == "The user lives in Porto")
    faro = next(f for f in current if f["fact"] == "The user moved to Faro")
    assert porto["superseded_by"] == faro["id"] and porto["valid_until"] is not None


async def test_clearing_a_session_disarms_its_fact_extraction(
    thinker: tuple[ThinkerRuntime, httpx.AsyncClient], fake_llm: FakeOpenAI
) -> None:
    runtime, client = thinker
    fake_llm.reply("hello")
    await client.post("/process-message", json=message("hi", chat_id="gone"))
    await client.post("/clear-session", json={"chatId": "gone"})
    assert "gone" not in runtime.extraction.pending
