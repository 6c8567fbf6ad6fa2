"""The embedder contract every provider implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from shared.settings import OllamaSettings

if TYPE_CHECKING:  # the hub imports this contract at start-up and must not pay for numpy there
    import numpy as np


class EmbeddingError(Exception):
    """Embedding failed (server unreachable, model missing, bad answer); the message says what to fix.

    Callers must treat it as "no vectors this time", never as a reason to lose a write.
    """


class EmbeddingSettings(OllamaSettings):
    embedding_provider: Literal["local", "multilingual", "ollama", "none"] = Field(
        default="multilingual",
        description=(
            "`multilingual` (USE v3, offline, 16 languages), `local` (all-MiniLM-L6-v2, English, offline, an "
            "optional package), `ollama`, or `none`."
        ),
    )
    embedding_model: str | None = Field(
        default=None,
        description="Model name for `ollama` (default nomic-embed-text); the offline providers run one model each.",
    )
    embedding_cache_dir: Path | None = Field(
        default=None, description="Vector cache folder; default $ANNABELLE_HOME/data/embedding-cache."
    )


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of one fixed dimension."""

    provider: str
    model: str
    languages: frozenset[str] | None = None
    """ISO 639-1 codes of the languages the model was trained on, where it says; None: unknown or about a hundred."""

    @property
    @abstractmethod
    def dimension(self) -> int:
        """Length of every vector (known without loading the model)."""

    @abstractmethod
    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed a batch: shape (len(texts), dimension), float32, each row of unit length.

        Raises `EmbeddingError` when the provider cannot answer.
        """

    async def prepare(self) -> None:
        """Load the model now, so that the first real `embed` does not wait for it.

        Safe to start in the background right after construction; a failure is the one `embed` would raise.
        The default embeds one short text; providers with a model in memory override it to just load.
        """
        await self.embed([" "])

    async def embed_one(self, text: str) -> np.ndarray:
        return (await self.embed([text]))[0]

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most providers hold nothing open
        """Release open files and connections (call at shutdown); a later `embed` opens them again."""

    @property
    def key(self) -> str:
        """`provider/model/dimension`: vectors from different keys are never compared or mixed."""
        return f"{self.provider}/{self.model}/{self.dimension}"
