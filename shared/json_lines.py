"""One JSON object per line, never longer than `MAX_LINE_BYTES`: what log files and the trace file are made of.

No line is longer than 16 KB, whatever was logged: `bounded_json_line` cuts the longest values first, marks each
cut value with `…[cut N chars]` and the entry with `"cut": <bytes it would have had>`, so a hostile input echoed
into a log line costs at most 16 KB and the line stays valid JSON.
"""

from __future__ import annotations

import json

MAX_LINE_BYTES = 16 * 1024
"""The longest log or trace line written (the newline included)."""
_VALUE_SHARE = 4 * 1024
"""A long value is first cut to at most this many characters (less when there are several)."""
_ESSENTIAL = ("ts", "level", "service", "logger", "msg", "trace_id", "event")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}…[cut {len(text) - limit} chars]"


def _dumps(entry: dict[str, object], compact: bool) -> str:
    separators = (",", ":") if compact else None
    return json.dumps(entry, default=str, ensure_ascii=False, separators=separators)


def bounded_json_line(entry: dict[str, object], *, compact: bool = False) -> str:
    """`entry` as one line of JSON of at most `MAX_LINE_BYTES` bytes (with its newline), cut as the module
    docstring says."""
    line = _dumps(entry, compact)
    size = len(line.encode("utf-8", errors="replace"))
    if size < MAX_LINE_BYTES:
        return line
    texts: dict[str, object] = {}
    for key, value in entry.items():
        if isinstance(value, str | int | float | bool | type(None)):
            texts[key] = value
        else:
            texts[key] = _dumps({"v": value}, True)[5:-1]  # a structure is kept as its JSON text, so it can be cut
    long_values = sum(1 for value in texts.values() if isinstance(value, str) and len(value) > _VALUE_SHARE // 8)
    share = min(_VALUE_SHARE, (MAX_LINE_BYTES - 1024) // max(long_values, 1) // 2)
    cut: dict[str, object] = {
        key: _cut(value, share) if isinstance(value, str) else value for key, value in texts.items()
    }
    cut["cut"] = size
    line = _dumps(cut, compact)
    if len(line.encode("utf-8", errors="replace")) < MAX_LINE_BYTES:
        return line
    # Many long fields (or characters that JSON escapes six-fold): keep what says what happened, shorter still.
    short = {key: _cut(str(entry[key]), 1024) for key in _ESSENTIAL if key in entry}
    short["cut"] = size
    return _dumps(short, compact)
