"""The `ollama` provider: vectors from an Ollama server's `POST /api/embed`.

Request `{"model": M, "input": [texts]}`, answer `{"embeddings": [[...], ...]}` in input order; up to 64 texts
per request. Vectors are normalised here even though Ollama normalises them too, so the contract holds whatever
the server version. Every failure becomes an `EmbeddingError` whose sentence says what to do.

The dimension must be known before the first vector (the Memorizer creates its vector table from it): the
usual embedding models are in `KNOWN_DIMENSIONS`; for any other model the first use of `dimension` asks the
server once, with a one-word request.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import anyio.to_thread
import httpx
import numpy as np

from shared.embeddings.base import Embedder, EmbeddingError

DEFAULT_HOST = "http://localhost:11434"
DEFAULT_MODEL = "nomic-embed-text"
KNOWN_DIMENSIONS: dict[str, int] = {"nomic-embed-text": 768, "mxbai-embed-large": 1024, "all-minilm": 384}
BATCH_SIZE = 64
TIMEOUT_SECONDS = 60.0  # generous: the first request after a restart waits for Ollama to load the model
CONNECT_TIMEOUT_SECONDS = 5.0
_PROBE_TEXT = "dimension"


def normalise_host(host: str) -> str:
    """`OLLAMA_HOST` as Ollama itself accepts it (`localhost:11434`, `http://box:11434/`) → a base URL."""
    host = host.strip().rstrip("/")
    return host if "://" in host else f"http://{host}"


def known_dimension(model: str) -> int | None:
    """The dimension of a well-known model, whatever its tag (`nomic-embed-text:latest`, `all-minilm:33m`)."""
    return KNOWN_DIMENSIONS.get(model.split(":", 1)[0])


def _error_text(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip()[:300]
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        return str(data["error"])
    return str(data)[:300]


def parse_embed_response(status: int, body: bytes, expected: int, *, host: str, model: str) -> np.ndarray:
    """Turn one `/api/embed` answer into an (expected, dimension) float32 array of unit rows, or explain why not.

    Pure, so every kind of bad answer is tested without a server. A zero vector (which no real model
    produces) is left as zeros rather than divided by zero.
    """
    if status == 404:
        detail = _error_text(body)
        if "model" in detail.lower() and "not found" in detail.lower():
            raise EmbeddingError(
                f"Ollama at {host} does not have the model {model}: run `ollama pull {model}` on that machine, "
                f"or set EMBEDDING_MODEL to a model it has."
            )
        # Ollama before 0.3 has no /api/embed and answers Go's plain "404 page not found".
        raise EmbeddingError(
            f"Ollama at {host} answered 404 ({detail}): Ollama older than 0.3 has no /api/embed (upgrade it); "
            f"otherwise check that OLLAMA_HOST points at Ollama."
        )
    if status != 200:
        raise EmbeddingError(
            f"Ollama at {host} answered HTTP {status} ({_error_text(body)}); check its log, "
            f"or set EMBEDDING_PROVIDER=multilingual."
        )
    try:
        data: Any = json.loads(body)
    except ValueError:
        raise EmbeddingError(
            f"Ollama at {host} sent an answer that is not JSON; check that OLLAMA_HOST points at Ollama."
        ) from None
    rows = data.get("embeddings") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise EmbeddingError(
            f"Ollama at {host} sent no `embeddings` list; it may be too old for /api/embed (upgrade Ollama)."
        )
    if len(rows) != expected:
        raise EmbeddingError(f"Ollama at {host} returned {len(rows)} vectors for {expected} texts; try again.")
    try:
        vectors = np.array(rows, dtype=np.float32)
    except (TypeError, ValueError):
        raise EmbeddingError(f"Ollama at {host} returned vectors that are not lists of numbers.") from None
    if expected and (vectors.ndim != 2 or vectors.shape[1] == 0):
        raise EmbeddingError(f"Ollama at {host} returned vectors of different or zero lengths.")
    if not np.isfinite(vectors).all():
        raise EmbeddingError(f"Ollama at {host} returned vectors containing NaN or infinity.")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True) if expected else np.ones((0, 1), np.float32)
    return (vectors / np.where(norms > 0, norms, 1)).astype(np.float32)


class OllamaEmbedder(Embedder):
    provider = "ollama"

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        model: str = DEFAULT_MODEL,
        *,
        dimension: int | None = None,
        timeout: float = TIMEOUT_SECONDS,
        batch_size: int = BATCH_SIZE,
        transport: httpx.AsyncBaseTransport | None = None,
        probe_transport: httpx.BaseTransport | None = None,
    ) -> None:
        """`transport`/`probe_transport` replace the network for the async requests and the one-off probe."""
        self.host = normalise_host(host)
        self.model = model
        self._dimension = dimension or known_dimension(model)
        self._timeout = httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT_SECONDS))
        self._batch_size = batch_size
        self._transport = transport
        self._probe_transport = probe_transport

    @property
    def url(self) -> str:
        return f"{self.host}/api/embed"

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            # A model outside the table: ask once. Blocking, but it happens once per process, and the cache
            # wrapper asks from a worker thread.
            with httpx.Client(timeout=self._timeout, transport=self._probe_transport) as client:
                body = {"model": self.model, "input": [_PROBE_TEXT]}
                vectors = self._checked(lambda: client.post(self.url, json=body), 1)
            self._dimension = int(vectors.shape[1])
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        batch = list(texts)
        if not batch:
            width: int = await anyio.to_thread.run_sync(self._read_dimension)
            return np.zeros((0, width), dtype=np.float32)
        parts = []
        async with httpx.AsyncClient(timeout=self._timeout, transport=self._transport) as client:
            for start in range(0, len(batch), self._batch_size):
                chunk = batch[start : start + self._batch_size]
                try:
                    response = await client.post(self.url, json={"model": self.model, "input": chunk})
                except httpx.HTTPError as exc:
                    raise self._transport_error(exc) from None
                parts.append(self._parse(response, len(chunk)))
        return np.concatenate(parts)

    def _read_dimension(self) -> int:
        return self.dimension

    def _checked(self, send: Callable[[], httpx.Response], expected: int) -> np.ndarray:
        try:
            response = send()
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from None
        return self._parse(response, expected)

    def _parse(self, response: httpx.Response, expected: int) -> np.ndarray:
        vectors = parse_embed_response(
            response.status_code, response.content, expected, host=self.host, model=self.model
        )
        width = int(vectors.shape[1])
        if self._dimension is None:
            self._dimension = width
        elif width != self._dimension:
            raise EmbeddingError(
                f"Ollama's {self.model} at {self.host} returned {width}-dimensional vectors, expected "
                f"{self._dimension}; set EMBEDDING_MODEL to the model you mean."
            )
        return vectors

    def _transport_error(self, exc: httpx.HTTPError) -> EmbeddingError:
        if isinstance(exc, httpx.ConnectError):
            return EmbeddingError(
                f"Ollama is not reachable at {self.host}; start it (`ollama serve`) or set EMBEDDING_PROVIDER=multilingual."
            )
        if isinstance(exc, httpx.TimeoutException):
            return EmbeddingError(
                f"Ollama at {self.host} did not answer within {self._timeout.read:g} s; it may be overloaded "
                f"or still loading {self.model}. Try again, or set EMBEDDING_PROVIDER=multilingual."
            )
        return EmbeddingError(f"Talking to Ollama at {self.host} failed ({type(exc).__name__}: {exc}).")
