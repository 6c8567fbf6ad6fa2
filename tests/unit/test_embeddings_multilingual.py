"""The multilingual provider: USE multilingual v3 from its wheel, lazy, across languages, and its refusals."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from shared.embeddings import EmbeddingError, EmbeddingSettings, create_embedder
from shared.embeddings.multilingual import MultilingualEmbedder
from shared.embeddings.multilingual_files import USE_MULTILINGUAL


@pytest.fixture(scope="module")
def embedder() -> Iterator[MultilingualEmbedder]:
    yield MultilingualEmbedder()


def test_construction_reads_nothing() -> None:
    embedder = MultilingualEmbedder(resources=Path("/nonexistent"))
    assert not embedder.loaded and embedder.dimension == USE_MULTILINGUAL.dimension == 512
    assert embedder.key == "multilingual/universal-sentence-encoder-multilingual-3/512"


async def test_prepare_loads_the_model_so_embedding_needs_no_load(embedder: MultilingualEmbedder) -> None:
    await embedder.prepare()
    assert embedder.loaded


async def test_vectors_are_float32_rows_of_unit_length_even_for_empty_text(embedder: MultilingualEmbedder) -> None:
    vectors = await embedder.embed(["Remind me at 9", "", "   ", "🙂", "x" * 50_000])
    assert vectors.shape == (5, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert (await embedder.embed([])).shape == (0, 512)


async def test_a_request_lands_near_its_translation_and_far_from_another_request(
    embedder: MultilingualEmbedder,
) -> None:
    english, russian, chinese, other = await embedder.embed(
        ["Remind me tomorrow morning to call my mother", "Напомни мне завтра утром позвонить маме",
         "明天早上提醒我给妈妈打电话", "What is the weather in Lisbon?"]
    )  # fmt: skip
    assert float(english @ russian) > 0.6 and float(english @ chinese) > 0.6
    assert float(english @ russian) > float(english @ other) + 0.3


async def test_a_damaged_model_file_is_refused_with_the_fix(tmp_path: Path) -> None:
    copy = tmp_path / "resources"
    shutil.copytree(USE_MULTILINGUAL.folder(), copy)
    (copy / "sp.model").write_bytes(b"not a model")
    embedder = MultilingualEmbedder(resources=copy)
    with pytest.raises(EmbeddingError, match=r"sp\.model is damaged.*make install"):
        await embedder.embed(["hello"])
    with pytest.raises(EmbeddingError, match="damaged"):  # remembered: the files are not hashed again
        await embedder.embed(["hello"])


async def test_a_copy_of_the_files_elsewhere_gives_the_same_vectors(
    tmp_path: Path, embedder: MultilingualEmbedder
) -> None:
    copy = tmp_path / "resources"
    shutil.copytree(USE_MULTILINGUAL.folder(), copy)
    moved = MultilingualEmbedder(resources=copy)
    text = ["Schick Anna eine Mail"]
    assert np.allclose(await moved.embed(text), await embedder.embed(text), atol=1e-6)
    assert set(USE_MULTILINGUAL.files) == {"weights.npz", "sp.model"}


def test_the_factory_offers_it_and_refuses_another_model_name() -> None:
    settings = EmbeddingSettings(embedding_provider="multilingual")
    assert isinstance(create_embedder(settings, cache=False), MultilingualEmbedder)
    with pytest.raises(EmbeddingError, match="runs universal-sentence-encoder-multilingual-3 only"):
        create_embedder(EmbeddingSettings(embedding_provider="multilingual", embedding_model="labse"), cache=False)
