"""Logging: one JSON object per line to `$ANNABELLE_HOME/logs/<service>.log`, readable lines to stderr.

Never stdout: for an MCP server stdout is the JSON-RPC channel. Fields passed through `extra=` land in the
JSON line, so `log.info("mcp started", extra={"mcp": "filer", "pid": 42})` is searchable later.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

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
LOG_BACKUPS = 3


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
        return json.dumps(entry, default=str, ensure_ascii=False)


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
        return line


def configure_logging(service: str, logs_dir: Path, level: str = "INFO") -> None:
    """Route the root logger to `logs_dir/<service>.log` (JSON lines, rotated) and to stderr."""
    logs_dir.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    file_handler = logging.handlers.RotatingFileHandler(
        logs_dir / f"{service}.log", maxBytes=MAX_LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
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
