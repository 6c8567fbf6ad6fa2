"""Logging: one JSON object per line to `$ANNABELLE_HOME/logs/<service>.log`, readable lines to stderr.

Never stdout: for an MCP server stdout is the JSON-RPC channel. Fields passed through `extra=` land in the
JSON line, so `log.info("mcp started", extra={"mcp": "filer", "pid": 42})` is searchable later. No line is
longer than 16 KB, whatever was logged (`shared.json_lines`).

Rotation is by size (`LOG_MAX_BYTES`, default 10 MB; `LOG_BACKUP_COUNT` rotated copies `<name>.1` … kept,
default 5) through `shared.rotating_file.RotatingAppendFile`, which stays correct when several processes append
to one file.

`configure_logging` also sets up the process's trace writer (shared/traces.py, `TRACES_ENABLED`).
"""

from __future__ import annotations

import logging
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.json_lines import MAX_LINE_BYTES, bounded_json_line
from shared.private_files import private_dir, restrict_new_files
from shared.rotating_file import LOG_BACKUPS, MAX_LOG_BYTES, RotatingAppendFile
from shared.settings import ConfigError, load_settings
from shared.traces import configure_traces

# Attributes every LogRecord has; anything else on a record came from `extra=` and is logged as a field.
# (uvicorn adds `color_message`, a duplicate of the message with terminal colours; litellm's secret filter, once
# litellm is loaded, stamps the records it has scrubbed with `litellm_redacted`, a bare marker object.)
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "color_message",
    "litellm_redacted",
}

STDERR_LEVEL_VARIABLE = "ANNABELLE_STDERR_LOG_LEVEL"
"""Set by the hub for its MCP children: their stderr carries warnings only, their log file everything."""


class LogFileSettings(BaseSettings):
    """What every process reads to set up its log file and trace writer (environment and `.env`)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    log_max_bytes: int = Field(
        default=MAX_LOG_BYTES, ge=1024, description="A log file (and traces.jsonl) is rotated past this size."
    )
    log_backup_count: int = Field(default=LOG_BACKUPS, ge=0, le=100, description="Rotated copies kept per file.")
    traces_enabled: bool = Field(default=True, description="Write request traces to logs/traces.jsonl.")


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
