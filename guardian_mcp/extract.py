"""Find every text in a tool's arguments or result: `(path, text)` for each non-empty string.

Paths read like JavaScript accessors (`a.b[0].c`, `["odd key"]`); the root string has the path "".
Object keys are texts too when they look like prose (they contain whitespace): a JSON document can carry an
instruction in a key as easily as in a value. Such a key gets the path `<object path>[key#<n>]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from shared.text import shorten

_PLAIN_KEY = re.compile(r"^[A-Za-z_$][\w$-]*$")
_KEY_IN_PATH_LIMIT = 40


def _child(path: str, key: str) -> str:
    if _PLAIN_KEY.match(key):
        return f"{path}.{key}" if path else key
    shown = shorten(key, _KEY_IN_PATH_LIMIT, "...")
    return f"{path}[{json.dumps(shown, ensure_ascii=False)}]"


def extract_texts(content: Any) -> Iterator[tuple[str, str]]:
    """Yield `(path, text)` for every non-empty string in `content`, in document order.

    Walks iteratively, so deeply nested input cannot exhaust the recursion limit.
    """
    stack: list[tuple[str, Any]] = [("", content)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            if node.strip():
                yield path, node
        elif isinstance(node, dict):
            children: list[tuple[str, Any]] = []
            for index, (raw_key, value) in enumerate(node.items()):
                key = str(raw_key)
                if any(ch.isspace() for ch in key) and key.strip():
                    children.append((f"{path}[key#{index}]", key))
                children.append((_child(path, key), value))
            stack.extend(reversed(children))
        elif isinstance(node, list | tuple):
            stack.extend((f"{path}[{index}]", item) for index, item in reversed(list(enumerate(node))))


def canonical_text(content: Any) -> str:
    """The text the audit log hashes and measures: the string itself, else compact sorted JSON."""
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
