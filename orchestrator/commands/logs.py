"""`/logs [N]`: the last N warnings and errors across every service's log file; `/trace [id]`: request traces.

Each service writes JSON lines to `$ANNABELLE_HOME/logs/<service>.log` (shared/logs.py). Only the end of each
file is read (`TAIL_BYTES`), so a large log costs the same as a small one; when the file was rotated a short
while ago (it holds less than that), the end of its newest rotated copy `<service>.log.1` is read too.

`/trace` lists the latest traces from `traces.jsonl` (shared/traces.py); `/trace <id>` (or a unique prefix of
at least 4 characters) shows one trace's events in order, searching the rotated copies as well. Zero LLM.
Parsing and picking are pure.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

from orchestrator.commands._helpers import parse_count
from orchestrator.commands.registry import CommandContext, command, usage_error
from shared.text import clip
from shared.traces import TRACES_FILENAME

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


def is_child_copy(entry: dict[str, Any]) -> bool:
    """A line the hub copied from a child's stderr into its own log; the child's own file already has it."""
    return str(entry.get("logger", "")).startswith("child.")


def parse_problem(line: str, service: str) -> LogEntry | None:
    """A WARNING/ERROR/CRITICAL entry from one JSON log line; None for anything else (pure)."""
    try:
        entry: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or str(entry.get("level", "")).upper() not in PROBLEM_LEVELS:
        return None
    if is_child_copy(entry):
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


def _tail_with_rotated(path: Path, limit: int = TAIL_BYTES) -> list[str]:
    """The last `limit` bytes of `path`, continued into `path.1` when `path` is shorter (rotated recently)."""
    lines = _tail_lines(path, limit)
    left = limit - path.stat().st_size
    previous = path.with_name(f"{path.name}.1")
    if left > 0 and previous.exists():
        lines = _tail_lines(previous, left) + lines
    return lines


def read_problems(logs_dir: Path, count: int) -> tuple[list[LogEntry], int]:
    """The newest `count` problems across `logs_dir/*.log`, and how many files were read (blocking I/O)."""
    files = sorted(logs_dir.glob("*.log")) if logs_dir.is_dir() else []
    entries: list[LogEntry] = []
    for path in files:
        try:
            lines = _tail_with_rotated(path)
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


# -- /trace ---------------------------------------------------------------------------------------------------

DEFAULT_TRACES = 10
MAX_TRACES = 30
MIN_PREFIX = 4
MAX_EVENTS = 200
# Fields every trace line has; the rest are the event's own and are shown as key=value.
_TRACE_KEYS = frozenset({"ts", "trace_id", "service", "event", "ms"})


@dataclass(frozen=True)
class TraceEvent:
    ts: str
    trace_id: str
    service: str
    event: str
    ms: float | None
    fields: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TraceSummary:
    trace_id: str
    started: str
    events: int
    first: TraceEvent
    last: TraceEvent


def parse_trace_event(line: str) -> TraceEvent | None:
    """One `traces.jsonl` line; None for a line that is not a trace event (pure)."""
    try:
        entry: Any = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("trace_id"), str) or not entry.get("event"):
        return None
    ms = entry.get("ms")
    fields = tuple(
        (key, clip(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), 120))
        for key, value in entry.items()
        if key not in _TRACE_KEYS and value not in (None, "", [])
    )
    return TraceEvent(
        ts=str(entry.get("ts", "")),
        trace_id=entry["trace_id"],
        service=str(entry.get("service", "")),
        event=str(entry["event"]),
        ms=float(ms) if isinstance(ms, int | float) and not isinstance(ms, bool) else None,
        fields=fields,
    )


def events_of(events: list[TraceEvent], trace_id: str) -> list[TraceEvent]:
    """The events of one trace in time order (stable: one process's events keep their file order)."""
    return sorted((e for e in events if e.trace_id == trace_id), key=lambda e: e.ts)


def summarize_traces(events: list[TraceEvent], count: int) -> list[TraceSummary]:
    """The newest `count` traces, oldest first."""
    grouped: dict[str, list[TraceEvent]] = {}
    for event in events:
        grouped.setdefault(event.trace_id, []).append(event)
    summaries = []
    for trace_id, group in grouped.items():
        ordered = sorted(group, key=lambda e: e.ts)
        summaries.append(TraceSummary(trace_id, ordered[0].ts, len(ordered), ordered[0], ordered[-1]))
    return sorted(summaries, key=lambda s: s.started)[-count:] if count > 0 else []


def _clock(ts: str) -> str:
    try:
        return datetime.fromisoformat(ts).astimezone().strftime("%m-%d %H:%M:%S.%f")[:-3]
    except ValueError:
        return ts[:23]


def _fields(event: TraceEvent) -> str:
    return " ".join(f"{key}={value}" for key, value in event.fields)


def format_trace(trace_id: str, events: list[TraceEvent]) -> str:
    if not events:
        return f"No trace {trace_id} in the trace log; /trace lists the latest ones."
    first = events[0]
    try:
        origin = datetime.fromisoformat(first.ts)
    except ValueError:
        origin = None
    lines = [f"Trace {trace_id}: {len(events)} event(s) from {_clock(first.ts)}"]
    for event in events[:MAX_EVENTS]:
        offset = ""
        if origin is not None:
            try:
                offset = f"+{(datetime.fromisoformat(event.ts) - origin).total_seconds() * 1000:.0f}ms"
            except ValueError:
                offset = ""
        took = f" ({event.ms:g} ms)" if event.ms is not None else ""
        lines.append(clip(f"{offset:>9} {event.service:<12} {event.event}{took} {_fields(event)}".rstrip(), 300))
    if len(events) > MAX_EVENTS:
        lines.append(f"… {len(events) - MAX_EVENTS} more event(s) in the file.")
    return "\n".join(lines)


def format_summaries(summaries: list[TraceSummary], path: Path) -> str:
    if not summaries:
        return f"No traces in {path} yet (TRACES_ENABLED=false turns them off)."
    lines = [f"Last {len(summaries)} trace(s), newest last; /trace <id> shows one:"]
    for summary in summaries:
        took = f" {summary.last.ms:g} ms" if summary.last.ms is not None else ""
        lines.append(
            clip(
                f"{summary.trace_id} {_clock(summary.started)} {summary.first.event} {_fields(summary.first)} → "
                f"{summary.last.event}{took} ({summary.events} events)",
                240,
            )
        )
    return "\n".join(lines)


def trace_files(logs_dir: Path) -> list[Path]:
    """`traces.jsonl` and its rotated copies, newest first."""
    base = logs_dir / TRACES_FILENAME
    rotated = [p for p in logs_dir.glob(f"{TRACES_FILENAME}.*") if p.suffix[1:].isdigit()]
    return ([base] if base.exists() else []) + sorted(rotated, key=lambda p: int(p.suffix[1:]))


def find_trace(logs_dir: Path, wanted: str) -> tuple[str | None, list[TraceEvent], list[str]]:
    """(trace id, its events, ambiguous candidates) for an id or a unique prefix (blocking I/O).

    Files are searched newest first; the search stops at the first older file without a match once the trace
    was found (a trace spans at most the rotation it happened across)."""
    found: list[TraceEvent] = []
    for path in trace_files(logs_dir):
        try:
            with path.open(encoding="utf-8", errors="replace") as handle:
                # A cheap substring test first: only the candidate lines are parsed.
                matched = [e for line in handle if wanted in line and (e := parse_trace_event(line)) is not None]
        except OSError:
            continue
        matched = [e for e in matched if e.trace_id.startswith(wanted)]
        if not matched and found:
            break
        found = matched + found
    ids = sorted({e.trace_id for e in found})
    if len(ids) > 1 and wanted not in ids:
        return None, [], ids
    trace_id = wanted if wanted in ids else (ids[0] if ids else None)
    return trace_id, events_of(found, trace_id) if trace_id else [], []


def latest_traces(logs_dir: Path, count: int) -> list[TraceSummary]:
    path = logs_dir / TRACES_FILENAME
    try:
        lines = _tail_with_rotated(path)
    except OSError:
        return []
    return summarize_traces([e for line in lines if (e := parse_trace_event(line)) is not None], count)


def trace_reply(logs_dir: Path, args: str) -> str:
    """What `/trace` answers (blocking I/O)."""
    text = args.strip()
    if not text or text.isdigit():
        count = parse_count(text, command="trace", default=DEFAULT_TRACES, maximum=MAX_TRACES)
        return format_summaries(latest_traces(logs_dir, count), logs_dir / TRACES_FILENAME)
    if len(text) < MIN_PREFIX or not all(c.isalnum() or c in "_.:-" for c in text):
        raise usage_error("trace", f"'{clip(text, 40)}' is not a trace id (at least {MIN_PREFIX} characters).")
    trace_id, events, candidates = find_trace(logs_dir, text)
    if candidates:
        shown = ", ".join(candidates[:10])
        return f"{len(candidates)} traces start with {text}: {shown}. Give more of the id."
    return format_trace(trace_id or text, events)


@command(
    "trace",
    "A request's trace: every step of a turn with timings (zero LLM)",
    usage=f"[id | N ≤ {MAX_TRACES}, default: the last {DEFAULT_TRACES} traces]",
)
async def trace_command(ctx: CommandContext, args: str) -> str:
    return await anyio.to_thread.run_sync(trace_reply, ctx.settings.logs_dir, args)
