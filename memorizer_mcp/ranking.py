"""How vector and full-text results are combined into one ranking. Pure.

Each side's scores are min-max normalised to [0, 1] (all equal → 0.5 each, since no candidate is better
than another), then `score = vector_weight * v + text_weight * t` over the union of ids, a side that did not
find an id contributing 0. Ties keep the order of the better raw vector score, then the lower id.
"""

from __future__ import annotations

from collections.abc import Mapping


def normalise(scores: Mapping[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, 0.5)
    span = high - low
    return {key: (value - low) / span for key, value in scores.items()}


def hybrid_rank(
    vector: Mapping[int, float], text: Mapping[int, float], vector_weight: float, text_weight: float
) -> list[tuple[int, float]]:
    """`(id, combined score)` best first."""
    norm_vector, norm_text = normalise(vector), normalise(text)
    combined = {
        key: vector_weight * norm_vector.get(key, 0.0) + text_weight * norm_text.get(key, 0.0)
        for key in norm_vector.keys() | norm_text.keys()
    }
    return sorted(combined.items(), key=lambda item: (-item[1], -vector.get(item[0], float("-inf")), item[0]))


def rank_single(scores: Mapping[int, float]) -> list[tuple[int, float]]:
    """One side only (full-text search without vectors): normalised, best first."""
    return sorted(normalise(scores).items(), key=lambda item: (-item[1], item[0]))


def boost(ranked: list[tuple[int, float]], bonus: Mapping[int, float], weight: float) -> list[tuple[int, float]]:
    """Add `weight * bonus` to each score (ids only in `bonus` join with that alone), best first.

    The bonus is how well a fact's subject and attribute match what the query asks about (claims.key_match):
    "Where is the user based?" should find "The user has moved to Vancouver" although they share no word.
    """
    scores = dict(ranked)
    for key, value in bonus.items():
        if value:
            scores[key] = scores.get(key, 0.0) + weight * value
    order = {key: position for position, (key, _) in enumerate(ranked)}
    return sorted(scores.items(), key=lambda item: (-item[1], order.get(item[0], len(order)), item[0]))


def carry_to(ranked: list[tuple[int, float]], successors: Mapping[int, int | None]) -> list[tuple[int, float]]:
    """Each id replaced by the current fact it leads to (`successors`: the id itself when current, None when
    nothing current replaced it), keeping the best score per current fact, best first."""
    best: dict[int, float] = {}
    for key, score in ranked:
        target = successors.get(key)
        if target is not None and score > best.get(target, float("-inf")):
            best[target] = score
    order = {key: position for position, (key, _) in enumerate(ranked)}
    return sorted(best.items(), key=lambda item: (-item[1], order.get(item[0], len(order)), item[0]))
