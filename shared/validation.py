"""Readable sentences from pydantic errors, and JSON config files loaded into models with them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

ModelT = TypeVar("ModelT", bound=BaseModel)


class HasErrors(Protocol):
    """pydantic's `ValidationError` and FastAPI's `RequestValidationError` both fit."""

    def errors(self) -> Sequence[Any]: ...


def error_lines(exc: HasErrors, *, root: str = "(root)", drop: tuple[str | int, ...] = ()) -> list[str]:
    """One `location: message` per error, e.g. `agents.0.temperature: Input should be less than or equal to 2`."""
    lines = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"] if part not in drop) or root
        lines.append(f"{where}: {error['msg']}")
    return lines


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
