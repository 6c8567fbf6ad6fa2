"""What the two offline providers share: a model read from package files once, on first use, in a worker thread.

The first `embed` (or `prepare`) call reads and checks the files; a failure is remembered, because reading and
hashing tens of megabytes again on every call would not change the answer until the files are reinstalled. One
forward pass runs at a time: NumPy's matrix products already use every core, and two passes at once would only
double the peak memory.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

import anyio.to_thread

from shared.embeddings.base import Embedder, EmbeddingError

if TYPE_CHECKING:
    import numpy as np

ModelT = TypeVar("ModelT")


class PackagedEmbedder(Embedder, Generic[ModelT]):
    def __init__(self) -> None:
        self._model: ModelT | None = None
        self._failure: EmbeddingError | None = None
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    async def prepare(self) -> None:
        await anyio.to_thread.run_sync(self._load)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np  # numpy stays out of importers that only name the class (the hub's diagnostics)

        batch = list(texts)
        if not batch:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return await anyio.to_thread.run_sync(self.embed_blocking, batch)

    @abstractmethod
    def embed_blocking(self, texts: Sequence[str]) -> np.ndarray:
        """The same as `embed`, on the calling thread (for benchmarks and scripts without an event loop)."""

    @abstractmethod
    def _read(self) -> ModelT:
        """Check and read the model files; `EmbeddingError` with the fix when they are missing or damaged."""

    def _load(self) -> ModelT:
        if self._model is not None:
            return self._model
        with self._load_lock:
            if self._model is not None:
                return self._model
            if self._failure is not None:
                raise self._failure
            try:
                self._model = self._read()
            except EmbeddingError as exc:
                self._failure = exc
                raise
            return self._model
