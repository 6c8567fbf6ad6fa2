"""An install upgraded to the one-model Memorizer: a store written with all-MiniLM-L6-v2 (`EMBEDDING_PROVIDER=local`,
the default before), reopened by a real `python -m memorizer_mcp` with the new default (the multilingual encoder).
Its facts are embedded again in the background, search answers meanwhile, and no MiniLM vector is left to be
compared with a multilingual one."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import sqlean as sqlite3
from mcp import Client, StdioServerParameters

from shared.embeddings.base import EmbeddingError
from shared.embeddings.minilm_files import INSTALL, MINILM

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
FACTS = ("The user lives in Lisbon.", "The user's sister Ana is a nurse.", "The user plays the cello on Sundays.")


def minilm_installed() -> bool:
    try:
        MINILM.folder()
    except EmbeddingError:
        return False
    return True


def memorizer(home: Path, tmp_path: Path, **settings: str) -> StdioServerParameters:
    env = {key: value for key, value in os.environ.items() if key != "EMBEDDING_PROVIDER"}
    env |= {
        "ANNABELLE_HOME": str(home),
        "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"),
        "FACT_EXTRACTION_ENABLED": "false",
        "UTILITY_MODEL": "",
        **settings,
    }
    return StdioServerParameters(command=sys.executable, args=["-m", "memorizer_mcp"], env=env, cwd=str(REPO_ROOT))


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert envelope["success"], envelope
    data: dict[str, Any] = envelope["data"]
    return data


def vector_keys(home: Path) -> list[tuple[str, int]]:
    conn = sqlite3.connect(str(home / "data" / "memory.db"))
    try:
        rows = conn.execute("SELECT embedder_key, COUNT(*) FROM fact_vectors GROUP BY 1 ORDER BY 1").fetchall()
    finally:
        conn.close()
    return [(str(key), int(count)) for key, count in rows]


@pytest.mark.skipif(not minilm_installed(), reason=f"the optional MiniLM weights are not installed ({INSTALL})")
async def test_a_store_written_with_minilm_is_embedded_again_with_the_default_encoder(
    annabelle_home: Path, tmp_path: Path
) -> None:
    async with Client(memorizer(annabelle_home, tmp_path, EMBEDDING_PROVIDER="local")) as client:
        for fact in FACTS:
            await call(client, "store_fact", fact=fact, category="background", provenance="owner")
    assert vector_keys(annabelle_home) == [("local/all-MiniLM-L6-v2/384", 3)]

    async with Client(memorizer(annabelle_home, tmp_path)) as client:
        # Straight after start: answered, by text while the facts are embedded again, or by vectors once done.
        first = await call(client, "retrieve_memories", query="Where does the user live?", limit=1)
        for _ in range(600):
            stats = (await call(client, "get_memory_stats"))["search_capabilities"]
            if not stats["reembedding_in_progress"]:
                break
            await asyncio.sleep(0.05)
        # Portuguese, sharing no word with the fact: only the multilingual vectors find it.
        found = await call(client, "retrieve_memories", query="Onde mora o utilizador?", limit=1)

    assert first["search_mode"] in ("fts", "hybrid") and first["facts"][0]["fact"] == FACTS[0]
    if first["search_mode"] == "fts":
        assert "embedded again" in first["note"]
    assert stats["embedding_provider"] == "multilingual/universal-sentence-encoder-multilingual-3/512"
    assert (stats["facts_with_vectors"], stats["facts_missing_vectors"]) == (3, 0)
    assert found["search_mode"] == "hybrid" and found["facts"][0]["fact"] == FACTS[0]
    assert vector_keys(annabelle_home) == [("multilingual/universal-sentence-encoder-multilingual-3/512", 3)]
    log_lines = (annabelle_home / "logs" / "memorizer.log").read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["msg"] == "facts embedded again" for line in log_lines)
