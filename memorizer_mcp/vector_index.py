"""Nearest-neighbour search over fact vectors held in RAM as one float32 matrix per (embedder key, agent).

SQLite's `fact_vectors` table is the store of record; a matrix is loaded from it on the first search for its
(key, agent) and then kept in step by the write paths (`upsert`, `remove`). Search is an exact brute-force
`matrix @ query` (the vectors are unit length, so that is the cosine similarity) plus a partial sort: about
5 ms for 100k × 384 on two cores, against ~40 ms for sqlite-vec's `vec0` brute force (see benchmarks/memory.py).
Memory cost is the matrix itself: 1.5 KB per fact at 384 dimensions.

Removal swaps the last row into the freed slot, so the matrix stays dense and every operation is O(1)
amortised (plus the search itself). Spare rows: an eighth at load, then growth by a quarter.

Facts that are no longer current (superseded, kept as history) keep their row with a flag: a search for current
facts only scores them -inf, so they never crowd current ones out of the top k.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

import numpy as np

INITIAL_CAPACITY = 256

Loader = Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""Returns `(ids int64 (n,), vectors float32 (n, dim), current bool (n,))` read from the store of record."""


class AgentMatrix:
    def __init__(self, dimension: int, ids: np.ndarray, vectors: np.ndarray, current: np.ndarray | None = None) -> None:
        self.dimension = dimension
        count = len(ids)
        capacity = max(INITIAL_CAPACITY, count + count // 8)
        self._matrix = np.zeros((capacity, dimension), dtype=np.float32)
        self._ids = np.zeros(capacity, dtype=np.int64)
        self._current = np.zeros(capacity, dtype=bool)
        self._matrix[:count] = vectors
        self._ids[:count] = ids
        self._current[:count] = True if current is None else current
        self._size = count
        self._rows = {int(fact_id): row for row, fact_id in enumerate(ids)}

    def __len__(self) -> int:
        return self._size

    def __contains__(self, fact_id: int) -> bool:
        return fact_id in self._rows

    def upsert(self, fact_id: int, vector: np.ndarray, current: bool = True) -> None:
        row = self._rows.get(fact_id)
        if row is None:
            if self._size == len(self._ids):
                self._grow()
            row = self._size
            self._size += 1
            self._rows[fact_id] = row
            self._ids[row] = fact_id
        self._matrix[row] = vector
        self._current[row] = current

    def set_current(self, fact_id: int, current: bool) -> None:
        row = self._rows.get(fact_id)
        if row is not None:
            self._current[row] = current

    def remove(self, fact_id: int) -> None:
        row = self._rows.pop(fact_id, None)
        if row is None:
            return
        last = self._size - 1
        if row != last:
            moved = int(self._ids[last])
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._current[row] = self._current[last]
            self._rows[moved] = row
        self._size = last

    def top_k(self, query: np.ndarray, k: int, *, current_only: bool = True) -> list[tuple[int, float]]:
        """`(fact id, cosine similarity)` of the `k` nearest vectors (of current facts only, by default), best first."""
        if self._size == 0 or k <= 0:
            return []
        scores = self._matrix[: self._size] @ query
        if current_only:
            scores = np.where(self._current[: self._size], scores, -np.inf)
        best = np.argpartition(-scores, k - 1)[:k] if k < self._size else np.arange(self._size)
        ordered = best[np.lexsort((self._ids[best], -scores[best]))]
        return [(int(self._ids[row]), float(scores[row])) for row in ordered if np.isfinite(scores[row])]

    def _grow(self) -> None:
        # 1.25×, not 2×: at 100k facts the matrix is 150 MB, and doubling it for one more fact would be wasteful.
        capacity = len(self._ids) + max(INITIAL_CAPACITY, len(self._ids) // 4)
        matrix = np.zeros((capacity, self.dimension), dtype=np.float32)
        matrix[: self._size] = self._matrix[: self._size]
        ids = np.zeros(capacity, dtype=np.int64)
        ids[: self._size] = self._ids[: self._size]
        current = np.zeros(capacity, dtype=bool)
        current[: self._size] = self._current[: self._size]
        self._matrix, self._ids, self._current = matrix, ids, current


class VectorIndex:
    """All loaded matrices, keyed by (embedder key, agent id). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._matrices: dict[tuple[str, str], AgentMatrix] = {}

    def loaded(self, key: str, agent_id: str) -> bool:
        with self._lock:
            return (key, agent_id) in self._matrices

    def search(
        self,
        key: str,
        agent_id: str,
        dimension: int,
        query: np.ndarray,
        k: int,
        loader: Loader,
        *,
        current_only: bool = True,
    ) -> list[tuple[int, float]]:
        with self._lock:
            matrix = self._matrices.get((key, agent_id))
            if matrix is None:
                # Loaded under the lock, so a write that lands meanwhile either is in the rows read or is applied
                # after (writers commit to SQLite first, then take this lock to update a loaded matrix).
                ids, vectors, current = loader()
                matrix = self._matrices[(key, agent_id)] = AgentMatrix(dimension, ids, vectors, current)
            return matrix.top_k(np.asarray(query, dtype=np.float32), k, current_only=current_only)

    def upsert(self, key: str, agent_id: str, items: Iterable[tuple[int, np.ndarray, bool]]) -> None:
        """Apply stored vectors (with whether each fact is current) to the matrix of (key, agent) if it is loaded
        (else the next load reads them)."""
        with self._lock:
            matrix = self._matrices.get((key, agent_id))
            if matrix is None:
                return
            for fact_id, vector, current in items:
                matrix.upsert(fact_id, vector, current)

    def set_current(self, agent_id: str, fact_ids: Iterable[int], current: bool) -> None:
        """Mark facts current or not in every loaded matrix of the agent."""
        ids = list(fact_ids)
        with self._lock:
            for (_key, owner), matrix in self._matrices.items():
                if owner == agent_id:
                    for fact_id in ids:
                        matrix.set_current(fact_id, current)

    def remove(self, agent_id: str, fact_ids: Iterable[int]) -> None:
        """Forget these facts in every loaded matrix of the agent, whatever the key."""
        ids = list(fact_ids)
        with self._lock:
            for (_key, owner), matrix in self._matrices.items():
                if owner == agent_id:
                    for fact_id in ids:
                        matrix.remove(fact_id)

    def size(self, key: str, agent_id: str) -> int | None:
        with self._lock:
            matrix = self._matrices.get((key, agent_id))
            return None if matrix is None else len(matrix)

    def clear(self) -> None:
        with self._lock:
            self._matrices.clear()
