"""Compact tool schemas (thinker/compact.py): what the model is shown of a tool. Pure functions, no I/O."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from shared.contracts.hub_api import ADVANCED
from thinker.compact import MAX_OPTIONAL, compact_description, compact_schema, first_sentence


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("[Gmail | Communication] Send a new email.  Supports cc.", "Send a new email."),
        ("Store one fact, e.g. a preference.\n\nMore text.", "Store one fact, e.g. a preference."),
        ("Costs 3.5 units per call. Then more.", "Costs 3.5 units per call."),
        ("No full stop at all", "No full stop at all"),
        ("Line one\n    continues here. Second.", "Line one continues here."),
        ("", ""),
    ],
)
def test_the_description_is_its_first_sentence_without_the_hub_tag(description: str, expected: str) -> None:
    assert first_sentence(description) == expected
    assert compact_description(description) == expected


SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "store_skillArguments",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 1, "description": "Skill name. Unique per agent."},
        "agent_id": {"type": "string", "default": "annabelle", "pattern": "^[a-z]+$", "description": "Which agent."},
        "max_steps": {"type": "integer", "default": 10, "minimum": 1, "description": "Most steps per run."},
        "trigger_config": {
            "anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}],
            "default": None,
            "description": 'When it runs: {"schedule": "0 9 * * *"} (cron). More.',
        },
        "plan": {
            "anyOf": [{"type": "array", "items": {"$ref": "#/$defs/Step"}}, {"type": "null"}],
            "description": "Tool calls run directly.",
        },
        "kind": {"enum": ["cron", "manual"], "type": "string", "description": "cron or manual."},
    },
    "required": ["name", "kind"],
    "$defs": {
        "Step": {
            "type": "object",
            "description": "One step.",
            "properties": {"id": {"type": "string"}, "args": {"type": "object", "properties": {"x": {}}}},
            "required": ["id"],
        }
    },
}


def test_a_schema_keeps_types_enums_and_what_a_caller_must_know() -> None:
    before = copy.deepcopy(SCHEMA)
    assert compact_schema(SCHEMA) == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Skill name."},
            "max_steps": {"type": "integer"},  # an optional scalar: its name says it
            "trigger_config": {"type": "object", "description": 'When it runs: {"schedule": "0 9 * * *"} (cron).'},
            # no "plan": an optional list of objects whose shape is cut below NESTED_DEPTH
            "kind": {"type": "string", "enum": ["cron", "manual"], "description": "cron or manual."},
        },
        "required": ["name", "kind"],
    }
    assert before == SCHEMA  # the input is never modified


def test_the_agent_id_is_never_shown_to_the_model() -> None:
    assert "agent_id" not in compact_schema(SCHEMA)["properties"]


def test_only_the_first_optional_parameters_are_shown_and_required_ones_always() -> None:
    properties = {f"opt{i}": {"type": "string"} for i in range(MAX_OPTIONAL + 3)}
    properties["last_but_required"] = {"type": "string", "description": "Needed."}
    shown = compact_schema({"properties": properties, "required": ["last_but_required"]})["properties"]
    assert list(shown) == [f"opt{i}" for i in range(MAX_OPTIONAL)] + ["last_but_required"]


def test_an_optional_parameter_marked_for_configuring_by_hand_is_left_out_and_does_not_count() -> None:
    advanced = {"type": "integer", ADVANCED: True}
    properties: dict[str, Any] = {"limit": advanced, "needed_limit": advanced}
    properties |= {f"opt{i}": {"type": "string"} for i in range(MAX_OPTIONAL)}
    shown = compact_schema({"properties": properties, "required": ["needed_limit"]})["properties"]
    # Hidden optional ones take no slot; a required one is shown whatever its mark (a call cannot do without it).
    assert list(shown) == ["needed_limit"] + [f"opt{i}" for i in range(MAX_OPTIONAL)]


async def test_the_memorizers_skill_tools_show_the_model_no_limits_allow_lists_or_bookkeeping() -> None:
    from memorizer_mcp.server import server

    tools = {tool.name: tool for tool in await server.list_tools()}
    for name in ("store_skill", "update_skill"):
        shown = compact_schema(tools[name].input_schema)["properties"]
        assert "trigger_config" in shown and "instructions" in shown
        hidden = {"required_tools", "max_steps", "max_tokens_per_run", "daily_tokens", "notify_interval_minutes"}
        assert not hidden & set(shown), name
        assert not {key for key in shown if key.startswith(("last_", "backoff", "consecutive"))}, name


def test_an_optional_list_of_shapeless_objects_is_left_out_and_lists_of_values_stay() -> None:
    plan = {"type": "array", "items": {"$ref": "#/$defs/Step"}, "description": "Steps."}
    schema = {
        "properties": {
            "plan": plan,
            "tags": {"type": "array", "items": {"type": "string"}},
            "ids": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
            "needed_plan": plan,
        },
        "required": ["needed_plan"],
        "$defs": SCHEMA["$defs"],
    }
    shown = compact_schema(schema)["properties"]
    assert list(shown) == ["tags", "ids", "needed_plan"]  # required: shown, whatever its shape
    assert shown["needed_plan"]["items"] == {"type": "object", "description": "One step."}


def test_nullable_types_unions_and_cyclic_references_stay_valid() -> None:
    schema = {
        "properties": {
            "when": {"type": ["string", "null"]},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}], "description": "A or B."},
            "tree": {"$ref": "#/$defs/Node"},
        },
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
    }
    shown = compact_schema(schema)["properties"]
    assert shown["when"] == {"type": "string"}
    assert shown["either"] == {"description": "A or B.", "anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert shown["tree"] == {"type": "object", "properties": {"child": {"type": "object"}}}


def test_an_empty_or_odd_schema_becomes_an_object_without_parameters() -> None:
    assert compact_schema({}) == {"type": "object", "properties": {}}
    assert compact_schema({"properties": "nonsense"}) == {"type": "object", "properties": {}}


async def test_every_real_tool_keeps_its_required_parameters_in_a_valid_compact_schema() -> None:
    import importlib

    from jsonschema import Draft202012Validator

    checked = 0
    for package in ("filer_mcp", "gmail_mcp", "memorizer_mcp", "searcher_mcp", "telegram_mcp", "codexec_mcp"):
        server = importlib.import_module(f"{package}.server").server
        for tool in await server.list_tools():
            shown = compact_schema(tool.input_schema)
            Draft202012Validator.check_schema(shown)
            required = set(tool.input_schema.get("required") or []) - {"agent_id"}
            assert required <= set(shown["properties"]), tool.name
            assert set(shown.get("required") or []) == required, tool.name
            assert "agent_id" not in shown["properties"]
            checked += 1
    assert checked > 80
