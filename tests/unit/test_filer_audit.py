"""The audit log: one JSON line per operation, filtered newest first, never any content."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from filer_mcp import audit
from filer_mcp.audit import AuditEntry, AuditLog, parse_date_from, select_entries


def test_each_record_is_one_json_line_with_the_fields_of_the_contract(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "logs" / "audit.jsonl")
    log.record("read_file", "notes/a.md", success=True)
    log.record("move_file", "a.md", success=False, error="b.md already exists.", destination="b.md")
    lines = [json.loads(line) for line in (tmp_path / "logs" / "audit.jsonl").read_text().splitlines()]
    assert set(lines[0]) == {"ts", "operation", "path", "success"}
    assert lines[1] == {
        "ts": lines[1]["ts"],
        "operation": "move_file",
        "path": "a.md",
        "destination": "b.md",
        "success": False,
        "error": "b.md already exists.",
    }
    assert datetime.fromisoformat(lines[0]["ts"]).tzinfo is not None


def test_very_long_paths_are_clipped_in_the_log(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record("read_file", "a" * 10_000, success=False, error="too long")
    assert len(log.entries()[0].path) <= audit.MAX_RECORDED_CHARS + 1


def test_concurrent_records_never_interleave(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")

    def write(worker: int) -> None:
        for index in range(50):
            log.record("create_file", f"w{worker}/{index}.txt" + "x" * 500, success=True)

    threads = [threading.Thread(target=write, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(log.entries()) == 400


def test_an_unwritable_audit_log_never_fails_the_operation(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the folder should be")
    AuditLog(tmp_path / "blocker" / "audit.jsonl").record("read_file", "a", success=True)


def test_a_missing_log_reads_as_empty_and_garbage_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    assert AuditLog(path).entries() == []
    path.write_text('not json\n{"ts": "2026-01-01T00:00:00+00:00", "operation": "x", "path": "p", "success": true}\n')
    assert [entry.operation for entry in AuditLog(path).entries()] == ["x"]


def _entry(ts: str, operation: str = "read_file", path: str = "a.md", destination: str | None = None) -> AuditEntry:
    return AuditEntry(ts=ts, operation=operation, path=path, success=True, destination=destination)


_ENTRIES = [
    _entry("2026-11-01T10:00:00+00:00", "read_file", "notes/a.md"),
    _entry("2026-11-02T10:00:00+00:00", "delete_file", "notes/b.md"),
    _entry("2026-11-03T10:00:00+00:00", "move_file", "x.md", destination="notes/x.md"),
    _entry("2026-11-04T10:00:00+00:00", "read_file", "other/c.md"),
]


@pytest.mark.parametrize(
    ("filters", "paths"),
    [
        ({}, ["other/c.md", "x.md", "notes/b.md", "notes/a.md"]),
        ({"limit": 2}, ["other/c.md", "x.md"]),
        ({"path_filter": "notes/"}, ["x.md", "notes/b.md", "notes/a.md"]),
        ({"operation_filter": "read_file"}, ["other/c.md", "notes/a.md"]),
        ({"date_from": datetime(2026, 11, 3, tzinfo=UTC)}, ["other/c.md", "x.md"]),
        ({"path_filter": "notes", "operation_filter": "delete_file"}, ["notes/b.md"]),
    ],
)
def test_entries_are_filtered_and_returned_newest_first(filters: dict[str, object], paths: list[str]) -> None:
    assert [entry.path for entry in select_entries(_ENTRIES, **filters)] == paths  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-21", datetime(2026, 11, 21, tzinfo=UTC)),
        ("2026-11-21T09:30:00Z", datetime(2026, 11, 21, 9, 30, tzinfo=UTC)),
        ("2026-11-21T09:30:00", datetime(2026, 11, 21, 9, 30, tzinfo=UTC)),
    ],
)
def test_dates_are_read_in_iso_form_and_naive_ones_taken_as_utc(text: str, expected: datetime) -> None:
    assert parse_date_from(text) == expected


def test_a_date_that_is_not_iso_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_date_from("last tuesday")


def test_entries_with_the_same_timestamp_keep_the_order_they_were_written_in_newest_first() -> None:
    same = "2026-11-01T10:00:00.000+00:00"
    entries = [_entry(same, path="first"), _entry(same, path="second"), _entry(same, path="third")]
    assert [entry.path for entry in select_entries(entries)] == ["third", "second", "first"]


def test_lone_surrogates_in_a_path_are_logged_as_visible_escapes_in_plain_utf8(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    log.record("read_file", "bad\udcff.txt\ud800", success=False, error="refused \udcff")
    raw = (tmp_path / "audit.jsonl").read_bytes()
    raw.decode("utf-8")
    entry = log.entries()[0]
    assert entry.path == "bad\\udcff.txt\\ud800"
    assert entry.error == "refused \\udcff"
