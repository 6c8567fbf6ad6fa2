"""A disk cache of vectors in front of any `Embedder`: a text is embedded once per provider and model.

One SQLite file per provider and model under the cache folder (`local-all-MiniLM-L6-v2.sqlite`, ...). Rows are
keyed by sha256 of (provider, model, text) and hold the float32 vector bytes. A `meta` table records the
provider, model, dimension and cache format the file was written for; when any of them differs from the
embedder opening it (a model that changed its dimension, two names that map to one file, a new format), the
file is emptied rather than trusted. The file is a cache, so that is its whole migration story.

Two processes may share a file (the Memorizer and the Thinker do): WAL journal, a busy timeout, and writes in
short transactions. A cache problem never fails an embed: a file that is not a database is replaced; any other
error is logged and the call goes straight to the provider. The oldest rows are dropped once the file holds more
than `max_entries` vectors (first in, first out).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from contextlib import suppress
from pathlib import Path

import anyio.to_thread
import numpy as np

from shared.embeddings.base import Embedder
from shared.private_files import private_file
from shared.sqlite import immediate

log = logging.getLogger(__name__)

CACHE_FORMAT = "1"
"""Bumped when the row layout changes: files of another format are emptied on open."""

MAX_ENTRIES = 200_000
"""About 300 MB of 384-dimensional vectors (600 MB at 768): years of messages and facts for one person."""

_BUSY_TIMEOUT_MS = 5_000
_LOOKUP_CHUNK = 500  # well under SQLite's limit on bound parameters per statement
_PRUNE_EVERY = 1_000  # rows written between two checks of the file's size


def cache_key(provider: str, model: str, text: str) -> bytes:
    """sha256 of the three, JSON-encoded so that no choice of strings can collide with another."""
    return hashlib.sha256(json.dumps([provider, model, text], ensure_ascii=False).encode("utf-8")).digest()


def cache_file_name(provider: str, model: str) -> str:
    """A readable file name per provider and model; characters a file name should not hold become `_`."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"{provider}-{model}") + ".sqlite"


class _Store:
    """The SQLite file, used from worker threads one call at a time."""

    def __init__(self, path: Path, provider: str, model: str, dimension: int) -> None:
        self.path = path
        self.dimension = dimension
        self._meta = {"provider": provider, "model": model, "dimension": str(dimension), "format": CACHE_FORMAT}
        self._written_since_check = 0
        self.connection = self._connect()

    def _connect(self) -> sqlite3.Connection:
        private_file(self.path)
        connection = sqlite3.connect(
            self.path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")  # a lost last write costs one re-embedding
            with immediate(connection):
                connection.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
                connection.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
                recorded = dict(connection.execute("SELECT name, value FROM meta").fetchall())
                if recorded != self._meta:
                    if recorded:
                        log.info(
                            "embedding cache emptied: written for another model",
                            extra={"file": str(self.path), "was": recorded, "now": self._meta},
                        )
                    connection.execute("DELETE FROM vectors")
                    connection.execute("DELETE FROM meta")
                    connection.executemany("INSERT INTO meta (name, value) VALUES (?, ?)", self._meta.items())
        except BaseException:
            connection.close()
            raise
        return connection

    def lookup(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        size = self.dimension * 4
        for start in range(0, len(keys), _LOOKUP_CHUNK):
            chunk = keys[start : start + _LOOKUP_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self.connection.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk)
            for key, blob in rows:
                # A row of the wrong size cannot be this model's vector: treat it as a miss, it gets rewritten.
                if isinstance(blob, bytes) and len(blob) == size:
                    found[key] = np.frombuffer(blob, dtype="<f4")
        return found

    def store(self, rows: Iterable[tuple[bytes, np.ndarray]], max_entries: int) -> None:
        payload = [(key, np.asarray(vector, dtype="<f4").tobytes()) for key, vector in rows]
        with immediate(self.connection):
            self.connection.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", payload)
        self._written_since_check += len(payload)
        if self._written_since_check >= min(_PRUNE_EVERY, max_entries):
            self._written_since_check = 0
            self.prune(max_entries)

    def prune(self, max_entries: int) -> None:
        with immediate(self.connection):
            (count,) = self.connection.execute("SELECT count(*) FROM vectors").fetchone()
            if count > max_entries:
                self.connection.execute(
                    "DELETE FROM vectors WHERE rowid IN (SELECT rowid FROM vectors ORDER BY rowid LIMIT ?)",
                    (count - max_entries,),
                )

    def close(self) -> None:
        self.connection.close()


def _is_corrupt(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text)


class CachedEmbedder(Embedder):
    """Answers from the cache file where it can, and asks `inner` only for the texts it has not seen."""

    def __init__(self, inner: Embedder, directory: Path, *, max_entries: int = MAX_ENTRIES) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.model = inner.model
        self.languages = inner.languages
        self.path = directory / cache_file_name(inner.provider, inner.model)
        self.max_entries = max_entries
        self._store: _Store | None = None
        self._lock = threading.Lock()

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        batch = list(texts)
        if not batch:
            return await self.inner.embed([])
        keys = [cache_key(self.provider, self.model, text) for text in batch]
        unique = list(dict.fromkeys(keys))
        found = await anyio.to_thread.run_sync(self._lookup, unique)
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, batch, strict=True):
            if key not in found:
                missing.setdefault(key, text)
        if missing:
            fresh = await self.inner.embed(list(missing.values()))
            fresh_rows = list(zip(missing, fresh, strict=True))
            found.update(fresh_rows)
            await anyio.to_thread.run_sync(self._store_rows, fresh_rows)
        out = np.empty((len(batch), self.dimension), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = found[key]
        return out

    async def prepare(self) -> None:
        await self.inner.prepare()

    async def aclose(self) -> None:
        await anyio.to_thread.run_sync(self._close)
        await self.inner.aclose()

    # --- worker-thread side -----------------------------------------------------------------------------------
    def _open(self) -> _Store:
        if self._store is not None:
            return self._store
        # The dimension may need a provider round trip (an Ollama model not in the known table); an
        # EmbeddingError from it is the provider's failure and propagates, it is not a cache problem.
        dimension = self.inner.dimension
        try:
            self._store = _Store(self.path, self.provider, self.model, dimension)
        except sqlite3.Error as exc:
            if not _is_corrupt(exc):
                raise
            log.warning("embedding cache file is damaged; starting a new one", extra={"file": str(self.path)})
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            self._store = _Store(self.path, self.provider, self.model, dimension)
        return self._store

    def _lookup(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        with self._lock:
            try:
                return self._open().lookup(keys)
            except (sqlite3.Error, OSError) as exc:
                self._forget(exc, "read")
                return {}

    def _store_rows(self, rows: Sequence[tuple[bytes, np.ndarray]]) -> None:
        with self._lock:
            try:
                self._open().store(rows, self.max_entries)
            except (sqlite3.Error, OSError) as exc:
                self._forget(exc, "write")

    def _forget(self, exc: BaseException, action: str) -> None:
        # Drop the connection so the next call opens the file afresh (and replaces it if it went bad meanwhile).
        log.warning(
            f"embedding cache {action} failed; continuing without the cache for this call",
            extra={"file": str(self.path), "error": f"{type(exc).__name__}: {exc}"},
        )
        self._close_store()

    def _close(self) -> None:
        with self._lock:
            self._close_store()

    def _close_store(self) -> None:
        if self._store is not None:
            store, self._store = self._store, None
            with suppress(sqlite3.Error):
                store.close()
