"""Benchmark: does the hub see that a request names the owner's record it would change?

A change to one of the owner's records that the request did not name waits for the owner (docs/security.md). The
hub matches words first (`orchestrator/approvals/records.py`); when they share none, the Memorizer's multilingual
encoder judges by meaning (`memorizer_mcp/naming.py`, `ABOUT_BAR`). Each pair of the sets is a request and a record:
`named: true` when the request is about that record, `false` when it is another record of the owner's (what a
confused model changed instead, the 1.5B model's real mistakes among them).

Printed per set: the share of named pairs seen as named (words alone, then words or meaning: each one missed is a
question to the owner that was not needed) and the share of other pairs taken as named (each one a change the
owner did not ask for that would run). `--fit` prints the bar chosen on the development set alone (its highest
unrelated cosine plus `MARGIN`); the held-out set is never fitted on. `--misses` lists the pairs judged wrong.

    python benchmarks/record_naming.py [--fit] [--misses]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memorizer_mcp.naming import ABOUT_BAR, MARGIN, about_score  # noqa: E402
from orchestrator.approvals.records import names_record  # noqa: E402
from shared.embeddings.multilingual import MultilingualEmbedder  # noqa: E402

SETS = {
    "dev": ROOT / "benchmarks/data/record_naming_dev.json",
    "holdout": ROOT / "benchmarks/data/record_naming_holdout.json",
}


@dataclass(frozen=True)
class Judged:
    pair: dict[str, Any]
    by_words: bool
    score: float


async def judge(pairs: list[dict[str, Any]], encoder: MultilingualEmbedder) -> list[Judged]:
    judged = []
    for pair in pairs:
        # Id 0 is never written in a request: only the words and the name count, as for a record read by the hub.
        by_words = names_record([pair["request"]], pair["kind"], 0, [pair["record"]])
        judged.append(Judged(pair, by_words, await about_score(encoder, [pair["request"]], pair["record"])))
    return judged


def rates(judged: list[Judged], bar: float) -> dict[str, Any]:
    named = [j for j in judged if j.pair["named"]]
    other = [j for j in judged if not j.pair["named"]]
    return {
        "named": len(named),
        "other": len(other),
        "named_seen_words": round(sum(j.by_words for j in named) / len(named), 3),
        "named_seen": round(sum(j.by_words or j.score >= bar for j in named) / len(named), 3),
        "other_taken_words": round(sum(j.by_words for j in other) / len(other), 3),
        "other_taken": round(sum(j.by_words or j.score >= bar for j in other) / len(other), 3),
        "highest_other_cosine": round(max(j.score for j in other), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="store_true", help="print the bar chosen on the development set")
    parser.add_argument("--misses", action="store_true", help="list the pairs judged wrong at the shipped bar")
    args = parser.parse_args()
    encoder = MultilingualEmbedder()
    results: dict[str, Any] = {}
    for name, path in SETS.items():
        pairs = json.loads(path.read_text(encoding="utf-8"))["pairs"]
        judged = asyncio.run(judge(pairs, encoder))
        results[name] = rates(judged, ABOUT_BAR)
        print(
            f"{name:8} named seen {results[name]['named_seen_words']:.3f} by words, {results[name]['named_seen']:.3f} "
            f"with meaning ({results[name]['named']} pairs); other taken {results[name]['other_taken_words']:.3f} by "
            f"words, {results[name]['other_taken']:.3f} with meaning ({results[name]['other']} pairs); highest other "
            f"cosine {results[name]['highest_other_cosine']:.3f}"
        )
        if name == "dev" and args.fit:
            fitted = math.ceil((max(j.score for j in judged if not j.pair["named"]) + MARGIN) * 100) / 100
            results["fitted_bar"] = fitted
            print(f"bar fitted on dev: {fitted:.2f} (shipped: {ABOUT_BAR:.2f})")
        if args.misses:
            for j in judged:
                seen = j.by_words or j.score >= ABOUT_BAR
                if seen != j.pair["named"]:
                    wrong = "missed" if j.pair["named"] else "taken"
                    print(
                        f"  {wrong:6} {j.pair['lang']} {j.score:.2f} {j.pair['request'][:60]!r} ~ {j.pair['record'][:50]!r}"
                    )
    print(json.dumps({"bar": ABOUT_BAR, **results}, ensure_ascii=False))


if __name__ == "__main__":
    main()
