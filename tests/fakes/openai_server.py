"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests of anything that calls an LLM.

It speaks the real protocol (`POST /v1/chat/completions`, plain JSON or `stream: true` server-sent events,
`GET /v1/models`), so the code under test runs unchanged through litellm or any OpenAI client:

    with FakeOpenAI() as llm:                      # or the `fake_llm` fixture from tests.fakes.fixtures
        llm.reply("safe")                          # next answer: plain text
        llm.reply(Reply.tool("store_fact", {"fact": "likes tea"}))   # then: a tool call
        llm.fail(500)                              # then: an HTTP 500 (also 429 with Retry-After, delays)
        ... await litellm.acompletion(model="openai/fake", api_base=llm.api_base, api_key="test", ...)
        assert llm.requests[0].messages[-1]["content"] == "hello"
        assert llm.requests[1].tool_names == ["store_fact", ...]

Where each answer comes from, in order: the queue of scripted replies (`reply`, `fail`), else the handler
(`set_handler(fn)`, `fn(request_json) -> Reply | str`, for answers that depend on the request), else the
`default` reply, else an HTTP 500 saying that nothing was scripted - so a test that forgot a reply fails
loudly instead of hanging. Every request is recorded, whatever the answer (`requests`, `last_request`).

The server runs uvicorn on a background thread, on a free port chosen by the OS.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.fakes.loopback import LoopbackServer

DEFAULT_MODEL = "fake-model"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    """A dict is sent JSON-encoded; a string is sent as is (to test malformed arguments)."""
    id: str | None = None


@dataclass(frozen=True)
class Reply:
    """One scripted answer: text and/or tool calls, or an HTTP error; optionally after a delay."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    status: int = 200
    error: str | None = None
    delay: float = 0.0
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def text(cls, content: str, *, delay: float = 0.0, usage: dict[str, int] | None = None) -> Reply:
        return cls(content=content, delay=delay, usage=usage)

    @classmethod
    def tool(
        cls,
        name: str,
        arguments: dict[str, Any] | str | None = None,
        *,
        content: str | None = None,
        call_id: str | None = None,
        delay: float = 0.0,
    ) -> Reply:
        return cls(content=content, tool_calls=(ToolCall(name, arguments or {}, call_id),), delay=delay)

    @classmethod
    def tools(cls, *calls: ToolCall, content: str | None = None, delay: float = 0.0) -> Reply:
        return cls(content=content, tool_calls=calls, delay=delay)

    @classmethod
    def failure(
        cls, status: int = 500, message: str = "", *, retry_after: float | None = None, delay: float = 0.0
    ) -> Reply:
        headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
        return cls(status=status, error=message or f"fake LLM error {status}", headers=headers, delay=delay)


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.body.get("tools") or [])

    @property
    def tool_names(self) -> list[str]:
        return [tool.get("function", {}).get("name", "") for tool in self.tools]

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))


Handler = Callable[[dict[str, Any]], "Reply | str"]


def _as_reply(value: Reply | str) -> Reply:
    return Reply.text(value) if isinstance(value, str) else value


def _estimate_tokens(value: Any) -> int:
    # Roughly four characters per token: enough for cost and budget logic under test to see plausible numbers.
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


class FakeOpenAI(LoopbackServer):
    name = "fake-openai"

    def __init__(self, *, default: Reply | str | None = None) -> None:
        self.default: Reply | None = _as_reply(default) if default is not None else None
        self._queue: deque[Reply] = deque()
        self._handler: Handler | None = None
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        super().__init__()
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/models", self._models, methods=["GET"]),
            ]
        )

    # --- scripting -------------------------------------------------------------------------------------------
    def reply(self, *replies: Reply | str) -> FakeOpenAI:
        """Queue answers for the next requests, in order (a string is a plain text answer)."""
        with self._lock:
            self._queue.extend(_as_reply(reply) for reply in replies)
        return self

    def fail(
        self,
        status: int = 500,
        message: str = "",
        *,
        times: int = 1,
        retry_after: float | None = None,
        delay: float = 0.0,
    ) -> FakeOpenAI:
        """Queue `times` HTTP errors (500 by default; 429 with `retry_after` for rate limits)."""
        return self.reply(*[Reply.failure(status, message, retry_after=retry_after, delay=delay)] * times)

    def set_handler(self, handler: Handler | None) -> FakeOpenAI:
        """Answer requests the queue does not cover with `handler(request_json)`."""
        with self._lock:
            self._handler = handler
        return self

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._requests.clear()
            self._handler = None

    @property
    def pending(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._lock:
            if not self._requests:
                raise AssertionError("the fake LLM has not received any request")
            return self._requests[-1]

    # --- addresses ---------------------------------------------------------------------------------------------
    @property
    def api_base(self) -> str:
        """What litellm's `api_base` / an OpenAI client's `base_url` should be."""
        return f"{self.url}/v1"

    # --- lifecycle ---------------------------------------------------------------------------------------------

    # --- protocol ----------------------------------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
            handler = self._handler
        if handler is not None:
            return _as_reply(handler(body))
        if self.default is not None:
            return self.default
        return Reply.failure(500, "fake LLM: no reply scripted for this request (the queue is empty)")

    async def _models(self, request: Request) -> Response:
        with self._lock:
            names = sorted({DEFAULT_MODEL} | {r.model for r in self._requests if r.model})
        data = [{"id": name, "object": "model", "created": 0, "owned_by": "fake"} for name in names]
        return JSONResponse({"object": "list", "data": data})

    async def _chat(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except json.JSONDecodeError:
            return _error_response(400, "request body is not JSON", {})
        if not isinstance(body, dict):
            return _error_response(400, "request body must be a JSON object", {})
        with self._lock:
            self._requests.append(RecordedRequest(request.url.path, body, dict(request.headers)))
        try:
            reply = self._next_reply(body)
        except Exception as exc:  # a handler bug should read as an HTTP error in the test, not kill the server
            reply = Reply.failure(500, f"fake LLM handler raised {type(exc).__name__}: {exc}")
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.status != 200:
            return _error_response(reply.status, reply.error or "error", reply.headers)
        model = str(body.get("model") or DEFAULT_MODEL)
        completion_id = f"chatcmpl-fake-{next(self._ids)}"
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(
                _stream(reply, body, model, completion_id, include_usage),
                media_type="text/event-stream",
                headers=reply.headers,
            )
        return JSONResponse(_completion(reply, body, model, completion_id), headers=reply.headers)


def _error_response(status: int, message: str, headers: dict[str, str]) -> Response:
    kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}.get(status)
    error = {"message": message, "type": kind or "server_error", "param": None, "code": str(status)}
    return JSONResponse({"error": error}, status_code=status, headers=headers)


def _tool_call_json(call: ToolCall, index: int) -> dict[str, Any]:
    arguments = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
    return {
        "id": call.id or f"call_fake_{index}",
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    }


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, int]:
    if reply.usage is not None:
        return dict(reply.usage)
    prompt = _estimate_tokens(body.get("messages", [])) + (_estimate_tokens(body["tools"]) if body.get("tools") else 0)
    completion = _estimate_tokens([reply.content or "", [c.name for c in reply.tool_calls]])
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _finish_reason(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def _completion(reply: Reply, body: dict[str, Any], model: str, completion_id: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [_tool_call_json(call, i) for i, call in enumerate(reply.tool_calls)]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(reply)}],
        "usage": _usage(reply, body),
    }


async def _stream(
    reply: Reply, body: dict[str, Any], model: str, completion_id: str, include_usage: bool
) -> AsyncIterator[bytes]:
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None) -> bytes:
        choices = [] if usage is not None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        payload: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": choices,
        }
        if usage is not None:
            payload["usage"] = usage
        return f"data: {json.dumps(payload)}\n\n".encode()

    yield chunk({"role": "assistant", "content": ""})
    text = reply.content or ""
    # A few pieces rather than one, so stream consumers that join deltas are actually exercised.
    for start in range(0, len(text), 16):
        yield chunk({"content": text[start : start + 16]})
    for index, call in enumerate(reply.tool_calls):
        full = _tool_call_json(call, index)
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": full["id"],
                        "type": "function",
                        "function": {"name": call.name, "arguments": ""},
                    }
                ]
            }
        )
        yield chunk({"tool_calls": [{"index": index, "function": {"arguments": full["function"]["arguments"]}}]})
    yield chunk({}, _finish_reason(reply))
    if include_usage:
        yield chunk({}, usage=_usage(reply, body))
    yield b"data: [DONE]\n\n"
