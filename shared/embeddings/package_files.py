"""Model files shipped inside an installed PyPI package: where they are and whether they are intact.

The package is located with `importlib.util.find_spec` and never imported (its `__init__` may import heavy
libraries). Free of NumPy, so the hub's diagnostics can check the files without loading a model runtime.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ModelPackage:
    """An embedding model whose files ship inside a PyPI package: what `minilm_files` and `multilingual_files`
    declare, and what the provider, the factory and the doctor read."""

    model: str
    """The model's name (the embedder's `model`, the doctor's findings)."""
    dimension: int
    module: str
    """The package's import name: located with `find_spec`, never imported."""
    subfolder: str
    """The folder inside the package that holds the files."""
    files: Mapping[str, str]
    """File name → sha256, as shipped in the pinned version."""
    fix: str
    """How to repair missing or damaged files: the end of every refusal's sentence."""
    missing: str
    """The one sentence when the package is not installed."""

    def folder(self) -> Path:
        """The files' folder in the installed package; `EmbeddingError(missing)` when it is not installed."""
        return package_folder(self.module, self.subfolder, self.missing)

    def verify(self, folder: Path) -> None:
        """Refuse `folder` when a file is missing or differs from its recorded hash (see `verify_files`)."""
        verify_files(folder, self.files, self.fix)
