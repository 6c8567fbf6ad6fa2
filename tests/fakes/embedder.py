"""A deterministic fake `Embedder` for tests: hashed bag of words, so texts sharing words are close.

Each word (lower-cased letters and digits, a trailing plural "s" dropped) adds ±1 to one of `dimension`
coordinates chosen by a stable hash; the sum is scaled to unit length. "likes green tea" and "green tea lover"
share two coordinates, "owns a bicycle" shares none: cosine similarity then behaves like a crude semantic one,
with no model and no randomness between runs.

    embedder = FakeEmbedder()
    embedder.fail_with = EmbeddingError("down")   # every later call raises it
    embedder.calls                                # the batches it was asked to embed
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from shared.embeddings.base import Embedder

_WORD = re.compile(r"[^\W_]+")


def _bucket(word: str, dimension: int) -> tuple[int, float]:
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dimension, 1.0 if value & (1 << 63) else -1.0


def _word(raw: str) -> str:
    return raw[:-1] if len(raw) > 3 and raw.endswith("s") else raw


class FakeEmbedder(Embedder):
    provider = "fake"
    model = "hashed-bag-of-words"

    def __init__(self, dimension: int = 384) -> None:
        self._dimension = dimension
        self.calls: list[list[str]] = []
        self.fail_with: Exception | None = None
        self.closed = False

    @property
    def dimension(self) -> int:
        return self._dimension

    def vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self._dimension, dtype=np.float32)
        for raw in _WORD.findall(text.lower()):
            index, sign = _bucket(_word(raw), self._dimension)
            vector[index] += sign
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            # A text without words still gets a unit vector (the contract), the same one every time.
            vector[0] = 1.0
            return vector
        return vector / norm

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if self.fail_with is not None:
            raise self.fail_with
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        return np.stack([self.vector(text) for text in texts]).astype(np.float32)

    async def aclose(self) -> None:
        self.closed = True
