"""A reader for the safetensors format with NumPy alone (the `safetensors` package would pull in nothing we
need beyond this page of code).

The format: an 8-byte little-endian header length N, then N bytes of JSON mapping each tensor name to
`{"dtype", "shape", "data_offsets": [begin, end]}` (offsets relative to the end of the header; an optional
`__metadata__` entry holds strings), then the raw little-endian data. The file is memory-mapped and every
tensor is a read-only view into it, so "loading" costs page faults on first touch, not a copy.
"""

from __future__ import annotations

import json
import mmap
import struct
from math import prod
from pathlib import Path

import numpy as np

from shared.embeddings.base import EmbeddingError

# Little-endian dtypes by safetensors name. BF16 has no NumPy equivalent and MiniLM does not use it.
_DTYPES: dict[str, np.dtype[np.generic]] = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}

# A header larger than this is not a model header but a damaged or hostile file (the format's own limit).
_MAX_HEADER_BYTES = 100 * 1024 * 1024


def parse_header(
    blob: bytes, file_size: int, source: str
) -> dict[str, tuple[np.dtype[np.generic], tuple[int, ...], int, int]]:
    """Validate the header at the start of `blob`; return name → (dtype, shape, absolute begin, absolute end).

    Pure: `blob` needs only the first 8 + N bytes. Every problem raises `EmbeddingError` naming `source`.
    """
    if len(blob) < 8:
        raise EmbeddingError(f"{source} is not a safetensors file (shorter than its 8-byte header length).")
    (length,) = struct.unpack("<Q", blob[:8])
    if length > _MAX_HEADER_BYTES or 8 + length > file_size or 8 + length > len(blob):
        raise EmbeddingError(f"{source} is not a valid safetensors file (header length {length} is impossible).")
    try:
        header = json.loads(blob[8 : 8 + length])
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EmbeddingError(f"{source} is not a valid safetensors file (its header is not JSON: {exc}).") from None
    if not isinstance(header, dict):
        raise EmbeddingError(f"{source} is not a valid safetensors file (its header is not a JSON object).")
    base = 8 + length
    tensors: dict[str, tuple[np.dtype[np.generic], tuple[int, ...], int, int]] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = _DTYPES[entry["dtype"]]
            shape = tuple(int(size) for size in entry["shape"])
            begin, end = (int(offset) for offset in entry["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise EmbeddingError(
                f"{source}: tensor {name!r} has an unreadable or unsupported entry {entry!r}."
            ) from None
        if any(size < 0 for size in shape) or not 0 <= begin <= end or base + end > file_size:
            raise EmbeddingError(f"{source}: tensor {name!r} points outside the file ({begin}..{end}).")
        if end - begin != prod(shape) * dtype.itemsize:
            raise EmbeddingError(
                f"{source}: tensor {name!r} has {end - begin} bytes but shape {list(shape)} of {entry['dtype']} "
                f"needs {prod(shape) * dtype.itemsize}."
            )
        tensors[name] = (dtype, shape, base + begin, base + end)
    return tensors


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Memory-map `path` and return its tensors as read-only NumPy views (the map lives as long as they do)."""
    try:
        with path.open("rb") as handle:
            size = path.stat().st_size
            if size < 8:
                raise EmbeddingError(f"{path} is not a safetensors file (it has only {size} bytes).")
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise EmbeddingError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    (length,) = struct.unpack("<Q", mapped[:8])
    entries = parse_header(mapped[: 8 + min(length, _MAX_HEADER_BYTES)], size, str(path))
    buffer = memoryview(mapped)
    return {
        name: np.frombuffer(buffer[begin:end], dtype=dtype).reshape(shape)
        for name, (dtype, shape, begin, end) in entries.items()
    }
