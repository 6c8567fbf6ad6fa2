"""The scripted OpenAI-compatible server in tests/fakes speaks the protocol its users rely on."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply, ToolCall

pytest_plugins = ["tests.fakes.fixtures"]

TOOLS = [{"type": "function", "function": {"name": "store_fact", "parameters": {"type": "object"}}}]


def chat(llm: FakeOpenAI, **body: Any) -> httpx.Response:
    payload = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}], **body}
    return httpx.post(f"{llm.api_base}/chat/completions", json=payload, timeout=10)


def events(response: httpx.Response) -> list[Any]:
    lines = [line[len("data: ") :] for line in response.text.splitlines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


def test_scripted_text_comes_back_as_a_chat_completion(fake_llm: FakeOpenAI) -> None:
    fake_llm.reply("hello there")
    response = chat(fake_llm, tools=TOOLS)
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "hello there"}
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"]["total_tokens"] == body["usage"]["prompt_tokens"] + body["usage"]["completion_tokens"]
    request = fake_llm.last_request
    assert (request.model, request.messages, request.tool_names) == (
        "fake-model",
        [{"role": "user", "content": "hi"}],
        ["store_fact"],
    )


def test_tool_calls_carry_json_arguments(fake_llm: FakeOpenAI) -> None:
    fake_llm.reply(Reply.tools(ToolCall("a", {"x": 1}, id="call_1"), ToolCall("b", "{not json")))
    message = chat(fake_llm).json()["choices"][0]
    assert message["finish_reason"] == "tool_calls"
    calls = message["message"]["tool_calls"]
    assert calls[0] == {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}}
    assert calls[1]["function"]["arguments"] == "{not json"


def test_replies_are_used_in_order_then_the_handler_then_the_default(fake_llm: FakeOpenAI) -> None:
    fake_llm.reply("one", "two")
    fake_llm.set_handler(lambda body: f"echo {body['messages'][-1]['content']}")
    texts = [chat(fake_llm).json()["choices"][0]["message"]["content"] for _ in range(3)]
    assert texts == ["one", "two", "echo hi"]
    fake_llm.set_handler(None)
    fake_llm.default = Reply.text("fallback")
    assert chat(fake_llm).json()["choices"][0]["message"]["content"] == "fallback"
    assert fake_llm.pending == 0


def test_an_empty_script_answers_500_with_a_reason(fake_llm: FakeOpenAI) -> None:
    response = chat(fake_llm)
    assert response.status_code == 500
    assert "no reply scripted" in response.json()["error"]["message"]


def test_a_handler_that_raises_answers_500(fake_llm: FakeOpenAI) -> None:
    fake_llm.set_handler(lambda body: body["missing"])
    response = chat(fake_llm)
    assert response.status_code == 500
    assert "KeyError" in response.json()["error"]["message"]


def test_errors_and_rate_limits_look_like_openai_errors(fake_llm: FakeOpenAI) -> None:
    fake_llm.fail(429, "slow down", retry_after=2)
    response = chat(fake_llm)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2"
    assert response.json()["error"]["type"] == "rate_limit_error"
    fake_llm.fail(503, times=2)
    assert [chat(fake_llm).status_code for _ in range(2)] == [503, 503]


def test_a_delay_holds_the_answer_back(fake_llm: FakeOpenAI) -> None:
    fake_llm.reply(Reply.text("late", delay=0.3))
    started = time.monotonic()
    assert chat(fake_llm).status_code == 200
    assert time.monotonic() - started >= 0.3


def test_streaming_sends_deltas_tool_calls_usage_and_done(fake_llm: FakeOpenAI) -> None:
    fake_llm.reply(Reply.tool("store_fact", {"fact": "likes tea"}, content="Noting that down for you now."))
    response = chat(fake_llm, stream=True, stream_options={"include_usage": True})
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = events(response)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "Noting that down for you now."
    assert sum(1 for c in chunks if c["choices"] and "content" in c["choices"][0]["delta"]) > 2
    arguments = "".join(
        call["function"].get("arguments", "")
        for c in chunks
        if c["choices"]
        for call in c["choices"][0]["delta"].get("tool_calls", [])
    )
    assert json.loads(arguments) == {"fact": "likes tea"}
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    assert fake_llm.last_request.stream


def test_models_are_listed_and_bad_bodies_rejected(fake_llm: FakeOpenAI) -> None:
    ids = [m["id"] for m in httpx.get(f"{fake_llm.api_base}/models", timeout=10).json()["data"]]
    assert "fake-model" in ids
    bad = httpx.post(f"{fake_llm.api_base}/chat/completions", content=b"{", timeout=10)
    assert bad.status_code == 400


def test_reset_forgets_requests_and_script(fake_llm: FakeOpenAI) -> None:
    fake_llm.reply("x", "y")
    chat(fake_llm)
    fake_llm.reset()
    assert fake_llm.requests == [] and fake_llm.pending == 0
    with pytest.raises(AssertionError, match="not received"):
        _ = fake_llm.last_request


def test_the_server_can_be_used_without_the_fixture() -> None:
    with FakeOpenAI(default="always this") as llm:
        assert llm.url.startswith("http://127.0.0.1:")
        assert chat(llm).json()["choices"][0]["message"]["content"] == "always this"
