"""Request-level traces: one JSON line per step of a chat turn, in `$ANNABELLE_HOME/logs/traces.jsonl`.

A trace id is minted when a message reaches the hub (or taken from the caller's `X-Trace-Id` header) and
travels with the request: hub → Thinker (`X-Trace-Id` on `/process-message` and `/execute-skill`) → the
Thinker's hub calls (`X-Trace-Id` on `/tools/call`) → the hub's tool-call events. Inside a process it lives in a
contextvar, so code deep in a call writes `trace_event("tool_call", name=..., ms=...)` without threading it
through every signature; `asyncio` tasks started inside a turn inherit it.

A line is `{"ts", "trace_id", "service", "event", ...fields, "ms"?}`: `ts` is when the step ended (UTC, to the
microsecond, so lines from several processes sort), `ms` its duration when it has one. Fields are names,
counts, lengths, timings and outcomes, never message text, tool arguments, results or secrets.

Every service (the hub, each Thinker) appends to the same file through `RotatingAppendFile` (shared/rotating_file.py):
one `write()` per line on an `O_APPEND` descriptor, so lines from several processes never interleave, and a
size-based rotation that is safe when several processes write (see there). With no trace id in context, or
with `TRACES_ENABLED=false`, `trace_event` returns at once: calls outside a traced request cost nothing.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path

from shared.json_lines import bounded_json_line
from shared.private_files import private_dir
from shared.rotating_file import RotatingAppendFile

log = logging.getLogger(__name__)

TRACE_HEADER = "X-Trace-Id"
TRACES_FILENAME = "traces.jsonl"
_VALID_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")

_current: ContextVar[str | None] = ContextVar("annabelle_trace_id", default=None)


def new_trace_id() -> str:
    """16 hex digits: unique enough for one home's traces, short enough to type after `/trace`."""
    return uuid.uuid4().hex[:16]


def valid_trace_id(value: str | None) -> str | None:
    """`value` when it is a usable trace id (letters, digits, `_.:-`, at most 64), else None.

    Ids from headers are checked because they are written into the trace file and echoed in replies."""
    if value and _VALID_ID.fullmatch(value):
        return value
    return None


def current_trace() -> str | None:
    return _current.get()


def trace_headers() -> dict[str, str]:
    """`{"X-Trace-Id": id}` for an outgoing request inside a trace, else {}."""
    trace_id = _current.get()
    return {TRACE_HEADER: trace_id} if trace_id else {}


@contextmanager
def traced(trace_id: str | None = None) -> Iterator[str]:
    """Run the block inside trace `trace_id` (a new one when None); yields the id in force."""
    trace_id = trace_id or new_trace_id()
    token = _current.set(trace_id)
    try:
        yield trace_id
    finally:
        _current.reset(token)


@contextmanager
def continue_trace(trace_id: str | None) -> Iterator[str | None]:
    """Run the block inside the caller's trace when it sent one, else untraced (nothing is recorded).

    For requests that belong to someone else's turn (`/tools/call`): a tool call that arrives without a trace
    id (a channel's polling, a benchmark) starts no trace of its own, or the file would fill with noise."""
    if trace_id is None:
        yield None
        return
    with traced(trace_id):
        yield trace_id


def elapsed_ms(started: float) -> float:
    """Milliseconds since `started` (a `time.perf_counter()` reading), to 0.01 ms."""
    return round((time.perf_counter() - started) * 1000, 2)


class TraceWriter:
    """Formats events and appends them to one trace file for one service."""

    def __init__(self, service: str, file: RotatingAppendFile) -> None:
        self.service = service
        self.file = file
        self._failed = False

    def write(self, trace_id: str, event: str, fields: Mapping[str, object]) -> None:
        entry: dict[str, object] = {
            "ts": datetime.now(UTC).isoformat(timespec="microseconds"),
            "trace_id": trace_id,
            "service": self.service,
            "event": event,
        }
        entry.update(fields)
        line = bounded_json_line(entry, compact=True) + "\n"
        try:
            self.file.write(line.encode("utf-8"))
        except OSError as exc:
            # Tracing is an aid: a full disk or a removed folder must not fail the request being traced.
            if not self._failed:
                log.warning("trace events are not being written", extra={"error": str(exc)})
            self._failed = True
        else:
            self._failed = False

    def close(self) -> None:
        self.file.close()


_writer: TraceWriter | None = None


def configure_traces(service: str, logs_dir: Path, *, enabled: bool, max_bytes: int, backups: int) -> None:
    """Write this process's trace events as `service` to `logs_dir/traces.jsonl` (nothing when not `enabled`)."""
    global _writer
    if _writer is not None:
        _writer.close()
    _writer = None
    if enabled:
        private_dir(logs_dir)
        _writer = TraceWriter(service, RotatingAppendFile(logs_dir / TRACES_FILENAME, max_bytes, backups))


def trace_event(event: str, /, **fields: object) -> None:
    """Record `event` in the current trace; a no-op outside a trace or with tracing off."""
    writer = _writer
    if writer is None:
        return
    trace_id = _current.get()
    if trace_id is None:
        return
    writer.write(trace_id, event, fields)


__all__ = [
    "TRACES_FILENAME",
    "TRACE_HEADER",
    "TraceWriter",
    "configure_traces",
    "continue_trace",
    "current_trace",
    "elapsed_ms",
    "new_trace_id",
    "trace_event",
    "trace_headers",
    "traced",
    "valid_trace_id",
]
