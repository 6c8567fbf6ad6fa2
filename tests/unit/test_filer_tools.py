"""The 13 Filer tools, called in-process through an MCP client, as the hub would call them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from filer_mcp.server import server

TOOLS = {
    "create_file",
    "read_file",
    "list_files",
    "update_file",
    "delete_file",
    "move_file",
    "copy_file",
    "search_files",
    "check_grant",
    "request_grant",
    "list_grants",
    "get_workspace_info",
    "get_audit_log",
}


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert result.is_error == (not envelope["success"])
    return envelope


async def rejected_by_schema(client: Client, tool: str, **arguments: Any) -> str:
    """Arguments outside the schema are an INVALID_ARGUMENTS envelope: one sentence, no pydantic noise."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    envelope = json.loads(str(result.content[0].text))  # type: ignore[union-attr]
    assert envelope["errorCode"] == "INVALID_ARGUMENTS", envelope
    assert "pydantic" not in envelope["error"] and "[type=" not in envelope["error"], envelope
    return str(envelope["error"])


def ok(envelope: dict[str, Any]) -> Any:
    assert envelope["success"], envelope
    return envelope["data"]


def refused(envelope: dict[str, Any], code: str) -> str:
    assert not envelope["success"], envelope
    assert envelope["errorCode"] == code, envelope
    return str(envelope["error"])


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = (tmp_path / "ws").resolve()
    folder.mkdir()
    monkeypatch.setenv("FILER_WORKSPACE", str(folder))
    return folder


@pytest.fixture
def grants_file(annabelle_home: Path) -> Path:
    return annabelle_home.resolve() / "filer" / "grants.json"


def make_file(path: Path, text: str, *, age_days: float = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if age_days:
        then = time.time() - age_days * 86_400
        os.utime(path, (then, then))
    return path


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "report.txt").write_text("quarterly numbers", encoding="utf-8")
    return folder


def grant(annabelle_home: Path, *entries: tuple[Path, str]) -> Path:
    grants_file = annabelle_home / "filer" / "grants.json"
    grants_file.parent.mkdir(parents=True, exist_ok=True)
    grants = [{"path": str(path), "permission": permission} for path, permission in entries]
    grants_file.write_text(json.dumps({"grants": grants}), encoding="utf-8")
    return grants_file


# -- the catalogue -----------------------------------------------------------------------------------------


async def test_the_server_offers_the_thirteen_tools_of_the_original_with_documented_parameters(
    workspace: Path,
) -> None:
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.description and len(tool.description.splitlines()[0]) <= 100, tool.name
        for name, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"
    schemas = {tool.name: tool.input_schema for tool in tools}
    assert schemas["create_file"]["required"] == ["path", "content"]
    assert schemas["search_files"]["properties"]["search_in"]["default"] == "workspace"
    assert schemas["get_audit_log"]["properties"]["limit"]["default"] == 100


async def test_the_workspace_and_its_temp_folder_are_created_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = tmp_path / "not" / "yet" / "there"
    monkeypatch.setenv("FILER_WORKSPACE", str(fresh))
    async with Client(server) as client:
        info = ok(await call(client, "get_workspace_info"))
    assert (fresh / "temp").is_dir()
    assert info == {"workspace_path": str(fresh), "total_files": 0, "total_size_mb": 0.0, "temp_files": 0}


# -- create, read, update ----------------------------------------------------------------------------------


async def test_a_created_file_reads_back_with_its_size_and_time(workspace: Path) -> None:
    async with Client(server) as client:
        created = ok(await call(client, "create_file", path="notes/todo.md", content="buy milk ✓"))
        read = ok(await call(client, "read_file", path="notes/todo.md"))
    assert created == {
        "path": "notes/todo.md",
        "size_bytes": 12,
        "created_at": created["created_at"],
        "overwritten": False,
    }
    assert read["content"] == "buy milk ✓"
    assert read["size_bytes"] == 12
    assert read["path"] == "notes/todo.md"
    assert read["modified_at"].endswith("+00:00")


async def test_creating_over_an_existing_file_needs_overwrite(workspace: Path) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="a.txt", content="one"))
        error = refused(await call(client, "create_file", path="a.txt", content="two"), "TOOL_ERROR")
        assert "overwrite=true" in error
        assert (workspace / "a.txt").read_text() == "one"
        replaced = ok(await call(client, "create_file", path="a.txt", content="two", overwrite=True))
    assert replaced["overwritten"] is True
    assert (workspace / "a.txt").read_text() == "two"


async def test_the_workspace_folder_itself_is_never_a_file_to_write(workspace: Path) -> None:
    async with Client(server) as client:
        for path in (".", "./", str(workspace)):
            error = refused(
                await call(client, "create_file", path=path, content="x", overwrite=True), "INVALID_ARGUMENTS"
            )
            assert "workspace folder itself" in error
        refused(await call(client, "update_file", path=".", content="x"), "INVALID_ARGUMENTS")
        refused(await call(client, "delete_file", path="."), "NOT_ALLOWED")


async def test_reading_a_missing_file_names_it_relative_to_the_workspace(workspace: Path) -> None:
    async with Client(server) as client:
        error = refused(await call(client, "read_file", path="notes/nope.md"), "TOOL_ERROR")
    assert error == "'notes/nope.md' in the workspace does not exist."
    assert str(workspace) not in error


async def test_reading_a_folder_points_to_list_files(workspace: Path) -> None:
    async with Client(server) as client:
        error = refused(await call(client, "read_file", path="temp"), "TOOL_ERROR")
    assert "list_files" in error


async def test_binary_files_are_not_returned_as_text(workspace: Path) -> None:
    (workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (workspace / "latin1.txt").write_bytes("café".encode("latin-1"))
    async with Client(server) as client:
        assert "binary" in refused(await call(client, "read_file", path="image.png"), "TOOL_ERROR")
        assert "not UTF-8" in refused(await call(client, "read_file", path="latin1.txt"), "TOOL_ERROR")


async def test_files_above_the_read_limit_are_refused_in_both_directions(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILER_MAX_READ_BYTES", "10")
    (workspace / "big.txt").write_text("x" * 11)
    async with Client(server) as client:
        assert "FILER_MAX_READ_BYTES" in refused(await call(client, "read_file", path="big.txt"), "TOOL_ERROR")
        error = refused(await call(client, "create_file", path="new.txt", content="y" * 11), "INVALID_ARGUMENTS")
    assert "FILER_MAX_READ_BYTES" in error
    assert not (workspace / "new.txt").exists()


async def test_updating_keeps_the_previous_version_as_bak(workspace: Path) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="doc.md", content="v1"))
        updated = ok(await call(client, "update_file", path="doc.md", content="v2"))
        ok(await call(client, "update_file", path="doc.md", content="v3", create_backup=False))
    assert updated == {
        "path": "doc.md",
        "size_bytes": 2,
        "updated_at": updated["updated_at"],
        "backup_path": "doc.md.bak",
    }
    assert (workspace / "doc.md").read_text() == "v3"
    assert (workspace / "doc.md.bak").read_text() == "v1"


async def test_append_adds_a_line_at_the_end_and_keeps_the_old_version(workspace: Path) -> None:
    (workspace / "shopping.txt").write_text("apples")
    async with Client(server) as client:
        first = ok(await call(client, "update_file", path="shopping.txt", content="bananas\n", append=True))
        ok(await call(client, "update_file", path="shopping.txt", content="pears", append=True, create_backup=False))
    assert first["size_bytes"] == len("apples\nbananas\n")
    assert (workspace / "shopping.txt").read_text() == "apples\nbananas\npears"
    assert (workspace / "shopping.txt.bak").read_text() == "apples"


async def test_append_past_the_size_limit_is_refused_and_changes_nothing(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILER_MAX_READ_BYTES", "10")
    (workspace / "log.txt").write_text("12345678")
    async with Client(server) as client:
        error = refused(await call(client, "update_file", path="log.txt", content="abc", append=True), "TOOL_ERROR")
    assert "FILER_MAX_READ_BYTES" in error
    assert (workspace / "log.txt").read_text() == "12345678"
    assert not (workspace / "log.txt.bak").exists()


async def test_updating_a_missing_file_points_to_create_file(workspace: Path) -> None:
    async with Client(server) as client:
        error = refused(await call(client, "update_file", path="nope.md", content="x"), "TOOL_ERROR")
    assert "create_file" in error
    assert not (workspace / "nope.md").exists()


# -- delete, move, copy ------------------------------------------------------------------------------------


async def test_deleting_removes_files_and_empty_folders_but_not_full_ones(workspace: Path) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="d/f.txt", content="x"))
        assert "not empty" in refused(await call(client, "delete_file", path="d"), "TOOL_ERROR")
        assert ok(await call(client, "delete_file", path="d/f.txt")) == {"deleted_path": "d/f.txt", "type": "file"}
        assert ok(await call(client, "delete_file", path="d")) == {"deleted_path": "d", "type": "directory"}
        assert "does not exist" in refused(await call(client, "delete_file", path="d"), "TOOL_ERROR")


async def test_deleting_a_symlink_that_points_outside_removes_only_the_link(workspace: Path, outside: Path) -> None:
    (workspace / "link").symlink_to(outside / "report.txt")
    async with Client(server) as client:
        assert ok(await call(client, "delete_file", path="link"))["type"] == "symlink"
    assert (outside / "report.txt").read_text() == "quarterly numbers"


async def test_moving_renames_within_the_workspace_and_never_replaces(workspace: Path) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="a.txt", content="a"))
        ok(await call(client, "create_file", path="b.txt", content="b"))
        assert "already exists" in refused(
            await call(client, "move_file", source="a.txt", destination="b.txt"), "TOOL_ERROR"
        )
        moved = ok(await call(client, "move_file", source="a.txt", destination="archive/2026/a.txt"))
        assert moved == {"old_path": "a.txt", "new_path": "archive/2026/a.txt", "type": "file"}
        refused(await call(client, "move_file", source="archive", destination="archive/inner"), "INVALID_ARGUMENTS")
    assert (workspace / "archive" / "2026" / "a.txt").read_text() == "a"
    assert (workspace / "b.txt").read_text() == "b"


async def test_copying_brings_a_granted_file_into_the_workspace_but_never_writes_out(
    workspace: Path, outside: Path, annabelle_home: Path
) -> None:
    grant(annabelle_home, (outside, "read-write"))
    source = str(outside / "report.txt")
    async with Client(server) as client:
        copied = ok(await call(client, "copy_file", source=source, destination="inbox/report.txt"))
        assert copied == {"source_path": source, "destination_path": "inbox/report.txt", "size_bytes": 17}
        refused(
            await call(client, "copy_file", source="inbox/report.txt", destination=str(outside / "x.txt")),
            "NOT_ALLOWED",
        )
        refused(await call(client, "move_file", source="inbox/report.txt", destination=source), "NOT_ALLOWED")
        refused(await call(client, "update_file", path=source, content="changed"), "NOT_ALLOWED")
        refused(await call(client, "delete_file", path=source), "NOT_ALLOWED")
        refused(await call(client, "create_file", path=str(outside / "new.txt"), content="x"), "NOT_ALLOWED")
        assert "folder" in refused(await call(client, "copy_file", source="inbox", destination="x"), "TOOL_ERROR")
    assert (workspace / "inbox" / "report.txt").read_text() == "quarterly numbers"
    assert names(outside) == ["report.txt"]


# -- list and search ---------------------------------------------------------------------------------------


async def test_listing_shows_folders_with_a_slash_and_recurses_on_request(workspace: Path) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="notes/a.md", content="a"))
        ok(await call(client, "create_file", path="b.txt", content="bb"))
        flat = ok(await call(client, "list_files"))
        deep = ok(await call(client, "list_files", path="notes", recursive=True))
        assert "read_file" in refused(await call(client, "list_files", path="b.txt"), "TOOL_ERROR")
    assert [(entry["name"], entry["type"]) for entry in flat["files"]] == [
        ("b.txt", "file"),
        ("notes/", "directory"),
        ("temp/", "directory"),
    ]
    assert flat["files"][0]["size_bytes"] == 2
    assert deep == {
        "path": "notes",
        "files": [
            {
                "name": "a.md",
                "path": "notes/a.md",
                "type": "file",
                "size_bytes": 1,
                "modified_at": deep["files"][0]["modified_at"],
            }
        ],
        "truncated": False,
    }


async def test_a_granted_listing_hides_the_protected_locations_inside_it(workspace: Path, annabelle_home: Path) -> None:
    (annabelle_home / "data").mkdir()
    (annabelle_home / "data" / "memory.db").write_text("secret facts")
    (annabelle_home / "annabelle.token").write_text("secret-token")
    (annabelle_home / "notes.txt").write_text("fine")
    grant(annabelle_home, (annabelle_home, "read"))
    async with Client(server) as client:
        listing = ok(await call(client, "list_files", path=str(annabelle_home), recursive=True))
        refused(await call(client, "read_file", path=str(annabelle_home / "annabelle.token")), "NOT_ALLOWED")
        refused(await call(client, "list_files", path=str(annabelle_home / "data")), "NOT_ALLOWED")
        hits = ok(await call(client, "search_files", query="secret", search_in="granted", search_type="content"))
    names = {entry["name"] for entry in listing["files"]}
    assert "notes.txt" in names
    assert not names & {"data/", "data/memory.db", "annabelle.token", "filer/grants.json"}
    assert hits["results"] == []


async def test_search_finds_names_by_substring_or_wildcard_and_text_with_a_snippet(workspace: Path) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="notes/Meeting-2026.md", content="Agenda\nBudget review at noon"))
        ok(await call(client, "create_file", path="notes/todo.txt", content="call the bank"))
        by_name = ok(await call(client, "search_files", query="meeting"))
        by_glob = ok(await call(client, "search_files", query="*.txt"))
        by_text = ok(await call(client, "search_files", query="budget", search_type="content"))
        by_type = ok(await call(client, "search_files", query="t", file_types=["md"]))
        refused(await call(client, "search_files", query="  "), "INVALID_ARGUMENTS")
    assert [hit["path"] for hit in by_name["results"]] == ["notes/Meeting-2026.md"]
    assert [hit["path"] for hit in by_glob["results"]] == ["notes/todo.txt"]
    assert by_text["results"][0]["snippet"] == "Agenda Budget review at noon"
    assert by_text["results"][0]["match_type"] == "content"
    assert [hit["path"] for hit in by_type["results"]] == ["notes/Meeting-2026.md"]


async def test_search_covers_granted_folders_when_asked(workspace: Path, outside: Path, annabelle_home: Path) -> None:
    grant(annabelle_home, (outside, "read"))
    async with Client(server) as client:
        ok(await call(client, "create_file", path="report-draft.txt", content="draft"))
        granted = ok(await call(client, "search_files", query="report", search_in="granted"))
        everywhere = ok(await call(client, "search_files", query="report", search_in="all"))
    assert [hit["path"] for hit in granted["results"]] == [str(outside / "report.txt")]
    assert granted["searched_locations"] == [str(outside)]
    assert {hit["path"] for hit in everywhere["results"]} == {"report-draft.txt", str(outside / "report.txt")}


# -- grants ------------------------------------------------------------------------------------------------


async def test_check_grant_tells_workspace_granted_ungranted_and_protected_apart(
    workspace: Path, outside: Path, annabelle_home: Path
) -> None:
    grant(annabelle_home, (outside, "read"))
    async with Client(server) as client:
        inside = ok(await call(client, "check_grant", path="notes/a.md"))
        granted = ok(await call(client, "check_grant", path=str(outside / "report.txt")))
        ungranted = ok(await call(client, "check_grant", path=str(outside.parent / "elsewhere")))
        protected = ok(await call(client, "check_grant", path="/etc/passwd"))
    assert (inside["has_access"], inside["scope"], inside["permission"]) == (True, "workspace", "read-write")
    assert (granted["has_access"], granted["scope"], granted["permission"]) == (True, "granted", "read")
    assert granted["granted_path"] == str(outside)
    assert ungranted["has_access"] is False and "request_grant" in ungranted["reason"]
    assert protected["has_access"] is False and "protected" in protected["reason"]


async def test_request_grant_explains_the_file_to_edit_and_grants_nothing(
    workspace: Path, outside: Path, grants_file: Path, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        answer = ok(
            await call(client, "request_grant", path=str(outside), permission="read", reason="summarise reports")
        )
        assert grants_file.name not in names(grants_file.parent.parent)
        refused(await call(client, "read_file", path=str(outside / "report.txt")), "NOT_ALLOWED")
        # The user follows the instructions; the next call sees the grant without a restart.
        grant(annabelle_home, (Path(answer["entry"]["path"]), answer["entry"]["permission"]))
        assert ok(await call(client, "read_file", path=str(outside / "report.txt")))["content"] == "quarterly numbers"
        again = ok(await call(client, "request_grant", path=str(outside), permission="read", reason="again"))
        upgrade = ok(await call(client, "request_grant", path=str(outside), permission="read-write", reason="edit"))
        denied = ok(await call(client, "request_grant", path="/etc", permission="read", reason="curious"))
        refused(await call(client, "request_grant", path="notes", permission="read", reason="x"), "INVALID_ARGUMENTS")
        await rejected_by_schema(client, "request_grant", path=str(outside), permission="write", reason="x")
    assert answer["status"] == "configure_required"
    assert answer["grants_file"] == str(grants_file)
    assert answer["entry"] == {"path": str(outside), "permission": "read"}
    assert str(grants_file) in answer["message"] and json.dumps(answer["entry"]) in answer["message"]
    assert again["status"] == "granted"
    assert upgrade["status"] == "configure_required"
    assert denied["status"] == "denied"


async def test_list_grants_shows_each_grant_resolved(workspace: Path, outside: Path, annabelle_home: Path) -> None:
    grant(annabelle_home, (outside, "read"), (outside.parent / "gone", "read-write"))
    async with Client(server) as client:
        listed = ok(await call(client, "list_grants"))
    assert listed["grants"] == [
        {"path": str(outside), "permission": "read", "exists": True},
        {"path": str(outside.parent / "gone"), "permission": "read-write", "exists": False},
    ]


async def test_a_broken_grants_file_is_reported_while_the_workspace_keeps_working(
    workspace: Path, outside: Path, annabelle_home: Path
) -> None:
    grants_file = grant(annabelle_home)
    grants_file.write_text('{"grants": [{"path": "relative/dir", "permission": "read"}]}')
    async with Client(server) as client:
        for tool, arguments in (
            ("list_grants", {}),
            ("check_grant", {"path": str(outside)}),
            ("read_file", {"path": str(outside / "report.txt")}),
            ("search_files", {"query": "x", "search_in": "all"}),
        ):
            error = refused(await call(client, tool, **arguments), "TOOL_ERROR")
            assert str(grants_file) in error and "absolute path" in error, tool
        ok(await call(client, "create_file", path="still.txt", content="works"))
        assert ok(await call(client, "read_file", path="still.txt"))["content"] == "works"


# -- configuration and start-up ----------------------------------------------------------------------------


async def test_a_bad_setting_makes_every_tool_say_what_to_fix_instead_of_crashing(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILER_MAX_READ_BYTES", "lots")
    async with Client(server) as client:
        assert len((await client.list_tools()).tools) == 13
        error = refused(await call(client, "read_file", path="a.txt"), "TOOL_ERROR")
    assert "FILER_MAX_READ_BYTES" in error


@pytest.mark.parametrize("inside", ["", "data/files"])
async def test_a_workspace_that_would_expose_annabelles_own_files_is_refused_before_anything_is_created(
    annabelle_home: Path, monkeypatch: pytest.MonkeyPatch, inside: str
) -> None:
    monkeypatch.setenv("FILER_WORKSPACE", str(annabelle_home / inside))
    async with Client(server) as client:
        error = refused(await call(client, "list_files"), "TOOL_ERROR")
    assert "FILER_WORKSPACE" in error
    assert "temp" not in names(annabelle_home) and "data" not in names(annabelle_home)


async def test_old_temp_files_are_removed_at_start(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = make_file(workspace / "temp" / "stale.txt", "old", age_days=30)
    fresh = make_file(workspace / "temp" / "fresh.txt", "new")
    monkeypatch.setenv("FILER_TEMP_CLEANUP_DAYS", "0")
    async with Client(server) as client:
        assert ok(await call(client, "get_workspace_info"))["temp_files"] == 2
    monkeypatch.setenv("FILER_TEMP_CLEANUP_DAYS", "7")
    async with Client(server) as client:
        assert ok(await call(client, "get_workspace_info"))["temp_files"] == 1
    assert fresh.exists() and not stale.exists()


async def test_workspace_info_counts_files_their_size_and_temp_files(workspace: Path) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="a.txt", content="x" * 1024 * 1024))
        ok(await call(client, "create_file", path="temp/scratch.txt", content="y"))
        info = ok(await call(client, "get_workspace_info"))
    assert (info["total_files"], info["total_size_mb"], info["temp_files"]) == (2, 1.0, 1)


# -- audit ---------------------------------------------------------------------------------------------------


async def test_every_operation_is_audited_refusals_included_and_content_never(
    workspace: Path, annabelle_home: Path
) -> None:
    async with Client(server) as client:
        ok(await call(client, "create_file", path="diary.md", content="my secret diary"))
        ok(await call(client, "read_file", path="diary.md"))
        refused(await call(client, "read_file", path="../../etc/passwd"), "NOT_ALLOWED")
        ok(await call(client, "move_file", source="diary.md", destination="private/diary.md"))
        page = ok(await call(client, "get_audit_log"))
        reads = ok(await call(client, "get_audit_log", operation_filter="read_file"))
        private = ok(await call(client, "get_audit_log", path_filter="private/"))
        future = ok(await call(client, "get_audit_log", date_from="2999-01-01"))
        refused(await call(client, "get_audit_log", date_from="yesterday"), "INVALID_ARGUMENTS")
        assert "limit" in await rejected_by_schema(client, "get_audit_log", limit=0)
    log_text = (annabelle_home / "logs" / "fileops-audit.jsonl").read_text(encoding="utf-8")
    assert "my secret diary" not in log_text
    assert [entry["operation"] for entry in page["entries"]] == ["move_file", "read_file", "read_file", "create_file"]
    refusal = page["entries"][1]
    assert (refusal["path"], refusal["success"]) == ("../../etc/passwd", False)
    assert "'..'" in refusal["error"]
    assert reads["count"] == 2
    assert private["entries"][0]["destination"] == "private/diary.md"
    assert future["entries"] == []


async def test_the_audit_log_location_follows_its_setting(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FILER_AUDIT_LOG", str(tmp_path / "audit" / "ops.jsonl"))
    async with Client(server) as client:
        ok(await call(client, "create_file", path="a.txt", content="a"))
    assert json.loads((tmp_path / "audit" / "ops.jsonl").read_text())["operation"] == "create_file"
