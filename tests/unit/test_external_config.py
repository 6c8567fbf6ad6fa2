"""external-mcps.json parsing, `${VAR}` substitution, reload plans and the last-known set: pure functions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orchestrator.external_config import (
    ExternalServer,
    MissingVariable,
    describe_changes,
    diff_known,
    known_set,
    parse_config,
    plan_changes,
    substitute,
)

BASE = Path("/etc/annabelle")


def parse(servers: dict[str, Any], environ: dict[str, str] | None = None, reserved: set[str] | None = None):
    return parse_config({"mcpServers": servers}, environ or {}, reserved=reserved or set(), base=BASE, source="x.json")


@pytest.mark.parametrize(
    ("text", "environ", "expected"),
    [
        ("Bearer ${TOKEN}", {"TOKEN": "abc"}, "Bearer abc"),
        ("${A}-${B}", {"A": "1", "B": "2"}, "1-2"),
        ("${MISSING:-fallback}", {}, "fallback"),
        ("${SET:-fallback}", {"SET": "given"}, "given"),
        ("${EMPTY}", {"EMPTY": ""}, ""),
        ("no variables, $HOME stays", {"HOME": "/h"}, "no variables, $HOME stays"),
    ],
)
def test_variables_are_substituted_from_the_environment(text: str, environ: dict[str, str], expected: str) -> None:
    assert substitute(text, environ, where="args.0") == expected


def test_a_missing_variable_names_itself_and_where_it_is_used() -> None:
    with pytest.raises(MissingVariable) as caught:
        substitute("Bearer ${GITHUB_TOKEN}", {}, where="headers.Authorization")
    assert caught.value.variable == "GITHUB_TOKEN"
    assert "headers.Authorization uses ${GITHUB_TOKEN}, which is not set" in str(caught.value)


def test_a_stdio_entry_resolves_command_args_env_and_a_relative_cwd() -> None:
    config = parse(
        {
            "notes": {
                "command": "${TOOLS}/notes-mcp",
                "args": ["--dir", "${HOME}/notes"],
                "env": {"API_KEY": "${NOTES_KEY}"},
                "cwd": "servers",
            }
        },
        {"TOOLS": "/opt", "HOME": "/home/me", "NOTES_KEY": "k"},
    )
    assert config.problems == []
    server = config.servers["notes"]
    assert server.kind == "stdio"
    assert server.argv == ("/opt/notes-mcp", "--dir", "/home/me/notes")
    assert dict(server.env) == {"API_KEY": "k"}
    assert server.cwd == BASE / "servers"


def test_a_stdio_server_inherits_only_a_few_safe_variables_plus_its_own_env() -> None:
    server = parse({"notes": {"command": "x", "env": {"A": "1"}}}).servers["notes"]
    environ = {"PATH": "/bin", "HOME": "/h", "ANNABELLE_TOKEN": "secret", "GROQ_API_KEY": "k", "A": "outer"}
    assert server.child_env(environ) == {"PATH": "/bin", "HOME": "/h", "A": "1"}


def test_an_http_entry_is_inferred_from_its_url_and_resolves_headers() -> None:
    config = parse(
        {"github": {"url": "https://api.example.com/mcp/", "headers": {"Authorization": "Bearer ${GH}"}}}, {"GH": "t"}
    )
    server = config.servers["github"]
    assert server.kind == "http" and server.url == "https://api.example.com/mcp/"
    assert dict(server.headers) == {"Authorization": "Bearer t"}


def test_an_sse_entry_keeps_its_transport_and_headers() -> None:
    config = parse(
        {"posthog": {"type": "sse", "url": "https://mcp.example.com/sse", "headers": {"X-Key": "${K}"}}}, {"K": "v"}
    )
    server = config.servers["posthog"]
    assert (server.kind, server.url, dict(server.headers)) == ("sse", "https://mcp.example.com/sse", {"X-Key": "v"})


def test_externals_default_to_scanning_both_ways_hiding_destructive_tools_and_not_required() -> None:
    manifest = parse({"notes": {"command": "x"}}).servers["notes"].manifest
    assert manifest.guardianScan.input is True and manifest.guardianScan.output is True
    assert manifest.allowDestructiveTools is False and manifest.required is False
    assert (manifest.label, manifest.toolGroup, manifest.timeout) == ("notes", "External", 30.0)


def test_metadata_of_an_entry_reaches_its_manifest() -> None:
    manifest = (
        parse(
            {
                "notes": {
                    "command": "x",
                    "label": "Notes",
                    "toolGroup": "Knowledge",
                    "keywords": ["note"],
                    "guardianScan": {"input": False, "output": True},
                    "allowDestructiveTools": True,
                    "timeout": 5,
                    "toolAnnotations": {"search": {"readOnlyHint": True}},
                    "trusted": True,
                }
            }
        )
        .servers["notes"]
        .manifest
    )
    assert (manifest.label, manifest.toolGroup, manifest.keywords) == ("Notes", "Knowledge", ["note"])
    assert manifest.guardianScan.input is False and manifest.allowDestructiveTools and manifest.timeout == 5
    assert manifest.toolAnnotations["search"].readOnlyHint is True
    assert manifest.untrustedOutput is False


@pytest.mark.parametrize(
    ("name", "entry", "fragment"),
    [
        ("bad", {"args": ["x"]}, "a stdio server needs 'command'"),
        ("bad", {"command": "x", "url": "https://a"}, "'url' and 'headers' belong to HTTP servers"),
        ("bad", {"type": "http", "command": "x"}, "an HTTP server needs 'url'"),
        ("bad", {"url": "ftp://a"}, "url: String should match pattern"),
        ("bad", {"type": "sse", "command": "x"}, "an SSE server needs 'url'"),
        ("bad", {"command": "x", "timeout": 30000}, "timeout: Input should be less than or equal to 600"),
        ("bad", {"command": "x", "guardianScan": {"inputs": True}}, "guardianScan.inputs: Extra inputs"),
        ("bad", {"command": "x", "envs": {}}, "envs: Extra inputs are not permitted"),
        ("bad", "npx thing", "Input should be a valid dictionary"),
        ("bad", {"command": "x", "args": ["${NOPE}"]}, "args.0 uses ${NOPE}, which is not set"),
        ("brave-search", {"command": "x"}, "must be lower-case letters and digits (e.g. 'bravesearch')"),
        ("memory", {"command": "x"}, "'memory' is already a first-party MCP"),
    ],
)
def test_a_bad_entry_is_reported_by_name_and_field_and_the_others_still_load(
    name: str, entry: Any, fragment: str
) -> None:
    config = parse({name: entry, "good": {"command": "ok"}}, reserved={"memory"})
    assert list(config.servers) == ["good"]
    assert len(config.problems) == 1
    assert f"'{name}'" in config.problems[0] and fragment in config.problems[0], config.problems
    assert config.problems[0].startswith("x.json: ") and config.problems[0].endswith("skipped.")


def test_type_aliases_of_other_clients_are_accepted() -> None:
    config = parse({"a": {"type": "streamable-http", "url": "http://127.0.0.1:1/mcp"}})
    assert config.servers["a"].kind == "http"


def test_a_disabled_entry_is_listed_but_not_run() -> None:
    config = parse({"a": {"command": "x", "disabled": True}})
    assert config.servers == {} and config.disabled == ["a"]


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ([], "the top level must be an object"),
        ({"mcpServers": []}, '"mcpServers" must be an object'),
        ({"github": {"command": "x"}}, "unknown top-level key 'github' ignored"),
    ],
)
def test_a_file_of_the_wrong_shape_says_what_shape_it_needs(raw: Any, fragment: str) -> None:
    config = parse_config(raw, {}, reserved=set(), base=BASE)
    assert config.servers == {} and fragment in config.problems[0]


def test_an_empty_file_or_empty_servers_is_no_servers_and_no_problem() -> None:
    for raw in ({}, {"mcpServers": {}}):
        config = parse_config(raw, {}, reserved=set(), base=BASE)
        assert config.servers == {} and config.problems == []


def servers(**entries: dict[str, Any]) -> dict[str, ExternalServer]:
    return parse(entries, {"V": "1"}).servers


def test_a_plan_adds_removes_and_restarts_edited_entries() -> None:
    running = servers(a={"command": "x"}, b={"command": "x"}, c={"command": "x", "env": {"K": "1"}})
    wanted = servers(b={"command": "x"}, c={"command": "x", "env": {"K": "2"}}, d={"url": "https://d"})
    plan = plan_changes(running, wanted)
    assert (plan.added, plan.removed, plan.changed) == (("d",), ("a",), ("c",))
    assert not plan_changes(
        wanted, servers(b={"command": "x"}, c={"command": "x", "env": {"K": "2"}}, d={"url": "https://d"})
    )


def test_a_metadata_edit_is_an_edit_too() -> None:
    plan = plan_changes(servers(a={"command": "x"}), servers(a={"command": "x", "guardianScan": {"output": False}}))
    assert plan.changed == ("a",)


def test_the_known_set_diff_names_added_removed_and_reconfigured_servers() -> None:
    before = known_set(["filer", "memory"], servers(a={"command": "x"}, b={"command": "x"}))
    after = known_set(["filer"], servers(b={"command": "y"}, c={"command": "x"}))
    diff = diff_known(before, after)
    assert (diff.added, diff.removed, diff.changed) == (("c",), ("a", "memory"), ("b",))
    assert not diff_known(after, after)


def test_the_known_set_holds_no_secret_from_the_environment() -> None:
    record = known_set([], parse({"a": {"command": "x", "env": {"K": "${SECRET}"}}}, {"SECRET": "hunter2"}).servers)
    assert "hunter2" not in str(record)


@pytest.mark.parametrize("previous", [None, "garbage", {"mcps": []}, {}])
def test_no_or_an_unreadable_saved_set_reports_nothing(previous: object) -> None:
    assert not diff_known(previous, known_set(["filer"], {}))


def test_changes_read_as_one_sentence() -> None:
    assert describe_changes(("github (3 tools)",), ("vercel",), ()) == (
        "MCP servers changed: added github (3 tools); removed vercel."
    )
