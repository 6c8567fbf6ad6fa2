"""Readable sentences from pydantic errors, and JSON config files loaded into models with them.

Every sentence here may quote what a caller sent (field names, unknown keys), so each one is bounded: at most
`MAX_PROBLEMS` problems and `MAX_NAMES` unknown names are listed, each name cut to `MAX_NAME_CHARS`, and a whole
description never exceeds `MAX_MESSAGE_CHARS`. A body with 300,000 unknown keys gets the same short answer as one
with six.

The rule for unknown arguments, everywhere (first-party MCP tools and the hub's own tools): they are rejected,
and the answer names at most a few of them — `unknown_names_message` builds that sentence for both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from shared.text import shorten

ModelT = TypeVar("ModelT", bound=BaseModel)

MAX_NAMES = 5
"""Unknown names quoted in one message; the rest are counted."""
MAX_NAME_CHARS = 40
"""A quoted name (or one part of a field path) longer than this is cut, with '…'."""
MAX_PROBLEMS = 20
"""Validation problems listed in one message; the rest are counted."""
MAX_PROBLEM_CHARS = 300
"""One problem's text is cut here (a validator's own message may quote the value it refused)."""
MAX_MESSAGE_CHARS = 2048
"""No description built here is longer."""


class HasErrors(Protocol):
    """pydantic's `ValidationError` and FastAPI's `RequestValidationError` both fit."""

    def errors(self) -> Sequence[Any]: ...


def _name(value: object) -> str:
    return shorten(str(value), MAX_NAME_CHARS)


def unknown_names_message(
    names: Iterable[object], *, what: str = "argument", accepted: Iterable[str] | None = None
) -> str:
    """One sentence naming at most `MAX_NAMES` of `names` (each cut short) and counting the rest, e.g.
    `Unknown arguments: 'colour', 'size' and 2,998 more. Accepted: path, recursive.`"""
    listed: list[str] = []
    total = 0
    for name in names:
        total += 1
        if len(listed) < MAX_NAMES:
            listed.append(repr(_name(name)))
    plural = what if total == 1 else f"{what}s"
    sentence = f"Unknown {plural}: " + ", ".join(listed)
    if total > len(listed):
        sentence += f" and {total - len(listed):,} more"
    sentence += "."
    if accepted is not None:
        # All of them: they are the tool's own declared parameters (a model needs the full list to correct its
        # call), and the sentence as a whole is still cut at MAX_MESSAGE_CHARS.
        shown = ", ".join(_name(name) for name in sorted(accepted)) or "none"
        sentence += f" Accepted: {shown}."
    return shorten(sentence, MAX_MESSAGE_CHARS)


def _where(loc: Sequence[object], root: str, drop: tuple[str | int, ...]) -> str:
    return ".".join(_name(part) for part in loc if part not in drop) or root


def error_lines(exc: HasErrors, *, root: str = "(root)", drop: tuple[str | int, ...] = ()) -> list[str]:
    """One `location: message` per error, e.g. `agents.0.temperature: Input should be less than or equal to 2`;
    at most `MAX_PROBLEMS` of them and about `MAX_MESSAGE_CHARS` in all, then one line counting the rest."""
    return _lines(exc.errors(), root, drop)


def _lines(errors: Sequence[Any], root: str, drop: tuple[str | int, ...]) -> list[str]:
    lines: list[str] = []
    total = 0
    for error in errors[:MAX_PROBLEMS]:
        line = shorten(f"{_where(error['loc'], root, drop)}: {error['msg']}", MAX_PROBLEM_CHARS)
        total += len(line) + 2
        if total > MAX_MESSAGE_CHARS - 100:  # room for the prefix and the count below
            break
        lines.append(line)
    if len(errors) > len(lines):
        lines.append(f"and {len(errors) - len(lines):,} more problems")
    return lines


def describe_problems(
    exc: HasErrors,
    *,
    prefix: str = "Invalid arguments: ",
    root: str = "arguments",
    drop: tuple[str | int, ...] = (),
    accepted: Iterable[str] | None = None,
) -> str:
    """The whole of a validation failure in one bounded message. Unknown top-level keys (pydantic's
    `extra_forbidden`) are gathered into one `unknown_names_message`; every other problem gets a line."""

    def is_unknown_key(error: Any) -> bool:
        return error.get("type") == "extra_forbidden" and len([p for p in error["loc"] if p not in drop]) == 1

    errors = exc.errors()
    unknown = [error["loc"][-1] for error in errors if is_unknown_key(error)]
    others = [error for error in errors if not is_unknown_key(error)]
    parts: list[str] = []
    if others:
        parts.append(prefix + "; ".join(_lines(others, root, drop)))
    if unknown:
        parts.append(unknown_names_message(unknown, accepted=accepted))
    return shorten(". ".join(parts), MAX_MESSAGE_CHARS)


def load_json_model(path: Path, model: type[ModelT], *, what: str, error: type[Exception]) -> ModelT:
    """Read `path` as JSON into `model`; any problem raises `error` naming the file and each field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: cannot read {what} ({exc})") from None
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise error(f"{path}: " + "; ".join(error_lines(exc))) from None
