"""The one seam for model calls: `ModelClient.complete(messages, tools=..., tool_choice=...) -> ModelReply`.

Everything that asks a model something (the agent loop, the hallucination retry, compaction summaries, fact
extraction) goes through a `ModelClient`, so that:

- every call is first admitted by the budget guard (`thinker.budget_guard`: a call that could pass a budget is
  not made, `BudgetExceeded` is raised) and its token usage then recorded in the cost monitor and the budget
  ledger (a missing `usage` is estimated, never skipped);
- a model that keeps failing is left alone for a while: after 5 consecutive failures the circuit opens for
  60 s, then one trial request is let through (half-open); its success closes the circuit again;
- provider errors become one `LlmError` sentence naming the model and what to check.

litellm is imported once, at start-up (`load_litellm`, in a worker thread: it takes seconds), and warmed by
`warm_up` with a mock completion plus the OpenAI client's lazily imported resources, so the first real
request does not pay ~1.5 s of imports. `LITELLM_LOCAL_MODEL_COST_MAP` is set before the import so litellm
never downloads its price list.

Errors (all `LlmError`): `ModelUnavailable` (the call failed; `ModelTimedOut` when it ran out of time),
`CircuitOpen` (not even tried), `BudgetExceeded` (not made: it could pass a budget).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from shared.contracts.thinker_api import BudgetStop
from shared.litellm_loader import (
    ModelEndpoint,
    completion_request,
    describe_llm_error,
    is_timeout,
    load_litellm,
    model_failure,
    model_server_setting,
)
from shared.traces import elapsed_ms, trace_event

log = logging.getLogger(__name__)

Clock = Callable[[], float]
CompletionFn = Callable[..., Awaitable[Any]]
"""`litellm.acompletion`'s shape: keyword arguments in, a chat completion response out."""
TextCompletion = Callable[[str], Awaitable[str]]
"""One prompt in, the model's text out (what compaction and fact extraction take)."""

FAILURE_THRESHOLD = 5
OPEN_SECONDS = 60.0


class LlmError(Exception):
    """A model call did not produce an answer; the message says which model and what to check."""


class ModelUnavailable(LlmError):
    """The provider failed: unreachable, timed out, refused the request or answered nonsense."""


class ModelTimedOut(ModelUnavailable):
    """The model did not answer within the call's time limit."""


class CircuitOpen(LlmError):
    """Recent calls to this model all failed, so it is not being called until the pause ends."""


class BudgetGate(Protocol):
    """The budget guard's side of the seam (`thinker.budget_guard.BudgetGuard`): asked before every call, told
    its real usage after; `admit` raises `BudgetExceeded` for a call that could pass a budget."""

    def admit(
        self, model: str, messages: Sequence[Any], tools: Sequence[dict[str, Any]] | None, max_tokens: int | None, /
    ) -> Any: ...

    def settle(self, ticket: Any, prompt_tokens: int, completion_tokens: int, /) -> None: ...

    def release(self, ticket: Any, /) -> None: ...


class BudgetExceeded(LlmError):
    """The call was not made: it could pass a budget. The message is the sentence for the user; `stop` says
    which limit, machine-readably."""

    def __init__(self, sentence: str, stop: BudgetStop) -> None:
        super().__init__(sentence)
        self.stop = stop


class UsageRecorder(Protocol):
    """The cost monitor's side of the seam: told the tokens of every call."""

    def record(self, prompt_tokens: int, completion_tokens: int, /) -> object: ...


# -- typed replies ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str
    """The arguments exactly as the model wrote them (JSON text, possibly malformed)."""


@dataclass(frozen=True)
class ModelReply:
    text: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    usage_estimated: bool = False


# -- circuit breaker -------------------------------------------------------------------------------------------


class CircuitState(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Closed → (5 consecutive failures) → open for 60 s → half-open: one trial call → closed or open again."""

    def __init__(
        self, *, threshold: int = FAILURE_THRESHOLD, open_seconds: float = OPEN_SECONDS, clock: Clock = time.monotonic
    ) -> None:
        self.threshold = threshold
        self.open_seconds = open_seconds
        self.clock = clock
        self.failures = 0
        self.opened_at: float | None = None
        self.trial_in_flight = False

    @property
    def state(self) -> CircuitState:
        if self.opened_at is None:
            return CircuitState.CLOSED
        if self.clock() - self.opened_at >= self.open_seconds:
            return CircuitState.HALF_OPEN
        return CircuitState.OPEN

    def seconds_left(self) -> float:
        if self.opened_at is None:
            return 0.0
        return max(0.0, self.open_seconds - (self.clock() - self.opened_at))

    def acquire(self) -> bool:
        """Whether a call may go out now (in half-open state, only the first caller gets through)."""
        state = self.state
        if state is CircuitState.CLOSED:
            return True
        if state is CircuitState.HALF_OPEN and not self.trial_in_flight:
            self.trial_in_flight = True
            return True
        return False

    def succeeded(self) -> None:
        self.failures = 0
        self.opened_at = None
        self.trial_in_flight = False

    def failed(self) -> None:
        self.failures += 1
        if self.trial_in_flight or self.failures >= self.threshold:
            self.opened_at = self.clock()
        self.trial_in_flight = False


# -- litellm loading -------------------------------------------------------------------------------------------


async def warm_up(model: str) -> None:
    """Run litellm's request path once without any network, so the first real call is not slow.

    A `mock_response` completion builds and parses a request for `model`'s provider; the OpenAI client imports
    its resources lazily on first use (~0.5 s), so those are imported here too.
    """
    litellm = load_litellm()
    litellm.utils.get_llm_provider(model)
    tool = {"type": "function", "function": {"name": "warm_up", "parameters": {"type": "object", "properties": {}}}}
    await litellm.acompletion(
        model=model, messages=[{"role": "user", "content": "warm up"}], tools=[tool], mock_response="ok"
    )
    importlib.import_module("openai.resources")


async def _litellm_completion(**kwargs: Any) -> Any:
    return await load_litellm().acompletion(**kwargs)


# -- the client ------------------------------------------------------------------------------------------------


def _estimate_tokens(value: object) -> int:
    # About four characters per token: when a provider reports no usage, the cost monitor still sees a cost.
    return max(1, len(json.dumps(value, ensure_ascii=False, default=str)) // 4)


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _parse_tool_calls(raw: Any) -> tuple[ToolCall, ...]:
    calls = []
    for index, item in enumerate(raw or []):
        function = _field(item, "function")
        name = _field(function, "name") if function is not None else None
        arguments = _field(function, "arguments") if function is not None else None
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {})
        call_id = _field(item, "id") or f"call_{index}"
        calls.append(ToolCall(id=str(call_id), name=str(name or ""), arguments=arguments))
    return tuple(calls)


class ModelClient:
    """Calls one model through litellm; records usage; keeps a circuit breaker for that model."""

    def __init__(
        self,
        settings: ModelEndpoint,
        *,
        usage: UsageRecorder | None = None,
        clock: Clock = time.monotonic,
        completion: CompletionFn | None = None,
        breaker: CircuitBreaker | None = None,
        temperature: float = 0.6,
        budget: BudgetGate | None = None,
    ) -> None:
        self.settings = settings
        self.usage = usage
        self.budget = budget
        self.temperature = temperature
        self.breaker = breaker or CircuitBreaker(clock=clock)
        self._completion = completion or _litellm_completion

    async def complete(
        self,
        messages: Sequence[Any],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        json_mode: bool = False,
        step: int | None = None,
        time_limit: float | None = None,
    ) -> ModelReply:
        """One chat completion. Raises `LlmError` (with a sentence) when no answer came back.

        `step` is the agent loop's step number, for the trace's `llm_call` event; `time_limit` shortens this call's
        time limit (the turn's remaining time), never lengthens it."""
        model = self.settings.model
        if not self.breaker.acquire():
            trace_event("llm_call", model=model, step=step, outcome="circuit_open", ms=0.0)
            raise CircuitOpen(
                f"The model {self.settings.where()} failed {self.breaker.failures} times in a row, so it is not "
                f"being called for another {self.breaker.seconds_left():.0f} s. Check that it is running."
            )
        target = self.settings
        if time_limit is not None and time_limit < target.timeout:
            target = dataclasses.replace(target, timeout=max(time_limit, 0.001))
        kwargs = self._request(target, messages, tools, tool_choice, temperature, max_tokens, json_mode)
        ticket = None
        if self.budget is not None:
            try:
                ticket = self.budget.admit(model, kwargs["messages"], kwargs.get("tools"), kwargs.get("max_tokens"))
            except BudgetExceeded:
                # Refused before the call: the circuit's trial slot (if this was it) goes back unused.
                self.breaker.trial_in_flight = False
                trace_event("llm_call", model=model, step=step, outcome="budget", ms=0.0)
                raise
        started = time.perf_counter()
        try:
            response = await self._completion(**kwargs)
            reply = self._reply(response, kwargs)
        except Exception as exc:
            if ticket is not None and self.budget is not None:
                self.budget.release(ticket)
            self.breaker.failed()
            trace_event(
                "llm_call", model=model, step=step, outcome="error", error=type(exc).__name__, ms=elapsed_ms(started)
            )
            log.warning("model call failed", extra={"model": model, "error": describe_llm_error(exc, 300)})
            server = model_server_setting(model, self.settings.api_base)
            failure = ModelTimedOut if is_timeout(exc) else ModelUnavailable
            raise failure(
                model_failure(target, exc, timeout_setting="THINKER_LLM_TIMEOUT_SECONDS", server_setting=server)
            ) from None
        self.breaker.succeeded()
        trace_event(
            "llm_call",
            model=model,
            step=step,
            outcome="tool_calls" if reply.tool_calls else "text",
            tool_calls=len(reply.tool_calls),
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            estimated=reply.usage_estimated,
            finish_reason=reply.finish_reason,
            ms=elapsed_ms(started),
        )
        if ticket is not None and self.budget is not None:
            self.budget.settle(ticket, reply.usage.prompt_tokens, reply.usage.completion_tokens)
        if self.usage is not None:
            self.usage.record(reply.usage.prompt_tokens, reply.usage.completion_tokens)
        return reply

    def text_completion(
        self, system: str | None = None, *, json_mode: bool = False, max_tokens: int = 1_000, temperature: float = 0.2
    ) -> TextCompletion:
        """This client as a `TextCompletion`: `system` first, the prompt as the user's message; usage recorded."""

        async def complete(prompt: str) -> str:
            messages = [{"role": "system", "content": system}] if system else []
            messages.append({"role": "user", "content": prompt})
            reply = await self.complete(messages, json_mode=json_mode, max_tokens=max_tokens, temperature=temperature)
            if not reply.text or not reply.text.strip():
                raise ModelUnavailable(f"The model {self.settings.where()} returned an empty answer.")
            return reply.text

        return complete

    def _request(
        self,
        target: ModelEndpoint,
        messages: Sequence[Any],
        tools: Sequence[dict[str, Any]] | None,
        tool_choice: str | None,
        temperature: float | None,
        max_tokens: int | None,
        json_mode: bool,
    ) -> dict[str, Any]:
        return completion_request(
            target,
            messages,
            temperature=self.temperature if temperature is None else temperature,
            max_tokens=max_tokens,
            json_mode=json_mode,
            tools=tools,
            tool_choice=tool_choice,
        )

    def _reply(self, response: Any, request: dict[str, Any]) -> ModelReply:
        choices = _field(response, "choices") or []
        if not choices:
            raise ValueError("the response has no choices")
        choice = choices[0]
        message = _field(choice, "message")
        content = _field(message, "content")
        text = content if isinstance(content, str) else None
        calls = _parse_tool_calls(_field(message, "tool_calls"))
        raw_usage = _field(response, "usage")
        prompt = _field(raw_usage, "prompt_tokens") if raw_usage is not None else None
        completion = _field(raw_usage, "completion_tokens") if raw_usage is not None else None
        estimated = not isinstance(prompt, int) or not isinstance(completion, int)
        if estimated:
            prompt = _estimate_tokens([request["messages"], request.get("tools")])
            completion = _estimate_tokens([text, [c.arguments for c in calls]])
        return ModelReply(
            text=text,
            tool_calls=calls,
            usage=Usage(int(prompt or 0), int(completion or 0)),
            finish_reason=_field(choice, "finish_reason"),
            usage_estimated=estimated,
        )
