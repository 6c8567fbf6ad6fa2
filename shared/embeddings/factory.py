"""`create_embedder`: settings → an `Embedder` wrapped in the disk cache (or None for `none`).

Providers sit in a name → factory table; each factory imports its module when called, so choosing `ollama`
never imports the tokenizer and choosing `local` never imports httpx (STYLE rule 8).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from shared.embeddings.base import Embedder, EmbeddingError, EmbeddingSettings

LOCAL_MODEL = "all-MiniLM-L6-v2"
OLLAMA_DEFAULT_MODEL = "nomic-embed-text"


def _local(settings: EmbeddingSettings) -> Embedder:
    from shared.embeddings.local import LocalEmbedder
    from shared.embeddings.minilm_files import MINILM

    requested = settings.embedding_model
    # The local provider runs exactly one model; accept its usual spellings and refuse anything else rather
    # than silently embedding with a model the user did not ask for.
    if requested and requested.removeprefix("sentence-transformers/").lower() != LOCAL_MODEL.lower():
        raise EmbeddingError(
            f"EMBEDDING_MODEL={requested} is not available with EMBEDDING_PROVIDER=local, which runs {LOCAL_MODEL} "
            f"only; unset EMBEDDING_MODEL, or set EMBEDDING_PROVIDER=ollama to use other models."
        )
    # The weights are an optional package: say so now, in one sentence, rather than at the first search.
    MINILM.folder()
    return LocalEmbedder()


def _multilingual(settings: EmbeddingSettings) -> Embedder:
    from shared.embeddings.multilingual import MultilingualEmbedder

    requested = settings.embedding_model
    if requested and requested.lower() != MultilingualEmbedder.model:
        raise EmbeddingError(
            f"EMBEDDING_MODEL={requested} is not available with EMBEDDING_PROVIDER=multilingual, which runs "
            f"{MultilingualEmbedder.model} only; unset EMBEDDING_MODEL, or set EMBEDDING_PROVIDER=ollama to use other models."
        )
    return MultilingualEmbedder()


def _ollama(settings: EmbeddingSettings) -> Embedder:
    from shared.embeddings.ollama import OllamaEmbedder

    return OllamaEmbedder(host=settings.ollama_host, model=settings.embedding_model or OLLAMA_DEFAULT_MODEL)


PROVIDERS: dict[str, Callable[[EmbeddingSettings], Embedder]] = {
    "local": _local,
    "multilingual": _multilingual,
    "ollama": _ollama,
}
"""Provider name → factory. `none` is deliberately absent: it means "no embedder"."""


def cache_dir(settings: EmbeddingSettings) -> Path:
    """Where vectors are cached: `EMBEDDING_CACHE_DIR`, else `$ANNABELLE_HOME/data/embedding-cache`."""
    return settings.embedding_cache_dir or settings.data_dir / "embedding-cache"


def create_embedder(settings: EmbeddingSettings, *, cache: bool = True) -> Embedder | None:
    """The configured embedder behind the disk cache, or None when `EMBEDDING_PROVIDER=none`.

    Nothing heavy happens here: models load and servers are contacted on the first `embed` call.
    `cache=False` returns the bare provider (benchmarks measure the model, not the cache).
    """
    if settings.embedding_provider == "none":
        return None
    factory = PROVIDERS.get(settings.embedding_provider)
    if factory is None:
        known = ", ".join([*PROVIDERS, "none"])
        raise EmbeddingError(f"EMBEDDING_PROVIDER={settings.embedding_provider} is unknown; use one of {known}.")
    embedder = factory(settings)
    if not cache:
        return embedder
    from shared.embeddings.cache import CachedEmbedder

    return CachedEmbedder(embedder, cache_dir(settings))
