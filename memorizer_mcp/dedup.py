"""Is a new fact close to one already stored? Pure keyword overlap, as the original Memorizer measured it.

Keywords: the text lower-cased, every character outside `[a-z0-9]` and whitespace dropped, split on whitespace,
words of three letters or more that are not stop words. Overlap: shared keywords divided by the size of the
smaller keyword set. At or above the threshold (MEMORY_SIMILARITY_THRESHOLD, 0.6) the fact is still stored,
but the answer lists the similar ones so the caller can update or delete instead of piling up near-duplicates.
"""

from __future__ import annotations

import re

# The original's list: function words, plus the verbs nearly every preference fact starts with.
STOP_WORDS = frozenset(
    {
        "the", "is", "a", "an", "and", "or", "but", "in", "on", "at", "to", "for", "of", "with", "by", "from",
        "as", "into", "that", "this", "has", "have", "had", "was", "were", "are", "been", "being", "do", "does",
        "did", "will", "would", "could", "should", "may", "can", "not", "no", "so", "up", "out", "if", "about",
        "who", "which", "their", "them", "then", "than", "its", "his", "her", "likes", "prefers", "uses", "wants",
        "needs",
    }
)  # fmt: skip

_NOT_WORD = re.compile(r"[^a-z0-9\s]")


def keywords(text: str) -> frozenset[str]:
    words = _NOT_WORD.sub("", text.lower()).split()
    return frozenset(word for word in words if len(word) > 2 and word not in STOP_WORDS)


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared keywords / the smaller set's size; 0 when either side has none."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def similar(new_text: str, existing: list[tuple[int, str]], threshold: float) -> list[tuple[int, str, float]]:
    """The `(id, text)` pairs whose overlap with `new_text` reaches `threshold`, most similar first."""
    new_keywords = keywords(new_text)
    found = []
    for fact_id, text in existing:
        score = overlap(new_keywords, keywords(text))
        if score >= threshold:
            found.append((fact_id, text, score))
    found.sort(key=lambda item: (-item[2], item[0]))
    return found
