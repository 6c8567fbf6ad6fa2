"""The model seam (thinker/llm.py): typed replies, usage recording, the circuit breaker. No network:
the completion function is swapped through the constructor."""

from __future__ import annotations

from typing import Any

import pytest

from shared.litellm_loader import ModelEndpoint
from thinker.llm import CircuitBreaker, CircuitOpen, CircuitState, ModelClient, ModelUnavailable


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    def __init__(self) -> None:
        self.records: list[tuple[int, int]] = []

    def record(self, prompt: int, completion: int, /) -> None:
        self.records.append((prompt, completion))


class Scripted:
    """A completion function answering from a list: a dict is a response, an exception is raised."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def response(content: str | None = "hi", tool_calls: list[Any] | None = None, usage: Any = "default") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body: dict[str, Any] = {"choices": [{"message": message, "finish_reason": "stop"}]}
    body["usage"] = {"prompt_tokens": 10, "completion_tokens": 3} if usage == "default" else usage
    return body


SETTINGS = ModelEndpoint("openai/fake", "http://127.0.0.1:1/v1", "test", timeout=5)


async def test_a_reply_carries_text_tool_calls_and_usage_and_the_usage_is_recorded() -> None:
    recorder = Recorder()
    call = {"id": "c1", "function": {"name": "echo_echo", "arguments": '{"text": "x"}'}}
    client = ModelClient(SETTINGS, usage=recorder, completion=Scripted(response(None, [call])))
    reply = await client.complete([{"role": "user", "content": "x"}])
    assert reply.text is None
    assert reply.tool_calls[0].name == "echo_echo" and reply.tool_calls[0].arguments == '{"text": "x"}'
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (10, 3)
    assert recorder.records == [(10, 3)]


async def test_arguments_given_as_an_object_become_json_text() -> None:
    call = {"id": "c1", "function": {"name": "t", "arguments": {"a": 1}}}
    reply = await ModelClient(SETTINGS, completion=Scripted(response(None, [call]))).complete([])
    assert reply.tool_calls[0].arguments == '{"a": 1}'


async def test_missing_usage_is_estimated_and_still_recorded() -> None:
    recorder = Recorder()
    client = ModelClient(SETTINGS, usage=recorder, completion=Scripted(response("hello", usage=None)))
    reply = await client.complete([{"role": "user", "content": "a question of some length"}])
    assert reply.usage_estimated
    assert recorder.records and recorder.records[0][0] > 0


async def test_the_request_carries_model_server_key_tools_and_choice() -> None:
    scripted = Scripted(response())
    client = ModelClient(SETTINGS, completion=scripted, temperature=0.7)
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}]
    await client.complete([{"role": "user", "content": "x"}], tools=tools, tool_choice="required", temperature=0.2)
    sent = scripted.calls[0]
    assert sent["model"] == "openai/fake" and sent["api_base"] == "http://127.0.0.1:1/v1"
    assert sent["api_key"] == "test" and sent["timeout"] == 5
    assert sent["tools"] == tools and sent["tool_choice"] == "required" and sent["temperature"] == 0.2
    assert sent["num_retries"] == 0


async def test_no_tool_choice_is_sent_without_tools() -> None:
    scripted = Scripted(response())
    await ModelClient(SETTINGS, completion=scripted).complete([], tool_choice="required")
    assert "tool_choice" not in scripted.calls[0] and "tools" not in scripted.calls[0]


async def test_a_provider_error_becomes_one_sentence_naming_the_model() -> None:
    client = ModelClient(SETTINGS, completion=Scripted(ConnectionError("refused")))
    with pytest.raises(
        ModelUnavailable,
        match=r"^The model openai/fake at http://127.0.0.1:1/v1 cannot be reached: start that server, or fix the "
        r"apiBase in agents.json\.$",
    ):
        await client.complete([])


async def test_a_response_without_choices_is_a_failure() -> None:
    with pytest.raises(ModelUnavailable, match="no choices"):
        await ModelClient(SETTINGS, completion=Scripted({"choices": []})).complete([])


async def test_five_failures_open_the_circuit_for_60_seconds_then_one_trial_goes_through() -> None:
    clock = Clock()
    scripted = Scripted(*[ConnectionError("down")] * 5, response("back"))
    client = ModelClient(SETTINGS, completion=scripted, clock=clock)
    for _ in range(5):
        with pytest.raises(ModelUnavailable):
            await client.complete([])
    assert client.breaker.state is CircuitState.OPEN
    with pytest.raises(CircuitOpen, match="60 s"):
        await client.complete([])
    assert len(scripted.calls) == 5  # not even tried
    clock.now += 60
    assert client.breaker.state is CircuitState.HALF_OPEN
    reply = await client.complete([])
    assert reply.text == "back" and client.breaker.state is CircuitState.CLOSED


def test_half_open_lets_one_trial_through_and_a_failed_trial_opens_again() -> None:
    clock = Clock()
    breaker = CircuitBreaker(threshold=2, open_seconds=10, clock=clock)
    breaker.failed()
    assert breaker.state is CircuitState.CLOSED and breaker.acquire()
    breaker.failed()
    assert not breaker.acquire()
    clock.now += 10
    assert breaker.acquire()
    assert not breaker.acquire()  # a second caller waits for the trial's outcome
    breaker.failed()
    assert breaker.state is CircuitState.OPEN
    clock.now += 10
    assert breaker.acquire()
    breaker.succeeded()
    assert breaker.state is CircuitState.CLOSED and breaker.failures == 0


def test_a_success_resets_the_consecutive_count() -> None:
    breaker = CircuitBreaker(threshold=3, clock=Clock())
    breaker.failed()
    breaker.failed()
    breaker.succeeded()
    breaker.failed()
    breaker.failed()
    assert breaker.state is CircuitState.CLOSED
