"""Size-based rotation that stays right when several writers (threads or processes) share one file."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shared.logs import JsonLineFormatter, LogFileSettings, SharedRotatingFileHandler
from shared.rotating_file import RotatingAppendFile, rotated_paths

REPO_ROOT = Path(__file__).resolve().parents[2]


def appender(path: Path, max_bytes: int = 100, backups: int = 2) -> RotatingAppendFile:
    # check_seconds=0: every write checks the size, so the tests need no clock.
    return RotatingAppendFile(path, max_bytes, backups, check_seconds=0)


def test_a_file_past_its_size_is_rotated_and_the_oldest_copy_dropped(tmp_path: Path) -> None:
    path = tmp_path / "svc.log"
    log = appender(path, max_bytes=100, backups=2)
    for index in range(8):
        log.write(f"{index:02d}".encode() + b"x" * 47 + b"\n")  # 50 bytes: two lines fill a file
    log.close()
    assert [p.name for p in rotated_paths(path, 2)] == ["svc.log", "svc.log.1", "svc.log.2"]
    assert not (tmp_path / "svc.log.3").exists()
    assert path.read_bytes() == b""
    assert [line[:2] for line in (tmp_path / "svc.log.1").read_text().splitlines()] == ["06", "07"]
    assert [line[:2] for line in (tmp_path / "svc.log.2").read_text().splitlines()] == ["04", "05"]


def test_a_writer_follows_a_rotation_another_writer_did(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    first, second = appender(path), appender(path)
    first.write(b"a" * 60 + b"\n")
    second.write(b"b" * 60 + b"\n")  # the file passes 100 bytes: `second` rotates it
    first.write(b"c\n")  # `first` still held the rotated file: this line lands there, then it reopens
    first.write(b"d\n")
    assert (tmp_path / "traces.jsonl.1").read_bytes() == b"a" * 60 + b"\n" + b"b" * 60 + b"\nc\n"
    assert path.read_bytes() == b"d\n"


def test_a_deleted_file_is_created_again(tmp_path: Path) -> None:
    path = tmp_path / "svc.log"
    log = appender(path, max_bytes=1_000)
    log.write(b"one\n")
    path.unlink()
    log.write(b"two\n")  # into the deleted file; the check then notices and reopens
    log.write(b"three\n")
    assert path.read_bytes() == b"three\n"


def test_with_no_backups_the_file_starts_again(tmp_path: Path) -> None:
    path = tmp_path / "svc.log"
    log = appender(path, max_bytes=10, backups=0)
    log.write(b"0123456789ab\n")
    log.write(b"new\n")
    assert path.read_bytes() == b"new\n" and list(tmp_path.glob("svc.log.*")) == []


def test_the_logging_handler_writes_json_lines_and_rotates(tmp_path: Path) -> None:
    path = tmp_path / "svc.log"
    handler = SharedRotatingFileHandler(path, max_bytes=2_000, backups=3)
    handler.file.check_seconds = 0
    handler.setFormatter(JsonLineFormatter("svc"))
    logger = logging.getLogger("test_log_rotation.handler")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for index in range(100):
            logger.warning("line %d", index, extra={"index": index})
    finally:
        logger.removeHandler(handler)
        handler.close()
    files = [p for p in rotated_paths(path, 3) if p.exists()]
    entries = [json.loads(line) for p in reversed(files) for line in p.read_text().splitlines()]
    assert len(files) == 4 and all(p.stat().st_size <= 2_000 + 200 for p in files)
    assert [e["index"] for e in entries] == list(range(100 - len(entries), 100))  # the newest kept, in order


def test_rotation_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LOG_MAX_BYTES", "LOG_BACKUP_COUNT", "TRACES_ENABLED"):
        monkeypatch.delenv(name, raising=False)
    defaults = LogFileSettings(_env_file=None)  # type: ignore[call-arg]
    assert (defaults.log_max_bytes, defaults.log_backup_count, defaults.traces_enabled) == (10 * 1024 * 1024, 5, True)
    monkeypatch.setenv("LOG_MAX_BYTES", "65536")
    monkeypatch.setenv("LOG_BACKUP_COUNT", "2")
    monkeypatch.setenv("TRACES_ENABLED", "false")
    settings = LogFileSettings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.log_max_bytes, settings.log_backup_count, settings.traces_enabled) == (65536, 2, False)


WRITER = textwrap.dedent(
    """
    import logging, sys
    from pathlib import Path
    from shared.logs import configure_logging
    from shared.traces import trace_event, traced
    name, logs = sys.argv[1], Path(sys.argv[2])
    configure_logging(name, logs, "INFO")
    log = logging.getLogger("writer")
    with traced(name):
        for index in range(1500):
            trace_event("tool_call", writer=name, index=index, padding="p" * 40)
            log.info("line", extra={"index": index})
    """
)


def test_processes_sharing_the_trace_file_lose_and_tear_no_line_across_rotations(tmp_path: Path) -> None:
    # Four processes append ~200 KB each to one traces.jsonl rotated every 20 KB, with every copy kept.
    env = {"LOG_MAX_BYTES": "20000", "LOG_BACKUP_COUNT": "100", "PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin"}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, f"w{n}", str(tmp_path)], env=env, stderr=subprocess.PIPE)
        for n in range(4)
    ]
    for process in writers:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()
    files = [p for p in rotated_paths(tmp_path / "traces.jsonl", 100) if p.exists()]
    assert len(files) > 5
    seen: dict[str, list[int]] = {}
    for path in reversed(files):  # oldest first
        for line in path.read_text().splitlines():
            entry = json.loads(line)  # a torn or interleaved line would not parse
            seen.setdefault(str(entry["writer"]), []).append(int(entry["index"]))
    assert {writer: sorted(indexes) for writer, indexes in seen.items()} == {
        f"w{n}": list(range(1500)) for n in range(4)
    }
    # Each writer checks at most once a second or per 1/16 of the limit it wrote itself: a file overshoots by
    # at most what the writers wrote between two checks.
    assert max(p.stat().st_size for p in files) < 20_000 * 2
    # Each process's own log file was rotated too, and is complete.
    own = [p for p in rotated_paths(tmp_path / "w0.log", 100) if p.exists()]
    assert len(own) > 1
    assert sum(len(p.read_text().splitlines()) for p in own) == 1500
