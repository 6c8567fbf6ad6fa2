"""Benchmark: Memorizer search latency at 1k, 10k and 100k facts, the query embedding, and store_fact throughput.

Facts are generated (sentences drawn from a fixed vocabulary) with random unit vectors (512-d, the
multilingual encoder's width; 384-d with `--embedder local`) written straight
into `fact_vectors`: nothing is embedded while building, so 100k facts take seconds. All timings are ratios to
baselines measured in the same run:

- search: `Memory.retrieve` (`retrieve_memories` minus the MCP hop: query vector → in-memory k-NN, FTS5 BM25,
  hybrid ranking, fetching rows, touching last_accessed_at, the conversation LIKE) with the query vector handed
  over ready-made, against a plain sqlite-vec `vec0` brute-force k-NN over the same vectors in the same file.
  The in-memory k-NN alone and FTS5 alone are shown as components; the first search of a size also loads the
  matrix from SQLite, reported as `load_ms`. Target: retrieve p50 ≤ 25 ms at 100k.
- query embedding: the real embedder (the multilingual encoder, or all-MiniLM-L6-v2 with `--embedder local`,
  through `shared.embeddings`, without its disk cache) on short queries, timed separately; its first call (model load) is reported apart.
- store_fact: `Memory.store_fact` (secret filter, exact dedup, similarity check, insert, FTS trigger, vector)
  into each size's database with a hashing embedder (no model cost), against plain one-row INSERT transactions
  into a bare table in the same file.

    python benchmarks/memory.py [--sizes 1000,10000,100000] [--queries 300] [--stores 300]
        [--embedder multilingual|local]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.latency import summary  # noqa: E402
from memorizer_mcp.facts import vector_blob  # noqa: E402
from memorizer_mcp.service import Memory  # noqa: E402
from memorizer_mcp.settings import MemorizerSettings  # noqa: E402
from shared.contracts.memory import FACT_CATEGORIES  # noqa: E402
from shared.embeddings.base import Embedder  # noqa: E402
from tests.fakes.embedder import FakeEmbedder  # noqa: E402

DIMENSIONS = {"multilingual": 512, "local": 384}
AGENT = "annabelle"
K = 15  # retrieve_memories asks each side for limit × 3 with the default limit of 5
SUBJECTS = ("The user", "Ana", "Her sister", "The team", "My neighbour", "The client", "Tom", "The landlord")
VERBS = ("likes", "visits", "plans", "avoids", "collects", "prefers", "mentions", "builds", "reads", "cooks")


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 9))))
    return sorted(words)


def sentence(rng: random.Random, words: Sequence[str]) -> str:
    nouns = " and ".join(rng.sample(words, rng.randint(1, 3)))
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {nouns} on {rng.choice(words)} {rng.randint(1, 99)}"


def unit_rows(rng: np.random.Generator, count: int, dimension: int) -> np.ndarray:
    rows = rng.standard_normal((count, dimension)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


class HandedEmbedder(Embedder):
    """Returns the vectors it is handed, in order: the search timing then excludes any model."""

    provider = "bench"
    model = "random"

    def __init__(self, dimension: int) -> None:
        self.queue: list[np.ndarray] = []
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.queue.pop(0) for _ in texts])


def settings_for(folder: Path) -> MemorizerSettings:
    return MemorizerSettings(
        annabelle_home=folder,
        memory_db_path=folder / "memory.db",
        embedding_provider="none",
        fact_extraction_enabled=False,
        _env_file=None,  # type: ignore[call-arg]
    )


def build(memory: Memory, key: str, size: int, seed: int, dimension: int) -> tuple[list[str], float]:
    """Insert `size` generated facts with random vectors; returns the vocabulary and the seconds it took."""
    rng = random.Random(seed)
    words = vocabulary(rng)
    vectors = unit_rows(np.random.default_rng(seed), size, dimension)
    now = memory.now()
    started = time.perf_counter()
    with memory.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO facts (agent_id, fact, category, source, confidence, created_at, updated_at,"
            " last_accessed_at) VALUES (?, ?, ?, NULL, 1.0, ?, ?, ?)",
            ((AGENT, sentence(rng, words), rng.choice(FACT_CATEGORIES), now, now, now) for _ in range(size)),
        )
        conn.executemany(
            "INSERT INTO fact_vectors (fact_id, embedder_key, vector, created_at) VALUES (?, ?, ?, ?)",
            ((i + 1, key, vector_blob(vectors[i]), now) for i in range(size)),
        )
        conn.execute(f"CREATE VIRTUAL TABLE bench_vec USING vec0(embedding float[{dimension}])")
        conn.executemany(
            "INSERT INTO bench_vec (rowid, embedding) VALUES (?, ?)",
            ((i + 1, vector_blob(vectors[i])) for i in range(size)),
        )
        for i in range(min(size, 500)):
            conn.execute(
                "INSERT INTO conversations (id, agent_id, user_message, agent_response, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (f"conv_{i}", AGENT, sentence(rng, words), sentence(rng, words), now),
            )
    return words, time.perf_counter() - started


async def measure_size(size: int, queries: int, stores: int, folder: Path, dimension: int) -> dict[str, Any]:
    embedder = HandedEmbedder(dimension)
    memory = Memory.open(settings_for(folder), embedder)
    words, build_s = build(memory, embedder.key, size, size, dimension)
    rng = random.Random(7)
    query_vectors = unit_rows(np.random.default_rng(11), queries + 1, dimension)
    query_texts = [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(queries + 1)]

    # First search: loads this agent's matrix from SQLite.
    embedder.queue.append(query_vectors[0])
    started = time.perf_counter()
    await memory.retrieve(AGENT, query_texts[0], 5, True)
    first_s = time.perf_counter() - started

    retrieve, knn, fts, vec0 = [], [], [], []
    for vector, text in zip(query_vectors[1:], query_texts[1:], strict=True):
        embedder.queue.append(vector)
        started = time.perf_counter()
        await memory.retrieve(AGENT, text, 5, True)
        retrieve.append(time.perf_counter() - started)

        started = time.perf_counter()
        memory._vector_scores(AGENT, vector, K)
        knn.append(time.perf_counter() - started)

        started = time.perf_counter()
        memory.facts.text_scores(AGENT, text, K)
        fts.append(time.perf_counter() - started)

        started = time.perf_counter()
        with memory.db.reading() as conn:
            conn.execute(
                "SELECT rowid, distance FROM bench_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
                (vector_blob(vector), K),
            ).fetchall()
        vec0.append(time.perf_counter() - started)

    # Writes: the full store path against bare one-row INSERT transactions, in the same file.
    hashing = FakeEmbedder(dimension)
    memory.embedder = hashing
    texts = [sentence(rng, words) for _ in range(stores)]
    started = time.perf_counter()
    for text in texts:
        await memory.store_fact(AGENT, text, rng.choice(FACT_CATEGORIES), None)
    store_s = time.perf_counter() - started
    memory.db.conn.execute("CREATE TABLE bench_plain (id INTEGER PRIMARY KEY, agent_id TEXT, fact TEXT, category TEXT)")
    started = time.perf_counter()
    for text in texts:
        with memory.db.transaction() as conn:
            conn.execute(
                "INSERT INTO bench_plain (agent_id, fact, category) VALUES (?, ?, ?)", (AGENT, text, "pattern")
            )
    plain_s = time.perf_counter() - started
    memory.close()

    result: dict[str, Any] = {
        "facts": size,
        "build_s": round(build_s, 2),
        "load_ms": round(first_s * 1000, 1),
        "retrieve": summary(retrieve),
        "vector_knn_in_memory": summary(knn),
        "fts5": summary(fts),
        "baseline_vec0_knn": summary(vec0),
        "store_fact_per_s": round(stores / store_s, 1),
        "baseline_insert_per_s": round(stores / plain_s, 1),
    }
    base = result["baseline_vec0_knn"]["p50_ms"]
    result["retrieve_p50_over_vec0_p50"] = round(result["retrieve"]["p50_ms"] / base, 3)
    result["knn_p50_over_vec0_p50"] = round(result["vector_knn_in_memory"]["p50_ms"] / base, 3)
    result["store_over_insert"] = round(result["store_fact_per_s"] / result["baseline_insert_per_s"], 3)
    return result


async def measure_query_embedding(count: int, provider: str) -> dict[str, Any]:
    """The real embedder on short queries (no disk cache), or why it could not run."""
    try:
        from shared.embeddings import EmbeddingSettings, create_embedder

        embedder = create_embedder(EmbeddingSettings(embedding_provider=provider, _env_file=None), cache=False)  # type: ignore[call-arg]
        assert embedder is not None
        started = time.perf_counter()
        await embedder.embed_one("warm up the model")
        load_s = time.perf_counter() - started
        rng = random.Random(3)
        samples = []
        for _ in range(count):
            query = f"what does {rng.choice(SUBJECTS).lower()} {rng.choice(VERBS)} on weekends"
            started = time.perf_counter()
            await embedder.embed_one(query)
            samples.append(time.perf_counter() - started)
        await embedder.aclose()
    except Exception as exc:
        return {"available": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"available": True, "embedder": embedder.key, "first_call_s": round(load_s, 2), **summary(samples)}


def print_table(rows: list[dict[str, Any]], embedding: dict[str, Any]) -> None:
    out = sys.stdout
    out.write(f"{'facts':>8} {'retrieve p50/p99':>18} {'knn p50':>8} {'fts p50':>8} {'vec0 p50/p99':>16} "
              f"{'ratio':>6} {'load':>7} {'store/s':>8} {'insert/s':>9}\n")  # fmt: skip
    for r in rows:
        out.write(
            f"{r['facts']:>8} {r['retrieve']['p50_ms']:>8.2f}/{r['retrieve']['p99_ms']:<8.2f} "
            f"{r['vector_knn_in_memory']['p50_ms']:>8.2f} {r['fts5']['p50_ms']:>8.2f} "
            f"{r['baseline_vec0_knn']['p50_ms']:>7.2f}/{r['baseline_vec0_knn']['p99_ms']:<8.2f} "
            f"{r['retrieve_p50_over_vec0_p50']:>6.2f} {r['load_ms']:>5.0f}ms {r['store_fact_per_s']:>8.0f} "
            f"{r['baseline_insert_per_s']:>9.0f}\n"
        )
    if embedding["available"]:
        out.write(
            f"query embedding ({embedding['embedder']}): p50 {embedding['p50_ms']:.2f} ms, "
            f"p99 {embedding['p99_ms']:.2f} ms, first call {embedding['first_call_s']} s\n"
        )
    else:
        out.write(f"query embedding: not measured ({embedding['error']})\n")


async def main(sizes: list[int], queries: int, stores: int, provider: str) -> dict[str, Any]:
    dimension = DIMENSIONS[provider]
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="memory-bench-") as folder:
            rows.append(await measure_size(size, queries, stores, Path(folder), dimension))
    embedding = await measure_query_embedding(min(queries, 100), provider)
    print_table(rows, embedding)
    return {"sizes": {str(r["facts"]): r for r in rows}, "query_embedding": embedding, "k": K, "dimension": dimension}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated fact counts")
    parser.add_argument("--queries", type=int, default=300, help="searches per size")
    parser.add_argument("--stores", type=int, default=300, help="store_fact calls per size")
    parser.add_argument("--embedder", choices=tuple(DIMENSIONS), default="multilingual", help="query embedder")
    args = parser.parse_args()
    outcome = asyncio.run(main([int(s) for s in args.sizes.split(",")], args.queries, args.stores, args.embedder))
    print(json.dumps(outcome))
