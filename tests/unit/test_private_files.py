"""Files Annabelle writes are 0600 and its folders 0700; no log line is longer than 16 KB."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

from guardian_mcp.audit import AuditEntry, AuditLog
from memorizer_mcp.db.connection import connect
from shared.json_lines import MAX_LINE_BYTES, bounded_json_line
from shared.logs import configure_logging
from shared.private_files import open_private, private_dir, private_file, restrict_new_files, write_private
from shared.rotating_file import RotatingAppendFile
from telegram_mcp.store import Store


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_new_files_of_a_restricted_process_are_private_whoever_creates_them(tmp_path: Path) -> None:
    restrict_new_files()
    (tmp_path / "made-by-a-library").write_text("x")
    (tmp_path / "folder").mkdir()
    assert mode(tmp_path / "made-by-a-library") == 0o600
    assert mode(tmp_path / "folder") == 0o700


def test_missing_folders_are_created_0700_and_an_existing_one_keeps_its_mode(tmp_path: Path) -> None:
    os.umask(0o022)
    existing = tmp_path / "users-folder"
    existing.mkdir(mode=0o755)
    private_dir(existing / "a" / "b")
    assert mode(existing) == 0o755
    assert mode(existing / "a") == mode(existing / "a" / "b") == 0o700


def test_a_file_opened_to_write_is_created_0600_and_a_readable_one_is_tightened(tmp_path: Path) -> None:
    os.umask(0o022)
    os.close(open_private(tmp_path / "new.log", os.O_WRONLY))
    old = tmp_path / "old.log"
    old.write_text("from an older version\n")
    old.chmod(0o644)
    os.close(open_private(old, os.O_WRONLY | os.O_APPEND))
    assert mode(tmp_path / "new.log") == 0o600
    assert mode(old) == 0o600 and old.read_text() == "from an older version\n"


def test_a_replaced_file_is_private_and_whole(tmp_path: Path) -> None:
    os.umask(0o022)
    target = tmp_path / "state.json"
    target.write_text("old")
    target.chmod(0o644)
    write_private(target, '{"new": true}')
    assert mode(target) == 0o600 and json.loads(target.read_text()) == {"new": True}
    assert not list(tmp_path.glob(".state.json.*"))  # no temporary file left behind


def test_the_guardian_audit_log_is_0600_even_when_an_older_one_was_0644(tmp_path: Path) -> None:
    os.umask(0o022)
    audit = tmp_path / "logs" / "guardian-audit.jsonl"
    fresh = AuditLog(tmp_path / "fresh" / "guardian-audit.jsonl")
    entry = AuditEntry(
        scan_id="s1", timestamp="2026-01-01T00:00:00Z", source="t", content_hash="0" * 16, content_length=1,
        safe=True, confidence=0.9, threats=[], scanner="rules", latency_ms=1.0,
    )  # fmt: skip
    fresh.append(entry)
    audit.parent.mkdir()
    audit.write_text("")
    audit.chmod(0o644)
    AuditLog(audit).append(entry)
    assert mode(fresh.path) == 0o600 and mode(fresh.path.parent) == 0o700
    assert mode(audit) == 0o600 and len(AuditLog(audit).read()) == 1


def test_sqlite_databases_and_their_wal_files_are_0600(tmp_path: Path) -> None:
    os.umask(0o022)
    memory = connect(tmp_path / "data" / "memory.db")
    memory.execute("CREATE TABLE t (x)")
    memory.execute("INSERT INTO t VALUES (1)")
    telegram = Store(tmp_path / "data" / "telegram.db")
    files = sorted(path.name for path in (tmp_path / "data").iterdir())
    assert {"memory.db", "memory.db-wal", "telegram.db"} <= set(files)
    assert all(mode(tmp_path / "data" / name) == 0o600 for name in files), {
        name: oct(mode(tmp_path / "data" / name)) for name in files
    }
    assert mode(tmp_path / "data") == 0o700
    memory.close()
    telegram.close()


def test_logging_makes_the_logs_folder_and_every_log_file_private(tmp_path: Path) -> None:
    os.umask(0o022)
    logs = tmp_path / "logs"
    logs.mkdir(mode=0o755)
    (logs / "svc.log").write_text("")
    (logs / "svc.log").chmod(0o644)
    configure_logging("svc", logs)
    logging.getLogger("test").warning("hello")
    assert mode(logs / "svc.log") == 0o600 and mode(logs) == 0o700
    assert (logs / "svc.log").read_text().count("hello") == 1
    assert oct(os.umask(0o077)) == oct(0o077)  # the process now creates private files


def test_a_twelve_megabyte_message_becomes_a_log_line_under_16_kb_that_is_still_json(tmp_path: Path) -> None:
    writer = RotatingAppendFile(tmp_path / "svc.log")
    hostile = {f"key{index}": index for index in range(300_000)}
    entry: dict[str, object] = {"ts": "t", "level": "INFO", "msg": "x" * 12_000_000, "body": hostile}
    writer.write((bounded_json_line(entry) + "\n").encode())
    writer.close()
    line = (tmp_path / "svc.log").read_bytes()
    parsed = json.loads(line)
    assert len(line) <= MAX_LINE_BYTES
    assert parsed["cut"] > 12_000_000 and "…[cut " in parsed["msg"] and parsed["level"] == "INFO"


def test_a_short_entry_is_left_as_it_is() -> None:
    assert json.loads(bounded_json_line({"msg": "short", "n": 3})) == {"msg": "short", "n": 3}


def test_private_file_creates_a_database_path_before_sqlite_does(tmp_path: Path) -> None:
    os.umask(0o022)
    path = private_file(tmp_path / "cache" / "vectors.db")
    assert path.exists() and mode(path) == 0o600 and mode(path.parent) == 0o700
