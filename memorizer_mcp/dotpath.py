"""Dot-notation updates of a JSON document (the profile). Pure.

`user_info.name` sets a key inside an object, `current_projects[0].status` an element inside a list; missing
objects are created and lists are padded with nulls (objects on the way to a deeper key). A segment is
letters, digits, `_` and `-`, optionally followed by `[index]`. A path that would replace an existing list or
scalar with an object (`preferences.tools.x` when `tools` is a list) is refused rather than destroying data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_INDEX = 1000
MAX_DEPTH = 16
_SEGMENT = re.compile(r"^(?P<key>[A-Za-z0-9_-]+)(?:\[(?P<index>\d+)\])?$")


class PathError(ValueError):
    """The path is malformed or would overwrite data of another shape; the message says which."""


@dataclass(frozen=True)
class Step:
    key: str
    index: int | None


def parse_path(path: str) -> list[Step]:
    parts = path.split(".")
    if not path or len(parts) > MAX_DEPTH:
        raise PathError(
            f"'{path}' is not a profile path: use up to {MAX_DEPTH} dot-separated names, e.g. user_info.name"
        )
    steps = []
    for part in parts:
        match = _SEGMENT.match(part)
        if match is None:
            raise PathError(
                f"'{path}' is not a profile path: each part is letters, digits, '_' or '-', optionally with [n], "
                "e.g. current_projects[0].name"
            )
        index = match["index"]
        if index is not None and int(index) > MAX_INDEX:
            raise PathError(f"'{path}': list index {index} is over {MAX_INDEX}")
        steps.append(Step(match["key"], None if index is None else int(index)))
    return steps


def _child_container(parent: dict[str, Any], step: Step, walked: str) -> dict[str, Any] | list[Any]:
    """The object (or list, for `key[n]`) at `parent[step.key]`, created if missing or null."""
    current = parent.get(step.key)
    want_list = step.index is not None
    if current is None:
        created: dict[str, Any] | list[Any] = [] if want_list else {}
        parent[step.key] = created
        return created
    if want_list and isinstance(current, list):
        return current
    if not want_list and isinstance(current, dict):
        return current
    shape = "a list" if isinstance(current, list) else "an object" if isinstance(current, dict) else "a value"
    raise PathError(f"'{walked}' is {shape}, not {'a list' if want_list else 'an object'}; it is left unchanged")


def set_path(document: dict[str, Any], path: str, value: Any) -> None:
    """Set `value` at `path` inside `document` (in place)."""
    steps = parse_path(path)
    node: dict[str, Any] = document
    walked = ""
    for position, step in enumerate(steps):
        last = position == len(steps) - 1
        walked = f"{walked}.{step.key}" if walked else step.key
        if step.index is None:
            if last:
                node[step.key] = value
                return
            child = _child_container(node, step, walked)
            assert isinstance(child, dict)
            node = child
            continue
        items = _child_container(node, step, walked)
        assert isinstance(items, list)
        walked = f"{walked}[{step.index}]"
        while len(items) <= step.index:
            items.append(None)
        if last:
            items[step.index] = value
            return
        element = items[step.index]
        if element is None:
            element = items[step.index] = {}
        if not isinstance(element, dict):
            raise PathError(
                f"'{walked}' is {'a list' if isinstance(element, list) else 'a value'}, not an object; it is left unchanged"
            )
        node = element
