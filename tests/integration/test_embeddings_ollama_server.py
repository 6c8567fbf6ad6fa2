"""The Ollama provider against a fake Ollama server on 127.0.0.1: answers, and every way it can fail."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest

from shared.embeddings import EmbeddingError, EmbeddingSettings, create_embedder
from shared.embeddings.cache import CachedEmbedder
from shared.embeddings.ollama import OllamaEmbedder
from tests.fakes.ollama_server import FakeOllama

pytest_plugins = ["tests.fakes.fixtures"]


async def test_vectors_come_back_in_order_normalised_and_as_float32() -> None:
    with FakeOllama(scale=3.0) as ollama:
        embedder = OllamaEmbedder(ollama.url, "nomic-embed-text")
        texts = ["hello", "", "Zürich ☕", "hello"]
        vectors = await embedder.embed(texts)
    assert vectors.shape == (4, 768) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    for text, vector in zip(texts, vectors, strict=True):
        assert np.allclose(vector, ollama.vector_for("nomic-embed-text", text) / 3.0, atol=1e-6)
    assert ollama.requests[0].path == "/api/embed" and ollama.requests[0].inputs == texts


async def test_a_large_batch_is_split_into_requests_of_64(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake_ollama.url, "all-minilm")
    vectors = await embedder.embed([f"fact {i}" for i in range(130)])
    assert vectors.shape == (130, 384)
    assert [len(request.inputs) for request in fake_ollama.requests] == [64, 64, 2]
    assert np.allclose(vectors[129], fake_ollama.vector_for("all-minilm", "fact 129"), atol=1e-6)


async def test_a_missing_model_says_to_pull_it(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder(fake_ollama.url, "mxbai-embed-large")
    fake_ollama.models.pop("mxbai-embed-large")
    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["hello"])
    assert "run `ollama pull mxbai-embed-large`" in str(caught.value)


async def test_a_server_error_is_reported_with_ollamas_own_message(fake_ollama: FakeOllama) -> None:
    fake_ollama.fail(500, "llama runner process has terminated: signal: killed")
    embedder = OllamaEmbedder(fake_ollama.url)
    with pytest.raises(EmbeddingError, match=r"HTTP 500 \(llama runner process has terminated: signal: killed\)"):
        await embedder.embed(["hello"])
    assert (await embedder.embed(["hello"])).shape == (1, 768)  # the next request is fine again


async def test_a_short_answer_is_refused_rather_than_misaligned(fake_ollama: FakeOllama) -> None:
    fake_ollama.wrong_count()
    with pytest.raises(EmbeddingError, match="returned 2 vectors for 3 texts"):
        await OllamaEmbedder(fake_ollama.url).embed(["a", "b", "c"])


async def test_an_answer_that_is_not_json_is_refused(fake_ollama: FakeOllama) -> None:
    fake_ollama.send_raw(b"<html>proxy error</html>")
    with pytest.raises(EmbeddingError, match="not JSON; check that OLLAMA_HOST points at Ollama"):
        await OllamaEmbedder(fake_ollama.url).embed(["a"])


async def test_a_slow_server_times_out_with_a_sentence(fake_ollama: FakeOllama) -> None:
    fake_ollama.slow(1.0)
    embedder = OllamaEmbedder(fake_ollama.url, timeout=0.2)
    with pytest.raises(EmbeddingError, match=r"did not answer within 0.2 s"):
        await embedder.embed(["a"])


async def test_a_slow_answer_within_the_timeout_is_fine(fake_ollama: FakeOllama) -> None:
    fake_ollama.slow(0.2)
    assert (await OllamaEmbedder(fake_ollama.url, timeout=5).embed(["a"])).shape == (1, 768)


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_server_that_is_not_running_is_reported_with_the_way_out() -> None:
    host = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(EmbeddingError) as caught:
        await OllamaEmbedder(host).embed(["a"])
    assert str(caught.value) == (
        f"Ollama is not reachable at {host}; start it (`ollama serve`) or set EMBEDDING_PROVIDER=multilingual."
    )


def test_probing_an_unknown_model_against_a_stopped_server_is_an_embedding_error() -> None:
    embedder = OllamaEmbedder(f"127.0.0.1:{_closed_port()}", "my-own-model")
    with pytest.raises(EmbeddingError, match="not reachable"):
        _ = embedder.dimension


async def test_an_unknown_model_learns_its_dimension_from_one_probe(fake_ollama: FakeOllama) -> None:
    fake_ollama.models["house-model"] = 17
    embedder = OllamaEmbedder(fake_ollama.url, "house-model:latest")
    assert embedder.dimension == 17
    assert len(fake_ollama.requests) == 1
    assert (await embedder.embed(["x"])).shape == (1, 17)


async def test_the_factory_builds_a_cached_ollama_embedder_from_settings(
    fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    settings = EmbeddingSettings(
        embedding_provider="ollama", ollama_host=fake_ollama.url, embedding_cache_dir=tmp_path / "cache"
    )
    embedder = create_embedder(settings)
    assert isinstance(embedder, CachedEmbedder) and embedder.key == "ollama/nomic-embed-text/768"
    first = await embedder.embed(["remember the milk", "and the eggs"])
    second = await embedder.embed(["and the eggs", "remember the milk"])
    assert np.array_equal(first[::-1], second)
    assert len(fake_ollama.requests) == 1  # the second call was answered from the cache
    await embedder.aclose()
