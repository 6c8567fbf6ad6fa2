"""Is a request about a stored record? The hub's question, answered by meaning where words cannot.

The hub holds a change of one of the owner's records that the request did not name (orchestrator/approvals/
records.py), and it matches words first. A request in another language than the record shares none: "Vergiss,
dass das Café dienstags geschlossen ist" is about "The café is closed on Tuesdays", and with words alone the owner
was asked about 8 of 14 fact changes the perfect model made on the agent tasks, every one such a request. The
multilingual encoder the update rules already use (`Memory.values`) reads both sides.

`ABOUT_BAR` is that encoder's cosine between a request and a record at and above which the request counts as
naming the record. Chosen on benchmarks/data/record_naming_dev.json alone by `benchmarks/record_naming.py --fit`:
the highest cosine of a request and a record it is not about (what a confused model changed instead), plus a
margin, so that a change the owner did not ask for stays held; the held-out set is reported beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shared.embeddings.base import Embedder, EmbeddingError
from shared.mcp_tools import ToolFailure

ABOUT_BAR = 0.36
"""Cosine of the multilingual encoder (USE v3) at which a request is about a record (see the module's doc)."""
MARGIN = 0.05
"""Added to the development set's highest unrelated cosine: unseen unrelated pairs score a little higher."""


def best_cosine(request: np.ndarray, record: np.ndarray) -> float:
    """The closest of the request's texts (rows, unit length) to the record's vector (unit length)."""
    return float(np.max(request @ record)) if len(request) else 0.0


async def about_score(encoder: Embedder, request: Sequence[str], record: str) -> float:
    """How close the closest of `request`'s texts is to `record`, as the encoder's cosine."""
    vectors = await encoder.embed([*request, record])
    return best_cosine(vectors[:-1], vectors[-1])


async def about(encoder: Embedder | None, request: Sequence[str], record: str) -> dict[str, Any]:
    """`compare_request`'s answer: `{about, score, bar}`; a failure when there is no encoder to ask (the hub then
    asks the owner, as it would with words alone)."""
    if encoder is None:
        raise ToolFailure("No multilingual encoder is loaded in the Memorizer, so requests are matched by words alone.")
    try:
        score = await about_score(encoder, request, record)
    except EmbeddingError as exc:
        raise ToolFailure(f"The multilingual encoder could not compare the request: {exc}") from None
    return {"about": score >= ABOUT_BAR, "score": round(score, 3), "bar": ABOUT_BAR}
