"""A model's loosely typed skill values → the types a skill record holds, or a `SkillInputError`. Pure.

Models send numbers as strings, lists as JSON text or comma-separated words, booleans as "yes"; each is accepted
here in the one form the Memorizer stores, and anything else is refused with a sentence that names the field.
"""

from __future__ import annotations

import json
from typing import Any

from orchestrator.skills.errors import SkillInputError
from shared.skill_files import FALSE_WORDS, TRUE_WORDS


def json_value(field: str, text: str, expected: type) -> Any:
    """`text` parsed as JSON, which must be a `dict` or a `list` (`expected`)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise SkillInputError(
            f"{field} is a string that is not valid JSON; send it as a JSON {_kind(expected)}."
        ) from None
    if not isinstance(value, expected):
        raise SkillInputError(f"{field} must be a JSON {_kind(expected)}, got {type(value).__name__}.")
    return value


def _kind(expected: type) -> str:
    return "object" if expected is dict else "list"


def whole_number(field: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    number: float | None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    else:
        number = None
    if number is None or number != number or number != int(number):
        raise SkillInputError(f"{field} must be a whole number, got {value!r}.")
    result = int(number)
    if (low is not None and result < low) or (high is not None and result > high):
        bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise SkillInputError(f"{field} must be {bounds}, got {result}.")
    return result


def positive_number(field: str, value: Any) -> float:
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or number != number or number <= 0:
        raise SkillInputError(f"{field} must be a number greater than 0, got {value!r}.")
    return number


def boolean(field: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    raise SkillInputError(f"{field} must be true or false, got {value!r}.")


def tool_names(field: str, value: Any) -> list[str]:
    """A list of tool names, from a list, a JSON list or comma-separated text; blanks and repeats dropped."""
    if isinstance(value, str):
        text = value.strip()
        value = json_value(field, text, list) if text.startswith("[") else text.split(",")
    if not isinstance(value, list | tuple):
        raise SkillInputError(f'{field} must be a list of tool names, e.g. ["gmail_list_emails"].')
    names: list[str] = []
    for item in value:
        name = str(item).strip().strip("\"'") if item is not None else ""
        if name and name not in names:
            names.append(name)
    return names


def keywords(value: Any) -> list[str]:
    """A playbook's keywords, from a list or comma-separated text; whitespace collapsed, blanks and repeats dropped."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple):
        raise SkillInputError('trigger_config.keywords must be a list of words or phrases, e.g. ["inbox", "mail"].')
    words: list[str] = []
    for item in value:
        word = " ".join(str(item).split()) if item is not None else ""
        if word and word not in words:
            words.append(word)
    return words
