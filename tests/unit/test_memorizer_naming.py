"""The Memorizer's answer to the hub's question "is this request about that record?" (memorizer_mcp/naming.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from memorizer_mcp.naming import ABOUT_BAR, about, best_cosine
from shared.embeddings.base import Embedder, EmbeddingError
from shared.mcp_tools import ToolFailure


class Axes(Embedder):
    """Each known text is a fixed unit vector; anything else fails."""

    provider, model = "test", "axes"

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = {text: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for text, v in vectors.items()}

    @property
    def dimension(self) -> int:
        return 2

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if any(text not in self.vectors for text in texts):
            raise EmbeddingError("unknown text")
        return np.stack([self.vectors[text] for text in texts])


ENCODER = Axes({"record": [1, 0], "close": [1, 0.5], "far": [0, 1], "odd": [1, 10]})


async def test_the_closest_text_of_the_request_decides_against_the_bar() -> None:
    assert (await about(ENCODER, ["far", "close"], "record"))["about"] is True
    answer = await about(ENCODER, ["far", "odd"], "record")
    assert answer["about"] is False and answer["bar"] == ABOUT_BAR and answer["score"] < ABOUT_BAR


async def test_without_an_encoder_or_when_it_fails_there_is_no_answer_only_a_sentence() -> None:
    with pytest.raises(ToolFailure, match="words alone"):
        await about(None, ["close"], "record")
    with pytest.raises(ToolFailure, match="could not compare"):
        await about(ENCODER, ["never seen"], "record")


def test_best_cosine_of_no_text_is_zero() -> None:
    assert best_cosine(np.zeros((0, 2), dtype=np.float32), np.asarray([1.0, 0.0])) == 0.0
