"""Model files shipped inside an installed PyPI package: where they are and whether they are intact.

The package is located with `importlib.util.find_spec` and never imported (its `__init__` may import heavy
libraries). Free of NumPy, so the hub's diagnostics can check the files without loading a model runtime.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Mapping
from pathlib import Path

from shared.embeddings.base import EmbeddingError


def package_folder(module: str, subfolder: str, missing: str) -> Path:
    """`subfolder` inside the installed package `module`; `EmbeddingError(missing)` when it is not installed."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise EmbeddingError(missing)
    return Path(locations[0]) / subfolder


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, as hex (read in chunks: model files are hundreds of MB)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def verify_files(folder: Path, expected: Mapping[str, str], fix: str) -> None:
    """Refuse a folder whose files are missing or differ from the recorded hashes, naming the file and the fix:
    a damaged or substituted file would otherwise give quietly wrong vectors."""
    for name, digest in expected.items():
        path = folder / name
        try:
            actual = file_sha256(path)
        except OSError as exc:
            raise EmbeddingError(
                f"Cannot read the embedding model file {path} ({exc.strerror or exc}); {fix}."
            ) from None
        if actual != digest:
            raise EmbeddingError(
                f"The embedding model file {path} is damaged or not the expected version (sha256 {actual}, "
                f"expected {digest}); {fix}."
            )
