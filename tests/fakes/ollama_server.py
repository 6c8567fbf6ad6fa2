"""A fake Ollama embeddings server on 127.0.0.1, for tests of the `ollama` embedding provider.

It speaks the real protocol: `POST /api/embed` with `{"model", "input": str | [str]}` answers
`{"model", "embeddings": [[...]], ...}` in input order; an unknown model gets Ollama's own 404
`{"error": "model \\"x\\" not found, try pulling it first"}`; `GET /api/tags` lists the models and
`GET /api/version` answers a version. Vectors are deterministic: a pseudo-random unit vector seeded by a hash of
model and text, so a test can compute what it should receive (`vector_for`).

    with FakeOllama() as ollama:                    # or the `fake_ollama` fixture from tests.fakes.fixtures
        ollama.fail(500, "boom")                    # next request: HTTP 500 {"error": "boom"}
        ollama.slow(2.0)                            # then: a correct answer after 2 seconds
        ollama.wrong_count()                        # then: one vector fewer than asked
        ollama.send_raw(b"<html>")                  # then: a body that is not JSON
        ... OllamaEmbedder(host=ollama.url, model="nomic-embed-text")
        assert ollama.requests[0].inputs == ["hello"]

Scripted answers apply to the next requests in order; afterwards requests are answered normally. Every request
is recorded, whatever the answer. The server runs uvicorn on a background thread, on a free port.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.loopback import LoopbackServer

DEFAULT_MODELS: dict[str, int] = {"nomic-embed-text": 768, "all-minilm": 384, "mxbai-embed-large": 1024}


@dataclass(frozen=True)
class Answer:
    """One scripted answer: an HTTP error, a short count, or a raw body; optionally after a delay."""

    status: int = 200
    error: str | None = None
    delay: float = 0.0
    missing: int = 0
    raw: bytes | None = None


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    body: dict[str, Any]

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def inputs(self) -> list[str]:
        value = self.body.get("input")
        return [value] if isinstance(value, str) else list(value or [])


def _base_name(model: str) -> str:
    # Ollama treats `name` and `name:latest` as the same model.
    return model.removesuffix(":latest")


class FakeOllama(LoopbackServer):
    name = "fake-ollama"

    def __init__(self, models: dict[str, int] | None = None, *, scale: float = 1.0) -> None:
        """`models`: name → dimension it serves; `scale` ≠ 1 sends vectors that are not unit length."""
        self.models = dict(DEFAULT_MODELS if models is None else models)
        self.scale = scale
        self._queue: deque[Answer] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        super().__init__()
        self.app = Starlette(
            routes=[
                Route("/api/embed", self._embed, methods=["POST"]),
                Route("/api/tags", self._tags, methods=["GET"]),
                Route("/api/version", self._version, methods=["GET"]),
            ]
        )

    # --- scripting -------------------------------------------------------------------------------------------
    def script(self, *answers: Answer) -> FakeOllama:
        with self._lock:
            self._queue.extend(answers)
        return self

    def fail(self, status: int = 500, message: str = "", *, times: int = 1, delay: float = 0.0) -> FakeOllama:
        """The next `times` requests get HTTP `status` with Ollama's `{"error": message}` body."""
        return self.script(
            *[Answer(status=status, error=message or f"fake ollama error {status}", delay=delay)] * times
        )

    def slow(self, delay: float, *, times: int = 1) -> FakeOllama:
        """The next `times` requests are answered correctly, after `delay` seconds."""
        return self.script(*[Answer(delay=delay)] * times)

    def wrong_count(self, *, missing: int = 1, times: int = 1) -> FakeOllama:
        """The next `times` answers leave out the last `missing` vectors."""
        return self.script(*[Answer(missing=missing)] * times)

    def send_raw(self, body: bytes, *, status: int = 200) -> FakeOllama:
        """The next answer is `body` as is (e.g. not JSON)."""
        return self.script(Answer(status=status, raw=body))

    def recover(self) -> FakeOllama:
        """Drop the scripted answers not used yet: from now on every request is answered normally."""
        with self._lock:
            self._queue.clear()
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def vector_for(self, model: str, text: str) -> np.ndarray:
        """The vector this fake answers for `text` (unit length times `scale`)."""
        dimension = self.models[_base_name(model)]
        seed = int.from_bytes(hashlib.sha256(f"{_base_name(model)}\0{text}".encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(dimension)
        return (vector / np.linalg.norm(vector) * self.scale).astype(np.float32)

    # --- addresses and lifecycle ---------------------------------------------------------------------------------

    # --- protocol ----------------------------------------------------------------------------------------------
    async def _tags(self, request: Request) -> Response:
        models = [{"name": f"{name}:latest", "model": f"{name}:latest"} for name in sorted(self.models)]
        return JSONResponse({"models": models})

    async def _version(self, request: Request) -> Response:
        return JSONResponse({"version": "0.0.0-fake"})

    async def _embed(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except json.JSONDecodeError:
            return JSONResponse({"error": "invalid JSON in request body"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "request body must be a JSON object"}, status_code=400)
        with self._lock:
            self._requests.append(RecordedRequest(request.url.path, body))
            answer = self._queue.popleft() if self._queue else Answer()
        if answer.delay:
            await asyncio.sleep(answer.delay)
        if answer.raw is not None:
            return Response(answer.raw, status_code=answer.status, media_type="application/json")
        if answer.status != 200:
            return JSONResponse({"error": answer.error}, status_code=answer.status)
        model = str(body.get("model") or "")
        if _base_name(model) not in self.models:
            return JSONResponse({"error": f'model "{model}" not found, try pulling it first'}, status_code=404)
        inputs = body.get("input")
        texts = [inputs] if isinstance(inputs, str) else inputs
        if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
            return JSONResponse({"error": "invalid input type"}, status_code=400)
        vectors = [self.vector_for(model, text).tolist() for text in texts]
        if answer.missing:
            vectors = vectors[: max(0, len(vectors) - answer.missing)]
        return JSONResponse(
            {
                "model": model,
                "embeddings": vectors,
                "total_duration": 1000,
                "load_duration": 0,
                "prompt_eval_count": sum(len(text.split()) for text in texts),
            }
        )
