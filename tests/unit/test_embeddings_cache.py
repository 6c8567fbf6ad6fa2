"""The disk cache: hits and misses, invalidation when the model changes, and never failing an embed."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from shared.embeddings import Embedder, EmbeddingError
from shared.embeddings.cache import CachedEmbedder, cache_file_name, cache_key


class CountingEmbedder(Embedder):
    """Deterministic vectors from a hash of the text; records every batch it is asked for."""

    def __init__(self, provider: str = "fake", model: str = "m1", dimension: int = 8) -> None:
        self.provider = provider
        self.model = model
        self._dimension = dimension
        self.batches: list[list[str]] = []
        self.fail_with: EmbeddingError | None = None
        self.closed = False

    @property
    def dimension(self) -> int:
        return self._dimension

    def vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(f"{self.model}|{text}".encode()).digest()[:8], "little")
        raw = np.random.default_rng(seed).standard_normal(self._dimension)
        return (raw / np.linalg.norm(raw)).astype(np.float32)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail_with is not None:
            raise self.fail_with
        self.batches.append(list(texts))
        return np.array([self.vector(text) for text in texts], dtype=np.float32).reshape(-1, self._dimension)

    async def aclose(self) -> None:
        self.closed = True

    @property
    def texts_embedded(self) -> list[str]:
        return [text for batch in self.batches for text in batch]


def _sqlite_files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("*.sqlite"))


def _overwrite_with_garbage(path: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"\0garbage" * 512)


def test_cache_keys_depend_on_provider_model_and_text_without_ambiguity() -> None:
    assert cache_key("a", "b", "c") == cache_key("a", "b", "c")
    assert (
        len({cache_key("a", "b", "c"), cache_key("a", "bc", ""), cache_key("ab", "", "c"), cache_key("a", "c", "b")})
        == 4
    )


def test_cache_file_names_are_readable_and_safe() -> None:
    assert cache_file_name("local", "all-MiniLM-L6-v2") == "local-all-MiniLM-L6-v2.sqlite"
    assert cache_file_name("ollama", "library/nomic:latest") == "ollama-library_nomic_latest.sqlite"


async def test_only_misses_reach_the_provider_in_one_batch_and_duplicates_once(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, tmp_path)
    first = await cache.embed(["a", "b", "a"])
    assert inner.batches == [["a", "b"]]
    second = await cache.embed(["b", "c", "a", "c"])
    assert inner.batches == [["a", "b"], ["c"]]
    for text, vector in zip(["b", "c", "a", "c"], second, strict=True):
        assert np.array_equal(vector, inner.vector(text))
    assert np.array_equal(first[0], first[2]) and second.dtype == np.float32
    await cache.aclose()
    assert inner.closed


async def test_a_new_process_finds_the_vectors_on_disk(tmp_path: Path) -> None:
    await CachedEmbedder(CountingEmbedder(), tmp_path).embed(["remember me"])
    later = CountingEmbedder()
    vectors = await CachedEmbedder(later, tmp_path).embed(["remember me"])
    assert later.batches == [] and np.array_equal(vectors[0], later.vector("remember me"))


async def test_the_cache_wrapper_keeps_the_providers_identity(tmp_path: Path) -> None:
    cache = CachedEmbedder(CountingEmbedder("ollama", "nomic-embed-text", 768), tmp_path)
    assert (cache.provider, cache.model, cache.dimension) == ("ollama", "nomic-embed-text", 768)
    assert cache.key == "ollama/nomic-embed-text/768"
    assert cache.path == tmp_path / "ollama-nomic-embed-text.sqlite"
    assert (await cache.embed([])).shape == (0, 768)


async def test_each_model_has_its_own_file_and_vectors_never_mix(tmp_path: Path) -> None:
    one, two = CountingEmbedder(model="m1"), CountingEmbedder(model="m2")
    await CachedEmbedder(one, tmp_path).embed(["same text"])
    vector = await CachedEmbedder(two, tmp_path).embed_one("same text")
    assert two.batches == [["same text"]] and np.array_equal(vector, two.vector("same text"))
    assert _sqlite_files(tmp_path) == ["fake-m1.sqlite", "fake-m2.sqlite"]


async def test_a_file_written_for_another_dimension_is_emptied(tmp_path: Path) -> None:
    await CachedEmbedder(CountingEmbedder(dimension=8), tmp_path).embed(["text"])
    wider = CountingEmbedder(dimension=16)
    vector = await CachedEmbedder(wider, tmp_path).embed_one("text")
    assert wider.batches == [["text"]] and vector.shape == (16,)
    with sqlite3.connect(tmp_path / "fake-m1.sqlite") as connection:
        assert connection.execute("SELECT count(*) FROM vectors").fetchone() == (1,)
        assert dict(connection.execute("SELECT name, value FROM meta"))["dimension"] == "16"


async def test_two_models_whose_names_share_a_file_invalidate_each_other(tmp_path: Path) -> None:
    # "m:1" and "m/1" both become fake-m_1.sqlite; the meta row notices that the file was not written for "m/1".
    first = CountingEmbedder(model="m:1")
    await CachedEmbedder(first, tmp_path).embed(["text"])
    second = CountingEmbedder(model="m/1")
    vector = await CachedEmbedder(second, tmp_path).embed_one("text")
    assert second.batches == [["text"]] and np.array_equal(vector, second.vector("text"))


async def test_a_file_that_is_not_a_database_is_replaced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "fake-m1.sqlite").write_bytes(b"this is not a database, just some bytes" * 100)
    inner = CountingEmbedder()
    with caplog.at_level(logging.WARNING, logger="shared.embeddings.cache"):
        vectors = await CachedEmbedder(inner, tmp_path).embed(["a"])
    assert np.array_equal(vectors[0], inner.vector("a"))
    assert "damaged" in caplog.text
    again = CountingEmbedder()
    await CachedEmbedder(again, tmp_path).embed(["a"])
    assert again.batches == []  # the replacement file works as a cache


async def test_a_row_of_the_wrong_size_is_a_miss_and_is_rewritten(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, tmp_path)
    await cache.embed(["a"])
    await cache.aclose()
    with sqlite3.connect(tmp_path / "fake-m1.sqlite") as connection:
        connection.execute("UPDATE vectors SET vector = ?", (b"short",))
    vector = await cache.embed_one("a")
    assert inner.batches == [["a"], ["a"]] and np.array_equal(vector, inner.vector("a"))
    assert (await CachedEmbedder(CountingEmbedder(), tmp_path).embed_one("a")).shape == (8,)


async def test_an_unusable_cache_folder_never_fails_an_embed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, blocker / "cache")
    with caplog.at_level(logging.WARNING, logger="shared.embeddings.cache"):
        first = await cache.embed(["a", "b"])
        second = await cache.embed(["a"])
    assert np.array_equal(first[0], second[0])
    assert inner.batches == [["a", "b"], ["a"]]
    assert "continuing without the cache" in caplog.text


async def test_a_file_damaged_while_open_is_skipped_then_replaced(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, tmp_path)
    await cache.embed(["a"])
    await cache.aclose()
    _overwrite_with_garbage(cache.path)
    assert np.array_equal(await cache.embed_one("a"), inner.vector("a"))
    assert np.array_equal(await cache.embed_one("a"), inner.vector("a"))
    assert inner.batches == [["a"], ["a"]]  # re-embedded once after the damage, then cached again


async def test_provider_errors_pass_through_and_nothing_is_cached(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    inner.fail_with = EmbeddingError("Ollama is not reachable")
    cache = CachedEmbedder(inner, tmp_path)
    with pytest.raises(EmbeddingError, match="not reachable"):
        await cache.embed(["a"])
    inner.fail_with = None
    await cache.embed(["a"])
    assert inner.batches == [["a"]]


async def test_two_writers_on_one_file_at_once_both_succeed(tmp_path: Path) -> None:
    # Two wrappers are two connections, as two processes would have; WAL and the busy timeout let them share.
    left, right = CountingEmbedder(), CountingEmbedder()
    texts = [f"text {i}" for i in range(300)]

    async def run(embedder: CountingEmbedder, order: list[str]) -> None:
        cache = CachedEmbedder(embedder, tmp_path)
        for start in range(0, len(order), 7):
            vectors = await cache.embed(order[start : start + 7])
            for text, vector in zip(order[start : start + 7], vectors, strict=True):
                assert np.array_equal(vector, embedder.vector(text))
        await cache.aclose()

    await asyncio.gather(run(left, texts), run(right, texts[::-1]))
    with sqlite3.connect(tmp_path / "fake-m1.sqlite") as connection:
        assert connection.execute("SELECT count(*) FROM vectors").fetchone() == (300,)
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


async def test_the_oldest_vectors_go_when_the_file_is_full(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cache = CachedEmbedder(inner, tmp_path, max_entries=5)
    await cache.embed([f"old {i}" for i in range(5)])
    await cache.embed([f"new {i}" for i in range(5)])
    await cache.embed(["old 0", "new 4"])
    assert inner.batches[-1] == ["old 0"]  # "new 4" survived, "old 0" had been pruned
