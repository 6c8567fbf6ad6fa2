"""The contracts' JSON Schemas use JSON Schema's words, so OpenAPI clients read every bound."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

from shared.contracts import hub_api, memory, thinker_api

# pydantic writes these when a bound cannot be turned into JSON Schema (e.g. on an optional field whose type
# carries a validator); no client understands them, so a bound written so is silently not enforced by clients.
PYDANTIC_ONLY_WORDS = {"ge", "gt", "le", "lt", "multiple_of"}


def models(module: ModuleType) -> Iterator[type[BaseModel]]:
    for _, value in inspect.getmembers(module, inspect.isclass):
        if issubclass(value, BaseModel) and value.__module__ == module.__name__:
            yield value


def keys(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("properties", "$defs"):  # their keys are names, not keywords
                for named in value.values():
                    yield from keys(named)
            else:
                yield key
                yield from keys(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from keys(item)


@pytest.mark.parametrize(
    "model",
    [model for module in (hub_api, memory, thinker_api) for model in models(module)],
    ids=lambda model: model.__name__,
)
def test_every_bound_in_a_contract_is_written_in_json_schema_words(model: type[BaseModel]) -> None:
    assert not PYDANTIC_ONLY_WORDS & set(keys(model.model_json_schema()))
