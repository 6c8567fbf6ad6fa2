"""The Ollama provider's pure parts (answer parsing, host and model names) and its requests through MockTransport."""

from __future__ import annotations

import json

import httpx
import numpy as np
import pytest

from shared.embeddings import EmbeddingError
from shared.embeddings.ollama import OllamaEmbedder, known_dimension, normalise_host, parse_embed_response

HOST = "http://ollama.test:11434"


def _parse(status: int, body: object, expected: int) -> np.ndarray:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return parse_embed_response(status, raw, expected, host=HOST, model="nomic-embed-text")


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://localhost:11434", "http://localhost:11434"),
        ("http://box:11434/", "http://box:11434"),
        ("localhost:11434", "http://localhost:11434"),
        ("  https://ollama.example/  ", "https://ollama.example"),
    ],
)
def test_ollama_host_is_accepted_in_the_forms_ollama_itself_accepts(given: str, expected: str) -> None:
    assert normalise_host(given) == expected


@pytest.mark.parametrize(
    ("model", "dimension"),
    [
        ("nomic-embed-text", 768),
        ("nomic-embed-text:latest", 768),
        ("mxbai-embed-large:335m", 1024),
        ("all-minilm:33m", 384),
        ("my-own-model", None),
    ],
)
def test_known_models_have_their_dimension_whatever_the_tag(model: str, dimension: int | None) -> None:
    assert known_dimension(model) == dimension


def test_a_good_answer_becomes_unit_float32_rows_in_order() -> None:
    vectors = _parse(200, {"model": "m", "embeddings": [[3, 4], [0, 2]]}, 2)
    assert vectors.dtype == np.float32
    assert np.allclose(vectors, [[0.6, 0.8], [0, 1]])


def test_a_zero_vector_stays_zero_instead_of_becoming_nan() -> None:
    assert np.array_equal(_parse(200, {"embeddings": [[0, 0]]}, 1), [[0, 0]])


@pytest.mark.parametrize(
    ("status", "body", "expected", "fragment"),
    [
        (
            404,
            {"error": 'model "nomic-embed-text" not found, try pulling it first'},
            1,
            "`ollama pull nomic-embed-text`",
        ),
        (404, b"404 page not found", 1, "check that OLLAMA_HOST points at Ollama"),
        (500, {"error": "llama runner process has terminated"}, 1, "HTTP 500 (llama runner process has terminated)"),
        (503, b"<html>busy</html>", 1, "HTTP 503 (<html>busy</html>)"),
        (200, b"<html>not ollama</html>", 1, "not JSON"),
        (200, {"embedding": [1, 2]}, 1, "no `embeddings` list"),
        (200, ["not", "an", "object"], 1, "no `embeddings` list"),
        (200, {"embeddings": [[1, 2]]}, 2, "returned 1 vectors for 2 texts"),
        (200, {"embeddings": [[1, 2], [1]]}, 2, "not lists of numbers"),
        (200, {"embeddings": [["a", "b"]]}, 1, "not lists of numbers"),
        (200, {"embeddings": [[]]}, 1, "zero lengths"),
        (200, {"embeddings": [1, 2]}, 2, "different or zero lengths"),
        (200, b'{"embeddings": [[NaN, 1]]}', 1, "NaN or infinity"),
    ],
)
def test_every_bad_answer_is_an_embedding_error_that_says_what_happened(
    status: int, body: object, expected: int, fragment: str
) -> None:
    with pytest.raises(EmbeddingError) as caught:
        _parse(status, body, expected)
    assert fragment in str(caught.value) and HOST in str(caught.value)


def _echo_handler(requests: list[dict[str, object]], width: int = 4) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        requests.append(body)
        texts = body["input"]
        return httpx.Response(200, json={"embeddings": [[float(len(text)) + 1.0] * width for text in texts]})

    return httpx.MockTransport(handle)


async def test_requests_go_to_api_embed_in_batches_of_at_most_64() -> None:
    seen: list[dict[str, object]] = []
    embedder = OllamaEmbedder(HOST, "all-minilm", transport=_echo_handler(seen, 384))
    vectors = await embedder.embed([f"text {i}" for i in range(150)])
    assert vectors.shape == (150, 384)
    assert [len(body["input"]) for body in seen] == [64, 64, 22]  # type: ignore[arg-type]
    assert all(body["model"] == "all-minilm" for body in seen)


async def test_an_answer_whose_dimension_differs_from_the_known_one_is_refused() -> None:
    embedder = OllamaEmbedder(HOST, "nomic-embed-text", transport=_echo_handler([], width=5))
    with pytest.raises(EmbeddingError, match="returned 5-dimensional vectors, expected 768"):
        await embedder.embed(["hello"])


def test_an_unknown_model_is_probed_once_for_its_dimension() -> None:
    calls: list[object] = []

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(json.loads(request.content))
        return httpx.Response(200, json={"embeddings": [[1.0, 0.0, 0.0]]})

    embedder = OllamaEmbedder(HOST, "my-own-model", probe_transport=httpx.MockTransport(handle))
    assert embedder.dimension == 3 and embedder.dimension == 3
    assert len(calls) == 1 and embedder.key == "ollama/my-own-model/3"


def test_a_dimension_given_by_the_caller_needs_no_probe() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request expected")

    embedder = OllamaEmbedder(HOST, "my-own-model", dimension=12, probe_transport=httpx.MockTransport(refuse))
    assert embedder.dimension == 12


async def test_an_empty_batch_sends_nothing() -> None:
    seen: list[dict[str, object]] = []
    embedder = OllamaEmbedder(HOST, transport=_echo_handler(seen))
    assert (await embedder.embed([])).shape == (0, 768)
    assert seen == []


async def test_a_transport_failure_other_than_refusal_or_timeout_is_still_one_sentence() -> None:
    def broken(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError("server hung up", request=request)

    embedder = OllamaEmbedder(HOST, transport=httpx.MockTransport(broken))
    with pytest.raises(
        EmbeddingError, match=r"Talking to Ollama at http://ollama.test:11434 failed \(RemoteProtocolError"
    ):
        await embedder.embed(["hello"])
