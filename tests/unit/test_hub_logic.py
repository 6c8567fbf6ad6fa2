"""Pure parts of the hub: restart policy, routing table, result normalisation, discovery."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp.types import CallToolResult, TextContent, Tool

from orchestrator.backoff import RestartPolicy, RestartTracker
from orchestrator.discovery import discover
from orchestrator.normalize import describe_sdk_validation, to_envelope
from orchestrator.router import ToolRouter, build_routes, closest_names
from shared.manifest import McpManifest


def test_backoff_doubles_from_the_base_up_to_the_cap() -> None:
    policy = RestartPolicy(base_seconds=0.5, max_seconds=4)
    assert [policy.delay(n) for n in range(1, 7)] == [0.5, 1, 2, 4, 4, 4]


def test_the_breaker_trips_after_too_many_crashes_in_the_window() -> None:
    tracker = RestartTracker(RestartPolicy(max_restarts=3, window_seconds=100))
    delays = [tracker.record_crash(now, up_since=now - 1) for now in (0, 10, 20)]
    assert all(delay is not None for delay in delays)
    assert tracker.record_crash(30, up_since=29) is None


def test_crashes_older_than_the_window_are_forgotten() -> None:
    tracker = RestartTracker(RestartPolicy(max_restarts=2, window_seconds=100))
    assert tracker.record_crash(0, None) is not None
    assert tracker.record_crash(10, None) is not None
    assert tracker.record_crash(500, None) is not None


def test_backoff_starts_over_after_a_long_healthy_run() -> None:
    tracker = RestartTracker(RestartPolicy(base_seconds=1, healthy_after_seconds=60))
    assert tracker.record_crash(0, up_since=None) == 1
    assert tracker.record_crash(5, up_since=4) == 2
    assert tracker.record_crash(200, up_since=100) == 1


def _manifest(**fields: object) -> McpManifest:
    return McpManifest.model_validate({"mcpName": "filer", "label": "Files", "toolGroup": "File Management", **fields})


def _tools(*names: str) -> list[Tool]:
    return [Tool(name=name, description=f"Do {name}.", input_schema={"type": "object"}) for name in names]


def test_routes_are_prefixed_and_descriptions_tagged() -> None:
    routes = build_routes(_manifest(), _tools("read_file"))
    assert routes[0].exposed == "filer_read_file"
    assert routes[0].description == "[Files | File Management] Do read_file."


@pytest.mark.parametrize(
    ("tool", "hidden"),
    [
        ("delete_file", True),
        ("remove", True),
        ("destroy_all_things", True),
        ("list_files", False),
        ("undeleted", False),
    ],
)
def test_destructive_tools_are_hidden_unless_the_manifest_allows_them(tool: str, hidden: bool) -> None:
    assert build_routes(_manifest(allowDestructiveTools=False), _tools(tool))[0].hidden is hidden
    assert build_routes(_manifest(allowDestructiveTools=True), _tools(tool))[0].hidden is False


def test_privileged_tools_of_a_manifest_are_hidden_from_agents_but_reachable_by_the_hub() -> None:
    router = ToolRouter()
    router.set_tools(_manifest(privilegedTools=["intake_*"]), _tools("intake_ack", "intake_pending", "send_message"))
    assert [r.exposed for r in router.public_routes()] == ["filer_send_message"]
    assert router.resolve("filer_intake_ack") is None
    assert router.resolve("filer_intake_ack", privileged=True) is not None


def test_hidden_tools_are_reachable_only_through_the_privileged_route() -> None:
    router = ToolRouter()
    router.set_tools(_manifest(), _tools("delete_file", "read_file"))
    assert router.resolve("filer_delete_file") is None
    assert router.resolve("filer_delete_file", privileged=True) is not None
    assert [r.exposed for r in router.public_routes()] == ["filer_read_file"]


def test_a_restart_replaces_the_routes_of_that_mcp_only() -> None:
    router = ToolRouter()
    router.set_tools(_manifest(), _tools("a", "b"))
    router.set_tools(_manifest(mcpName="web", label="Web"), _tools("fetch"))
    router.set_tools(_manifest(), _tools("a"))
    assert sorted(r.exposed for r in router.public_routes()) == ["filer_a", "web_fetch"]


def test_unknown_names_get_the_closest_real_names() -> None:
    names = ["filer_read_file", "filer_list_files", "memory_store_fact"]
    assert closest_names("filer_reed_file", names)[0] == "filer_read_file"
    assert closest_names("filer_qqqqqqqqqqqqqqqqqqqq", names) == ["filer_list_files", "filer_read_file"]


def _result(text: str, *, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def test_a_first_party_envelope_passes_through() -> None:
    envelope = {"success": False, "error": "nope", "errorCode": "NOT_ALLOWED"}
    assert to_envelope("filer_x", _result(json.dumps(envelope), is_error=True)) == envelope


def test_plain_text_from_an_external_mcp_becomes_data() -> None:
    assert to_envelope("ext_x", _result("hello")) == {"success": True, "data": "hello"}
    failed = to_envelope("ext_x", _result("Error executing tool x: it broke", is_error=True))
    assert failed == {"success": False, "error": "it broke", "errorCode": "TOOL_ERROR"}


def test_sdk_validation_text_becomes_invalid_arguments_without_pydantic_noise() -> None:
    text = (
        "Error executing tool read_file: 2 validation errors for read_fileArguments\n"
        "path\n  Field required [type=missing, input_value={}, input_type=dict]\n"
        "    For further information visit https://errors.pydantic.dev/2.14/v/missing\n"
        "limit\n  Input should be a valid integer [type=int_parsing, input_value='x', input_type=str]\n"
    )
    envelope = to_envelope("filer_read_file", _result(text, is_error=True))
    assert envelope["errorCode"] == "INVALID_ARGUMENTS"
    assert envelope["error"] == (
        "Invalid arguments for filer_read_file: path: Field required; limit: Input should be a valid integer"
    )
    assert "pydantic.dev" not in describe_sdk_validation(text)


def test_a_json_looking_text_that_is_not_an_envelope_is_data() -> None:
    assert to_envelope("ext_x", _result('{"rows": 3}')) == {"success": True, "data": '{"rows": 3}'}


def _package(root: Path, folder: str, **fields: object) -> None:
    (root / folder).mkdir()
    manifest = {"mcpName": folder.removesuffix("_mcp"), "label": "L", "toolGroup": "G", **fields}
    (root / folder / "manifest.json").write_text(json.dumps(manifest))


def test_discovery_finds_packages_puts_guardian_apart_and_honours_enabled_flags(tmp_path: Path) -> None:
    _package(tmp_path, "guardian_mcp", role="guardian")
    _package(tmp_path, "filer_mcp")
    _package(tmp_path, "gmail_mcp")
    _package(tmp_path, "broken_mcp", timeout=-1)
    (tmp_path / "notes").mkdir()
    found = discover(tmp_path, {"GMAIL_MCP_ENABLED": "false"})
    assert found.guardian is not None and found.guardian.name == "guardian"
    assert [spec.name for spec in found.others] == ["filer"]
    assert found.disabled == ["gmail"]
    assert len(found.problems) == 1 and "broken_mcp" in found.problems[0] and "timeout" in found.problems[0]


def test_an_enabled_flag_that_is_not_a_boolean_is_a_reported_problem(tmp_path: Path) -> None:
    _package(tmp_path, "filer_mcp")
    found = discover(tmp_path, {"FILER_MCP_ENABLED": "maybe"})
    assert found.specs == [] and "FILER_MCP_ENABLED='maybe'" in found.problems[0]
