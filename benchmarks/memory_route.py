"""The figures behind the encoder route's floors (memorizer_mcp/attributes.py), from the tuned and development
update sets only (benchmarks/data/memory_updates.json, memory_updates_dev4.json, memory_updates_dev5.json; the
held-out sets are never read).

Every sequence's facts (the benchmark's filler facts for its language, then its steps) are parsed and each step
is judged by the rules (memorizer_mcp.decisions.judge, without similarities) against every fact before it, as the
store path does. The pairs the encoder judges again (`attributes.for_encoder`) are labelled *update* when the
older fact is an earlier step of the same update sequence, *other* when it is a filler or a step of a control
sequence. For each pair: the two facts' cosine, the attribute the route finds (with both facts' scores on the
attribute closest to either), and its verdict. Printed: per class, how many pairs, how many the route calls an
update, and the quantiles of the cosine and of the lower attribute score; then the other pairs it calls an update
(each a fact that would stop being current wrongly).

    python benchmarks/memory_route.py [--fillers 8]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.memory_thresholds import quantiles  # noqa: E402
from memorizer_mcp import attributes, claims  # noqa: E402
from memorizer_mcp.decisions import judge  # noqa: E402
from shared.embeddings import EmbeddingSettings, create_embedder  # noqa: E402

DATA = REPO_ROOT / "benchmarks" / "data"
SETS = (DATA / "memory_updates.json", DATA / "memory_updates_dev4.json", DATA / "memory_updates_dev5.json")


def route_pairs(data: dict[str, Any], filler_count: int) -> list[tuple[str, str, bool, str]]:
    """(older fact, newer fact, is an update, sequence id) for every pair the encoder judges again."""
    pairs = []
    for index, sequence in enumerate(data["sequences"]):
        pool = data["fillers"][sequence["lang"]]
        fillers = [pool[(index + k) % len(pool)] for k in range(min(filler_count, len(pool)))]
        earlier = [(filler, False) for filler in fillers]
        for step in sequence["steps"]:
            new = claims.parse(step)
            for old_text, same in earlier:
                old = claims.parse(old_text)
                if attributes.for_encoder(new, old, judge(new, old)):
                    pairs.append((old_text, step, same, sequence["id"]))
            earlier.append((step, sequence["kind"] != "control"))
    return pairs


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fillers", type=int, default=8, help="filler facts per sequence, as memory_updates.py")
    args = parser.parse_args()
    pairs = [pair for path in SETS for pair in route_pairs(json.loads(path.read_text("utf-8")), args.fillers)]
    settings = EmbeddingSettings(embedding_provider="multilingual", _env_file=None)  # type: ignore[call-arg]
    encoder = create_embedder(settings, cache=False)
    assert encoder is not None
    prototypes = attributes.Prototypes.from_batch(np.asarray(await encoder.embed(attributes.prototype_texts())))
    texts = list(dict.fromkeys(text for old, new, _, _ in pairs for text in (old, new)))
    vectors = dict(zip(texts, np.asarray(await encoder.embed(texts), dtype=np.float32), strict=True))
    differences = [attributes.Difference.of(old, new) for old, new, _, _ in pairs]
    words = list(dict.fromkeys(w for d in differences for w in d.vector_words))
    word_vectors = dict(zip(words, np.asarray(await encoder.embed(words), dtype=np.float32), strict=True))
    await encoder.aclose()
    rows: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for (old, new, same, sequence), difference in zip(pairs, differences, strict=True):
        a, b = vectors[old], vectors[new]
        scores_a, scores_b = prototypes.attributes @ a, prototypes.attributes @ b
        top = int(np.argmax(np.maximum(scores_a, scores_b)))
        found = attributes.shared_attribute(a, b, difference, prototypes)
        verdict = attributes.judge_difference(found, difference, word_vectors, prototypes) if found else None
        rows[same].append(
            {
                "sequence": sequence,
                "old": old,
                "new": new,
                "cosine": round(float(a @ b), 3),
                "attribute": attributes.ATTRIBUTES[top].name,
                "attribute_score": round(float(min(scores_a[top], scores_b[top])), 3),
                "update": bool(verdict and verdict.update),
                "reason": verdict.reason if verdict else "no one-value attribute in common",
            }
        )
    summary: dict[str, Any] = {"sets": [path.name for path in SETS]}
    for same, name in ((True, "update_pairs"), (False, "other_pairs")):
        group = rows[same]
        summary[name] = {
            "pairs": len(group),
            "judged_update": sum(1 for r in group if r["update"]),
            "cosine": quantiles([r["cosine"] for r in group]),
            "attribute_score": quantiles([r["attribute_score"] for r in group]),
        }
        print(f"{name}: {summary[name]}")
    summary["update_pairs"]["missed"] = [r["sequence"] for r in rows[True] if not r["update"]]
    summary["other_pairs"]["wrongly_updated"] = [
        {key: r[key] for key in ("sequence", "old", "new", "cosine", "reason")} for r in rows[False] if r["update"]
    ]
    print(f"missed updates: {summary['update_pairs']['missed']}")
    print(f"other pairs called an update: {summary['other_pairs']['wrongly_updated']}")
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
