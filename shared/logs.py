"""Logging: one JSON object per line to `$ANNABELLE_HOME/logs/<service>.log`, readable lines to stderr.

Never stdout: for an MCP server stdout is the JSON-RPC channel. Fields passed through `extra=` land in the
JSON line, so `log.info("mcp started", extra={"mcp": "filer", "pid": 42})` is searchable later.

No line is longer than `MAX_LINE_BYTES` (16 KB), whatever was logged: `bounded_json_line` cuts the longest
values first, marks each cut value with `…[cut N chars]` and the entry with `"cut": <bytes it would have had>`,
so a hostile input echoed into a log line costs at most 16 KB and the line stays valid JSON.

Rotation is by size (`LOG_MAX_BYTES`, default 10 MB; `LOG_BACKUP_COUNT` rotated copies `<name>.1` … kept,
default 5) through `RotatingAppendFile`, which stays correct when several processes append to one file (the
shared `traces.jsonl`, or two processes started with the same service name):

- every line is one `write()` on an `O_APPEND` descriptor, so lines never interleave or overwrite each other;
- a writer checks the file's size at most once a second (or after writing a sixteenth of the limit itself);
  over the limit, it takes an exclusive `flock` on `logs/.rotate.lock`, checks again (another process may have
  rotated meanwhile) and only then shifts `<name>.N-1` → `<name>.N` … `<name>` → `<name>.1`;
- a writer whose open file is no longer the one at the path (rotated by someone else, or deleted) reopens the
  path. Until it notices (within a second), its lines land in `<name>.1`: late, never lost.

`configure_logging` also sets up the process's trace writer (shared/traces.py, `TRACES_ENABLED`).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.private_files import open_private, private_dir, restrict_new_files
from shared.settings import ConfigError, load_settings

try:  # POSIX; elsewhere rotation runs without the cross-process lock (one writer per file is then assumed)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

# Attributes every LogRecord has; anything else on a record came from `extra=` and is logged as a field.
# (uvicorn adds `color_message`, a duplicate of the message with terminal colours.)
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "color_message",
}

STDERR_LEVEL_VARIABLE = "ANNABELLE_STDERR_LOG_LEVEL"
"""Set by the hub for its MCP children: their stderr carries warnings only, their log file everything."""

MAX_LOG_BYTES = 10 * 1024 * 1024
LOG_BACKUPS = 5
ROTATE_LOCK_NAME = ".rotate.lock"
CHECK_SECONDS = 1.0
MAX_LINE_BYTES = 16 * 1024
"""The longest log or trace line written (the newline included)."""
_VALUE_SHARE = 4 * 1024
"""A long value is first cut to at most this many characters (less when there are several)."""
_ESSENTIAL = ("ts", "level", "service", "logger", "msg", "trace_id", "event")


class LogFileSettings(BaseSettings):
    """What every process reads to set up its log file and trace writer (environment and `.env`)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    log_max_bytes: int = Field(
        default=MAX_LOG_BYTES, ge=1024, description="A log file (and traces.jsonl) is rotated past this size."
    )
    log_backup_count: int = Field(default=LOG_BACKUPS, ge=0, le=100, description="Rotated copies kept per file.")
    traces_enabled: bool = Field(default=True, description="Write request traces to logs/traces.jsonl.")


def rotated_paths(path: Path, backups: int) -> list[Path]:
    """`path` and its rotated copies, newest first: `x.log`, `x.log.1`, … `x.log.<backups>`."""
    return [path, *(path.with_name(f"{path.name}.{index}") for index in range(1, backups + 1))]


class RotatingAppendFile:
    """An append-only file that several processes may write and rotate at once (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        max_bytes: int = MAX_LOG_BYTES,
        backups: int = LOG_BACKUPS,
        *,
        check_seconds: float = CHECK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self.check_seconds = check_seconds
        self.clock = clock
        self._fd = -1
        self._next_check = 0.0
        self._written = 0
        # Threads of one process (logging handlers run on any thread) share the descriptor; swapping it
        # while another thread writes must not lose that line.
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            if self._fd < 0:
                self._open()
            os.write(self._fd, data)
            self._written += len(data)
            now = self.clock()
            if now >= self._next_check or self._written >= self.max_bytes // 16:
                self._next_check = now + self.check_seconds
                self._written = 0
                self._check()

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def _open(self) -> None:
        fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = fd

    def _check(self) -> None:
        try:
            at_path = os.stat(self.path)
        except FileNotFoundError:
            self._open()  # deleted (or rotated with no backups kept): start the file again
            return
        mine = os.fstat(self._fd)
        if (at_path.st_ino, at_path.st_dev) != (mine.st_ino, mine.st_dev):
            self._open()  # another process rotated it: follow the path
            return
        if at_path.st_size >= self.max_bytes:
            self.rotate()

    def rotate(self) -> None:
        """Shift the rotated copies and start a new file, unless another process just did (caller holds _lock)."""
        with _rotation_lock(self.path.parent / ROTATE_LOCK_NAME):
            try:
                size = os.stat(self.path).st_size
            except FileNotFoundError:
                size = 0
            if size >= self.max_bytes:
                paths = rotated_paths(self.path, self.backups)
                if self.backups == 0:
                    self.path.unlink(missing_ok=True)
                for newer, older in reversed(list(itertools.pairwise(paths))):
                    if newer.exists():
                        os.replace(newer, older)
            self._open()


@contextmanager
def _rotation_lock(path: Path) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    fd = open_private(path, os.O_WRONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class SharedRotatingFileHandler(logging.Handler):
    """`logging` onto a `RotatingAppendFile`: one formatted record per line."""

    def __init__(self, path: Path, max_bytes: int = MAX_LOG_BYTES, backups: int = LOG_BACKUPS) -> None:
        super().__init__()
        self.file = RotatingAppendFile(path, max_bytes, backups)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.file.write((self.format(record) + "\n").encode("utf-8", errors="replace"))
        except Exception:  # logging must never raise into the code that logs; this is logging's own convention
            self.handleError(record)

    def close(self) -> None:
        self.file.close()
        super().close()


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}…[cut {len(text) - limit} chars]"


def _dumps(entry: dict[str, object], compact: bool) -> str:
    separators = (",", ":") if compact else None
    return json.dumps(entry, default=str, ensure_ascii=False, separators=separators)


def bounded_json_line(entry: dict[str, object], *, compact: bool = False) -> str:
    """`entry` as one line of JSON of at most `MAX_LINE_BYTES` bytes (with its newline), cut as the module
    docstring says."""
    line = _dumps(entry, compact)
    size = len(line.encode("utf-8", errors="replace"))
    if size < MAX_LINE_BYTES:
        return line
    texts: dict[str, object] = {}
    for key, value in entry.items():
        if isinstance(value, str | int | float | bool | type(None)):
            texts[key] = value
        else:
            texts[key] = _dumps({"v": value}, True)[5:-1]  # a structure is kept as its JSON text, so it can be cut
    long_values = sum(1 for value in texts.values() if isinstance(value, str) and len(value) > _VALUE_SHARE // 8)
    share = min(_VALUE_SHARE, (MAX_LINE_BYTES - 1024) // max(long_values, 1) // 2)
    cut: dict[str, object] = {
        key: _cut(value, share) if isinstance(value, str) else value for key, value in texts.items()
    }
    cut["cut"] = size
    line = _dumps(cut, compact)
    if len(line.encode("utf-8", errors="replace")) < MAX_LINE_BYTES:
        return line
    # Many long fields (or characters that JSON escapes six-fold): keep what says what happened, shorter still.
    short = {key: _cut(str(entry[key]), 1024) for key in _ESSENTIAL if key in entry}
    short["cut"] = size
    return _dumps(short, compact)


def _extra_fields(record: logging.LogRecord) -> dict[str, object]:
    return {key: value for key, value in vars(record).items() if key not in _STANDARD_ATTRS}


class JsonLineFormatter(logging.Formatter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "service": self.service,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update(_extra_fields(record))
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return bounded_json_line(entry)


class ConsoleFormatter(logging.Formatter):
    """`12:00:01 INFO  orchestrator: mcp started mcp=filer pid=42`."""

    def __init__(self, service: str) -> None:
        super().__init__()
        self.service = service

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        fields = " ".join(f"{key}={value}" for key, value in _extra_fields(record).items())
        line = f"{stamp} {record.levelname:<5} {self.service}: {record.getMessage()}"
        if fields:
            line = f"{line} {fields}"
        if record.exc_info and record.levelno >= logging.ERROR:
            line = f"{line}\n{self.formatException(record.exc_info)}"
        encoded = line.encode("utf-8", errors="replace")
        if len(encoded) < MAX_LINE_BYTES:
            return line
        kept = encoded[: MAX_LINE_BYTES - 64].decode("utf-8", errors="ignore")
        return f"{kept}…[cut {len(encoded) - len(kept.encode())} bytes]"


def load_log_file_settings() -> LogFileSettings:
    """`LOG_MAX_BYTES`, `LOG_BACKUP_COUNT`, `TRACES_ENABLED`; a bad value stops start-up with a sentence."""
    try:
        return load_settings(LogFileSettings)
    except ConfigError as exc:
        sys.exit(f"annabelle: {exc}")


def configure_logging(service: str, logs_dir: Path, level: str = "INFO", files: LogFileSettings | None = None) -> None:
    """Route the root logger to `logs_dir/<service>.log` (JSON lines, rotated) and to stderr, and point this
    process's trace events (as `service`) at `logs_dir/traces.jsonl`. `files` defaults to the environment's."""
    from shared.traces import configure_traces  # traces imports this module: import it when configuring

    files = files or load_log_file_settings()
    # Every process sets up its logging before it writes anything: from here on, what it creates is private.
    restrict_new_files()
    private_dir(logs_dir, ours=True)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    file_handler = SharedRotatingFileHandler(
        logs_dir / f"{service}.log", max_bytes=files.log_max_bytes, backups=files.log_backup_count
    )
    file_handler.setFormatter(JsonLineFormatter(service))
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(ConsoleFormatter(service))
    console.setLevel(os.environ.get(STDERR_LEVEL_VARIABLE, level).upper())
    root.addHandler(file_handler)
    root.addHandler(console)
    root.setLevel(level)
    # Libraries that are chatty at INFO: keep their warnings, drop their chatter.
    for noisy in ("httpx", "httpcore", "mcp", "uvicorn.access", "LiteLLM", "litellm"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLevelName(level)))
    configure_traces(
        service,
        logs_dir,
        enabled=files.traces_enabled,
        max_bytes=files.log_max_bytes,
        backups=files.log_backup_count,
    )
