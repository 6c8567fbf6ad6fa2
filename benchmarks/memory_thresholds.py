"""Derive the Memorizer's cosine thresholds for an embedder from the tuned update set, and only from it.

The update rules (memorizer_mcp/decisions.py) ask an embedder whether two values are "of the same kind", and the
store path (memorizer_mcp/service.py) takes vector neighbours above a floor as candidates to compare with. Both
thresholds belong to the embedder's cosine space, so changing the embedder means deriving them again. This script
does it from benchmarks/data/memory_updates.json (the tuned set; the held-out sets are never read):

- **pairs**: every sequence's facts (the benchmark's filler facts for its language, then its steps) are parsed
  (memorizer_mcp.claims) and each step is judged (memorizer_mcp.decisions.judge) against every fact before it,
  recording the value pairs the rules ask the embedder about, as the Memorizer does: English word spans with
  the word similarity, claim values in other languages with `ValueSimilarity`. A pair is labelled *same kind*
  when the older fact is an earlier step of the same update sequence (the fact the new one changes), *other*
  when it is a filler or a step of a control sequence (facts that must stand side by side).
  The threshold is the midpoint between the two classes where they do not overlap, else the cut with the fewest
  errors (then the midpoint of the gap around it), reported with both classes' quantiles.
- **neighbour floor**: the cosine between each step and the earlier steps of its own update sequence (the facts
  its comparison must see), and between each step and the filler facts (which it need not see). The floor is the
  lowest same-sequence cosine rounded down to a multiple of 0.05, so that no step of the tuned set loses the fact
  it changes; the share of filler pairs above it shows how many unrelated neighbours still get compared.

    python benchmarks/memory_thresholds.py [--embedder multilingual|local] [--fillers 8]

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from memorizer_mcp import claims  # noqa: E402
from memorizer_mcp.decisions import ValueSimilarity, judge  # noqa: E402
from shared.embeddings import EmbeddingSettings, create_embedder  # noqa: E402
from shared.embeddings.base import Embedder  # noqa: E402

TUNED = REPO_ROOT / "benchmarks" / "data" / "memory_updates.json"


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    same: bool
    english: bool
    """Compared as English word spans (the word similarity), else as claim values (ValueSimilarity)."""


def asked_pairs(
    data: dict[str, Any], filler_count: int
) -> tuple[list[Pair], list[tuple[str, str]], list[tuple[str, str]]]:
    """The labelled value pairs the rules ask about; the (step, earlier step) pairs of each update sequence; the
    (step, filler) pairs."""
    pairs: list[Pair] = []
    neighbours: list[tuple[str, str]] = []
    strangers: list[tuple[str, str]] = []
    for index, sequence in enumerate(data["sequences"]):
        pool = data["fillers"][sequence["lang"]]
        fillers = [pool[(index + k) % len(pool)] for k in range(min(filler_count, len(pool)))]
        update = sequence["kind"] != "control"
        earlier: list[tuple[str, bool]] = [(filler, False) for filler in fillers]
        for step in sequence["steps"]:
            new = claims.parse(step)
            for old_text, same in earlier:
                old = claims.parse(old_text)
                english = new.language == "en" and old.language == "en"
                words: list[tuple[str, str]] = []
                values: list[tuple[str, str]] = []

                def note_words(a: str, b: str, words: list[tuple[str, str]] = words) -> float | None:
                    words.append((a, b))
                    return None

                def note_values(a: str, b: str, values: list[tuple[str, str]] = values) -> float | None:
                    values.append((a, b))
                    return None

                if english:
                    judge(new, old, note_words)
                else:
                    judge(new, old, lambda _a, _b: None, ValueSimilarity(note_values))
                pairs += [Pair(a, b, same, True) for a, b in words]
                pairs += [Pair(a, b, same, False) for a, b in values]
                if same:
                    neighbours.append((step, old_text))
                elif old_text in fillers:
                    strangers.append((step, old_text))
            earlier.append((step, update))
    return pairs, neighbours, strangers


async def cosines(embedder: Embedder, pairs: Sequence[tuple[str, str]]) -> list[float]:
    texts = list(dict.fromkeys(text for pair in pairs for text in pair))
    vectors = np.asarray(await embedder.embed(texts), dtype=np.float32)
    position = {text: i for i, text in enumerate(texts)}
    return [float(vectors[position[a]] @ vectors[position[b]]) for a, b in pairs]


def quantiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    array = np.asarray(values)
    return {f"q{int(q * 100)}": round(float(np.quantile(array, q)), 3) for q in (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)}


def best_cut(same: Sequence[float], other: Sequence[float]) -> dict[str, Any]:
    """The cosine that best separates the two classes: the midpoint of a gap between two neighbouring observed
    cosines, with the fewest errors (a same-kind pair below it, or another pair at or above it); among equals,
    the widest gap, so the cut sits as far from both classes as the data allow."""
    points = sorted({*same, *other})
    gaps = list(itertools.pairwise(points))

    def errors(cut: float) -> int:
        return sum(1 for s in same if s < cut) + sum(1 for o in other if o >= cut)

    low, high = min(gaps, key=lambda gap: (errors((gap[0] + gap[1]) / 2), -(gap[1] - gap[0])))
    cut = (low + high) / 2
    return {
        "threshold": round(cut, 3),
        "errors": errors(cut),
        "same_below": sum(1 for s in same if s < cut),
        "other_at_or_above": sum(1 for o in other if o >= cut),
        "gap": [round(low, 3), round(high, 3)],
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", choices=("multilingual", "local"), default="multilingual")
    parser.add_argument("--fillers", type=int, default=8, help="filler facts per sequence, as memory_updates.py")
    args = parser.parse_args()
    data = json.loads(TUNED.read_text(encoding="utf-8"))
    pairs, neighbours, strangers = asked_pairs(data, args.fillers)
    settings = EmbeddingSettings(embedding_provider=args.embedder, _env_file=None)  # type: ignore[call-arg]
    embedder = create_embedder(settings, cache=False)
    assert embedder is not None
    summary: dict[str, Any] = {"embedder": embedder.key, "set": TUNED.name}
    for name, english in (("english_words", True), ("claim_values", False)):
        chosen = [p for p in pairs if p.english == english]
        unique = list(dict.fromkeys((p.a, p.b, p.same) for p in chosen))
        scores = await cosines(embedder, [(a, b) for a, b, _ in unique])
        same = [s for (_, _, label), s in zip(unique, scores, strict=True) if label]
        other = [s for (_, _, label), s in zip(unique, scores, strict=True) if not label]
        summary[name] = {
            "pairs": len(unique),
            "same_kind_pairs": len(same),
            "same_kind": quantiles(same),
            "other": quantiles(other),
            "cut": best_cut(same, other) if same and other else None,
        }
    near = await cosines(embedder, neighbours)
    far = await cosines(embedder, strangers)
    floor = math.floor(min(near) * 20) / 20
    summary["neighbours"] = {
        "pairs": len(near),
        "same_sequence": quantiles(near),
        "filler_pairs": len(far),
        "floor": floor,
        "fillers_above_floor": round(sum(1 for f in far if f >= floor) / len(far), 3),
        # The share at other floors, to compare with another embedder's (MiniLM's was 0.3).
        "fillers_above": {str(cut): round(sum(1 for f in far if f >= cut) / len(far), 3) for cut in (0.2, 0.25, 0.3)},
    }
    await embedder.aclose()
    for name in ("english_words", "claim_values"):
        part = summary[name]
        print(
            f"{name}: {part['pairs']} pairs ({part['same_kind_pairs']} same kind); same kind {part['same_kind']}; other {part['other']}; cut {part['cut']}"
        )
    print(f"neighbours: {summary['neighbours']}")
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
