"""`/logs [N]`: the last N warnings and errors across every service's log file.

Each service writes JSON lines to `$ANNABELLE_HOME/logs/<service>.log` (shared/logs.py). Only the end of each
file is read (`TAIL_BYTES`), so a large log costs the same as a small one. Parsing and picking are pure.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

from orchestrator.commands._helpers import clip, parse_count
from orchestrator.commands.registry import CommandContext, command

DEFAULT_COUNT = 15
MAX_COUNT = 50
TAIL_BYTES = 256 * 1024
PROBLEM_LEVELS = frozenset({"WARNING", "ERROR", "CRITICAL"})
# Fields worth showing beside the message; the rest stay in the file.
DETAIL_FIELDS = ("mcp", "tool", "agent", "error", "reason", "why", "problem", "code")


@dataclass(frozen=True)
class LogEntry:
    ts: str
    level: str
    service: str
    message: str
    details: tuple[tuple[str, str], ...] = ()

    def line(self) -> str:
        try:
            stamp = datetime.fromisoformat(self.ts).astimezone().strftime("%m-%d %H:%M:%S")
        except ValueError:
            stamp = self.ts[:19]
        extra = " ".join(f"{key}={value}" for key, value in self.details)
        return clip(f"{stamp} {self.level:<7} {self.service}: {self.message}" + (f" ({extra})" if extra else ""), 240)


def parse_problem(line: str, service: str) -> LogEntry | None:
    """A WARNING/ERROR/CRITICAL entry from one JSON log line; None for anything else (pure)."""
    try:
        entry: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or str(entry.get("level", "")).upper() not in PROBLEM_LEVELS:
        return None
    # The hub copies its children's stderr into its own log; the child's own file already has each line.
    if str(entry.get("logger", "")).startswith("child."):
        return None
    details = tuple((key, clip(str(entry[key]), 80)) for key in DETAIL_FIELDS if entry.get(key) not in (None, ""))
    return LogEntry(
        ts=str(entry.get("ts", "")),
        level=str(entry["level"]).upper(),
        service=str(entry.get("service") or service),
        message=str(entry.get("msg", "")),
        details=details,
    )


def latest_problems(entries: list[LogEntry], count: int) -> list[LogEntry]:
    """The newest `count` entries, oldest first (ISO timestamps in UTC sort as text)."""
    return sorted(entries, key=lambda entry: entry.ts)[-count:] if count > 0 else []


def _tail_lines(path: Path, limit: int = TAIL_BYTES) -> list[str]:
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(size - limit, 0))
        data = handle.read()
    lines = data.decode("utf-8", errors="replace").splitlines()
    return lines[1:] if size > limit else lines  # the first line of a cut tail is a fragment


def read_problems(logs_dir: Path, count: int) -> tuple[list[LogEntry], int]:
    """The newest `count` problems across `logs_dir/*.log`, and how many files were read (blocking I/O)."""
    files = sorted(logs_dir.glob("*.log")) if logs_dir.is_dir() else []
    entries: list[LogEntry] = []
    for path in files:
        try:
            lines = _tail_lines(path)
        except OSError:
            continue
        entries.extend(e for line in lines if (e := parse_problem(line, path.stem)) is not None)
    return latest_problems(entries, count), len(files)


def format_problems(entries: list[LogEntry], files: int, logs_dir: Path) -> str:
    if files == 0:
        return f"No log files in {logs_dir} yet."
    if not entries:
        return f"No warnings or errors in the {files} log file(s) of {logs_dir}."
    header = f"Last {len(entries)} warning(s)/error(s) across {files} log file(s) in {logs_dir} (newest last):"
    return "\n".join([header, *(entry.line() for entry in entries)])


@command(
    "logs", "Last warnings and errors from every service's log", usage=f"[N ≤ {MAX_COUNT}, default {DEFAULT_COUNT}]"
)
async def logs_command(ctx: CommandContext, args: str) -> str:
    count = parse_count(args, command="logs", default=DEFAULT_COUNT, maximum=MAX_COUNT)
    entries, files = await anyio.to_thread.run_sync(read_problems, ctx.settings.logs_dir, count)
    return format_problems(entries, files, ctx.settings.logs_dir)
