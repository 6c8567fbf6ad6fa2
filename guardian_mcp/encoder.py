"""The fine-tuned encoder at scan time: tokenise windows, look up their embeddings, run the ONNX graph.

`Encoder.logits(texts)` → `(attack, kind)` logits, one per text (a window with its prefix), in batches. The
tokeniser and the frozen token-embedding table come from the multilingual base (`shared/embeddings/e5_base.py`); the rest of
the network (position embeddings, the first encoder layers, the heads) is the int8 ONNX file written by
`make guardian-train`, run by onnxruntime on the CPU. `prepare` is shared with training, so both read a window
the same way: `<s>` + at most `MAX_TOKENS − 2` word pieces + `</s>`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shared.embeddings.e5_base import BaseModel

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Tokenizer

MAX_TOKENS = 128
BATCH_WINDOWS = 16
_SPACES = re.compile(r" {2,}")


class TextPreparer:
    """Text → token ids exactly as the base's SentencePiece tokeniser would cut it."""

    def __init__(self, base: BaseModel) -> None:
        self.base = base
        self._table = base.normalisation()
        self._tokenizer: Tokenizer = base.tokenizer()

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        normalised = [_SPACES.sub(" ", text.translate(self._table)).strip() for text in texts]
        encoded = self._tokenizer.encode_batch(normalised, add_special_tokens=False)
        keep = MAX_TOKENS - 2
        return [[self.base.bos, *item.ids[:keep], self.base.eos] for item in encoded]

    def batch(self, ids: Sequence[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Padded embeddings (batch × length × hidden, float32) and the attention mask (float32)."""
        length = max(len(row) for row in ids)
        padded = np.full((len(ids), length), self.base.pad, dtype=np.int64)
        mask = np.zeros((len(ids), length), dtype=np.float32)
        for index, row in enumerate(ids):
            padded[index, : len(row)] = row
            mask[index, : len(row)] = 1.0
        return self.base.word_embeddings(padded), mask


class Encoder:
    """The ONNX network with its base; thread-safe (onnxruntime sessions are)."""

    def __init__(self, model_path: Path, base: BaseModel, *, threads: int = 0) -> None:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session: onnxruntime.InferenceSession = onnxruntime.InferenceSession(
            str(model_path), options, providers=["CPUExecutionProvider"]
        )
        self.base = base
        self._preparer: TextPreparer | None = None
        self._lock = threading.Lock()

    @property
    def preparer(self) -> TextPreparer:
        with self._lock:
            if self._preparer is None:
                self._preparer = TextPreparer(self.base)
            return self._preparer

    def logits(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Attack and kind logits of each text (batched by similar length, in the order given)."""
        if not texts:
            return np.zeros(0), np.zeros(0)
        preparer = self.preparer
        ids = preparer.ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        attack = np.zeros(len(ids))
        kind = np.zeros(len(ids))
        for start in range(0, len(order), BATCH_WINDOWS):
            chosen = order[start : start + BATCH_WINDOWS]
            embeddings, mask = preparer.batch([ids[i] for i in chosen])
            out_attack, out_kind = self.session.run(None, {"embeddings": embeddings, "mask": mask})
            attack[chosen] = out_attack
            kind[chosen] = out_kind
        return attack, kind
