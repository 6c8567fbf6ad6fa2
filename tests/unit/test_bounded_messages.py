"""Every error that quotes input stays short: unknown names and validation problems are listed a few at a time."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shared.envelope import ErrorCode, fail
from shared.validation import (
    MAX_MESSAGE_CHARS,
    MAX_NAME_CHARS,
    MAX_NAMES,
    MAX_PROBLEMS,
    describe_problems,
    error_lines,
    unknown_names_message,
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str
    limit: int = Field(default=10, ge=1)


def problems(raw: dict[str, Any]) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        Strict.model_validate(raw)
    return caught.value


def test_one_unknown_argument_is_named_with_what_the_tool_accepts() -> None:
    assert unknown_names_message(["colour"], accepted={"path", "limit"}) == (
        "Unknown argument: 'colour'. Accepted: limit, path."
    )


def test_three_hundred_thousand_unknown_names_give_a_short_sentence_naming_five() -> None:
    names = (f"key{index}" for index in range(300_000))
    message = unknown_names_message(names)
    assert message == "Unknown arguments: 'key0', 'key1', 'key2', 'key3', 'key4' and 299,995 more."


def test_a_huge_unknown_name_is_cut_short() -> None:
    message = unknown_names_message(["x" * 100_000, "y" * 10])
    quoted = message.split("'")[1]
    assert len(quoted) == MAX_NAME_CHARS and quoted.endswith("…")
    assert len(message) < 120


def test_a_body_of_unknown_keys_is_described_in_at_most_two_kilobytes() -> None:
    raw: dict[str, Any] = {"path": "a.txt", **{"k" * 500 + str(index): index for index in range(50_000)}}
    message = describe_problems(problems(raw), accepted={"path", "limit"})
    assert message.startswith("Unknown arguments: ") and "and 49,995 more" in message
    assert len(message.encode()) <= MAX_MESSAGE_CHARS
    assert message.count("'") == 2 * MAX_NAMES


def test_unknown_keys_and_bad_values_are_both_reported() -> None:
    message = describe_problems(problems({"path": 3, "limit": 0, "colour": "red"}))
    assert message == (
        "Invalid arguments: path: Input should be a valid string; limit: Input should be greater than or equal to 1. "
        "Unknown argument: 'colour'."
    )


def test_more_problems_than_the_limit_are_counted_not_listed() -> None:
    class Many(BaseModel):
        items: list[int]

    with pytest.raises(ValidationError) as caught:
        Many.model_validate({"items": ["x"] * 1000})
    lines = error_lines(caught.value)
    assert len(lines) == MAX_PROBLEMS + 1
    assert lines[-1] == f"and {1000 - MAX_PROBLEMS:,} more problems"


def test_a_nested_unknown_key_is_a_located_problem_not_an_unknown_argument() -> None:
    class Inner(BaseModel):
        model_config = ConfigDict(extra="forbid")
        a: int = 0

    class Outer(BaseModel):
        inner: Inner

    with pytest.raises(ValidationError) as caught:
        Outer.model_validate({"inner": {"b": 1}})
    assert describe_problems(caught.value) == "Invalid arguments: inner.b: Extra inputs are not permitted"


def test_twenty_long_problems_still_fit_in_two_kilobytes() -> None:
    class Wide(BaseModel):
        model_config = ConfigDict(extra="forbid")

    with pytest.raises(ValidationError) as caught:
        Wide.model_validate({f"{'x' * 500}{index}": index for index in range(100)})
    joined = "; ".join(error_lines(caught.value))
    assert len(joined) <= MAX_MESSAGE_CHARS
    assert joined.endswith("more problems")


def test_a_tool_error_quoting_a_megabyte_path_is_cut_to_two_kilobytes() -> None:
    envelope = fail(ErrorCode.NOT_ALLOWED, f"'{'a/' * 500_000}' is outside the workspace.")
    assert len(envelope["error"]) == MAX_MESSAGE_CHARS and envelope["error"].endswith("…")
