"""Overlapping windows over a long text, so that an injection buried in a long e-mail or page is not diluted.

The classifier embeds each window separately (a sentence embedding of a whole page is the page's *topic*; three
injected sentences in it barely move it) and the text's risk is the highest window's. Pure, no I/O.

Windows are as few as cover the text with at least `overlap` characters shared by neighbours, spread evenly,
with their edges moved to the nearest whitespace (within `_SNAP` characters) so that no word is cut in two.
"""

from __future__ import annotations

import math

DEFAULT_SIZE = 1000
DEFAULT_OVERLAP = 200
_SNAP = 40


def _snap_back(text: str, position: int) -> int:
    """`position`, moved back to just after a whitespace character if one is near."""
    if position <= 0:
        return 0
    for index in range(position, max(0, position - _SNAP) - 1, -1):
        if text[index - 1].isspace():
            return index
    return position


def _snap_forward(text: str, position: int) -> int:
    """`position`, moved forward to a whitespace character if one is near."""
    if position >= len(text):
        return len(text)
    for index in range(position, min(len(text), position + _SNAP) + 1):
        if index == len(text) or text[index].isspace():
            return index
    return position


def window_spans(
    length_or_text: str, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP, max_windows: int | None = None
) -> list[tuple[int, int]]:
    """`(start, end)` of each window over the text; one window when it fits in `size`.

    With `max_windows`, only the first `max_windows` windows are returned (the caller reports the rest as not
    covered); they are never stretched apart, because a gap between windows is a place to hide.
    """
    if size <= overlap or overlap < 0:
        raise ValueError("a window must be longer than its overlap, and the overlap not negative")
    text = length_or_text
    length = len(text)
    if length <= size:
        return [(0, length)]
    count = math.ceil((length - overlap) / (size - overlap))
    step = (length - size) / (count - 1)
    spans: list[tuple[int, int]] = []
    for index in range(count):
        start = round(index * step)
        end = length if index == count - 1 else start + size
        spans.append((_snap_back(text, start), _snap_forward(text, end)))
        if max_windows is not None and len(spans) >= max_windows:
            break
    return spans


def windows(text: str, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP) -> list[str]:
    """The texts of `window_spans`."""
    return [text[start:end] for start, end in window_spans(text, size, overlap)]


def pieces(text: str, min_chars: int = 40, max_pieces: int = 16) -> list[str]:
    """`text` cut into sentence-like pieces (lines and sentences, short ones merged with the next).

    Used to find the evidence inside a window that scored high: the piece that scores highest is the snippet.
    """
    raw: list[str] = []
    for line in text.splitlines():
        start = 0
        for index, char in enumerate(line):
            if char in ".!?" and (index + 1 == len(line) or line[index + 1].isspace()):
                raw.append(line[start : index + 1])
                start = index + 1
        raw.append(line[start:])
    merged: list[str] = []
    current = ""
    for part in raw:
        part = part.strip()
        if not part:
            continue
        current = f"{current} {part}" if current else part
        if len(current) >= min_chars:
            merged.append(current)
            current = ""
    if current:
        if merged and len(current) < min_chars:
            merged[-1] = f"{merged[-1]} {current}"
        else:
            merged.append(current)
    if len(merged) > max_pieces:
        # Too many small pieces: join neighbours until they fit, so the search stays cheap.
        group = math.ceil(len(merged) / max_pieces)
        merged = [" ".join(merged[i : i + group]) for i in range(0, len(merged), group)]
    return merged
