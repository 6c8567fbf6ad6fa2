"""Persistent REPL sessions: one sandboxed driver process per session (see `drivers/` and `repl`).

At most `max_sessions` live at once; one unused for `idle_seconds` is closed by `reap_idle`, which the server's
lifespan calls every few seconds (tests call it with their own clock). Requests to one session run one after
the other. A request that outlives its timeout is interrupted by the driver; if the driver does not answer
within the grace period either, the session is killed and the caller told so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from codexec_mcp.limits import OutputCapture
from codexec_mcp.process import NamespaceWatch, OutputBudget, release, signal_group, stop_group
from codexec_mcp.repl import MarkerScanner, ProtocolError, encode_request, new_marker, parse_status

log = logging.getLogger(__name__)

CloseReason = Literal["manual", "idle_timeout", "process_exit", "timeout", "output_limit", "shutdown"]
ANSWER_GRACE_SECONDS = 2.0
START_TIMEOUT_SECONDS = 20.0


class SessionError(Exception):
    """A session cannot be used as asked; the message says why and what to do."""


@dataclass
class Launched:
    """What `SessionLauncher` returns: the started driver, its working folder, and what to tidy up once it has
    stopped (its private code folder; its own working folder if the code left nothing there)."""

    process: asyncio.subprocess.Process
    workdir: tuple[str, ...]
    cleanup: Callable[[], None]
    watch: NamespaceWatch | None = None


SessionLauncher = Callable[[str, str, tuple[str, ...] | None], Awaitable[Launched]]
"""(language, session id, working folder or None for the session's own) → the started driver."""


@dataclass
class Session:
    session_id: str
    language: str
    name: str
    launched: Launched
    started_at: str
    started_clock: float
    last_activity: float
    last_activity_at: str
    executions_count: int = 0
    packages_installed: list[str] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    pending_stdout: bytes = b""
    pending_stderr: bytes = b""
    closed_as: CloseReason | None = None

    @property
    def pid(self) -> int:
        return self.launched.process.pid

    @property
    def alive(self) -> bool:
        return self.launched.process.returncode is None


@dataclass
class Exchange:
    """One request's result as the session produced it."""

    stdout: OutputCapture
    stderr: OutputCapture
    duration_ms: int
    timed_out: bool = False
    ok: bool = True
    closed: CloseReason | None = None


@dataclass
class Closed:
    session_id: str
    duration_total_ms: int
    executions_count: int
    reason: CloseReason


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class SessionManager:
    def __init__(
        self,
        launcher: SessionLauncher,
        *,
        max_sessions: int,
        idle_seconds: float,
        grace_seconds: float,
        max_output_bytes: int,
        head_chars: int,
        tail_chars: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._launcher = launcher
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self._grace = grace_seconds
        self._max_output = max_output_bytes
        self._head, self._tail = head_chars, tail_chars
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._starting = 0

    def get(self, session_id: str) -> Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionError(
                f"No session '{session_id[:64]}' is running (it may have been closed after being idle); "
                "list_sessions shows the running ones, start_session starts one."
            )
        return session

    def sessions(self) -> list[Session]:
        return list(self._sessions.values())

    async def start(self, language: str, name: str | None, workdir: tuple[str, ...] | None) -> Session:
        if len(self._sessions) + self._starting >= self.max_sessions:
            raise SessionError(
                f"At most {self.max_sessions} sessions may run at once; close one with close_session "
                "(list_sessions shows them) and try again."
            )
        self._starting += 1
        try:
            session_id = f"sess_{secrets.token_hex(6)}"
            launched = await self._launcher(language, session_id, workdir)
            now, stamp = self._clock(), _now_iso()
            session = Session(
                session_id=session_id,
                language=language,
                name=(name or "").strip()[:100] or f"{language}-{session_id[5:11]}",
                launched=launched,
                started_at=stamp,
                started_clock=now,
                last_activity=now,
                last_activity_at=stamp,
            )
            self._sessions[session_id] = session
        finally:
            self._starting -= 1
        # An empty request proves the driver runs (and fails fast with its error when it cannot start).
        exchange = await self.send(session_id, "", START_TIMEOUT_SECONDS, count=False)
        if exchange.closed is not None or not exchange.ok:
            if session_id in self._sessions:
                await self._close(session, "process_exit")
            detail = exchange.stderr.render(2000, 1000, 1000)[0].strip() or "it exited at once"
            raise SessionError(f"The {language} session could not start: {detail}")
        return session

    async def send(self, session_id: str, code: str, timeout_seconds: float, *, count: bool = True) -> Exchange:
        session = self.get(session_id)
        async with session.lock:
            if not session.alive:
                await self._close(session, "process_exit")
                raise SessionError(f"Session '{session_id}' has ended; start a new one.")
            started = self._clock()
            exchange = await self._exchange(session, code, timeout_seconds)
            exchange.duration_ms = int((self._clock() - started) * 1000)
            session.last_activity, session.last_activity_at = self._clock(), _now_iso()
            if count:
                session.executions_count += 1
        if exchange.closed is not None:
            await self._close(session, exchange.closed)
        return exchange

    async def _exchange(self, session: Session, code: str, timeout_seconds: float) -> Exchange:
        process = session.launched.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        marker = new_marker()
        stdout, stderr = OutputCapture(self._head, self._tail), OutputCapture(self._head, self._tail)
        out_scan, err_scan = MarkerScanner(marker, stdout), MarkerScanner(marker, stderr)
        budget = OutputBudget(self._max_output)
        exchange = Exchange(stdout=stdout, stderr=stderr, duration_ms=0)
        try:
            process.stdin.write(encode_request(code, timeout_seconds, marker))
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            exchange.closed, exchange.ok = "process_exit", False
            return exchange
        pending = (session.pending_stdout, session.pending_stderr)
        readers = [
            asyncio.create_task(_read_until(process.stdout, out_scan, budget, pending[0])),
            asyncio.create_task(_read_until(process.stderr, err_scan, budget, pending[1])),
        ]
        try:
            done, waiting = await asyncio.wait(readers, timeout=timeout_seconds + ANSWER_GRACE_SECONDS)
            if waiting or any(task.exception() for task in done):
                for task in waiting:
                    task.cancel()
                exchange.ok = False
                if budget.exceeded.is_set():
                    exchange.closed = "output_limit"
                elif any(isinstance(task.exception(), ProtocolError) for task in done):
                    exchange.closed = "process_exit"
                else:
                    exchange.timed_out, exchange.closed = True, "timeout"
                return exchange
        except BaseException:
            for task in readers:
                task.cancel()
            signal_group(process, signal.SIGKILL)
            raise
        if not out_scan.result.done or not err_scan.result.done:
            exchange.ok, exchange.closed = False, "process_exit"
            return exchange
        session.pending_stdout, session.pending_stderr = out_scan.result.leftover, err_scan.result.leftover
        try:
            status = parse_status(out_scan.result.status)
        except ProtocolError:
            exchange.ok, exchange.closed = False, "process_exit"
            return exchange
        exchange.ok = bool(status.get("ok"))
        exchange.timed_out = bool(status.get("timed_out"))
        if "exit" in status:
            exchange.closed = "process_exit"
        return exchange

    async def close(self, session_id: str, reason: CloseReason = "manual") -> Closed:
        session = self.get(session_id)
        return await self._close(session, reason)

    async def _close(self, session: Session, reason: CloseReason) -> Closed:
        self._sessions.pop(session.session_id, None)
        if session.closed_as is not None:  # an idle reap and a close can meet: the first one does the work
            return self._closed(session, session.closed_as)
        session.closed_as = reason
        process = session.launched.process
        if process.returncode is None:
            with contextlib.suppress(OSError):
                if process.stdin is not None:
                    process.stdin.close()
            await stop_group(process, self._grace if reason in ("manual", "idle_timeout", "shutdown") else 0)
        release(process)
        if session.launched.watch is not None:
            await session.launched.watch.gone()
        session.launched.cleanup()
        log.info(
            "codexec session closed",
            extra={"session_id": session.session_id, "reason": reason, "executions": session.executions_count},
        )
        return self._closed(session, reason)

    def _closed(self, session: Session, reason: CloseReason) -> Closed:
        return Closed(
            session_id=session.session_id,
            duration_total_ms=int((self._clock() - session.started_clock) * 1000),
            executions_count=session.executions_count,
            reason=reason,
        )

    async def reap_idle(self) -> list[Closed]:
        """Close every session unused for `idle_seconds` (and forget the ones whose process died)."""
        now = self._clock()
        closed = []
        for session in list(self._sessions.values()):
            if session.lock.locked():
                continue
            if not session.alive:
                closed.append(await self._close(session, "process_exit"))
            elif now - session.last_activity >= self.idle_seconds:
                closed.append(await self._close(session, "idle_timeout"))
        return closed

    async def close_all(self) -> None:
        for session in list(self._sessions.values()):
            await self._close(session, "shutdown")


async def _read_until(
    stream: asyncio.StreamReader, scanner: MarkerScanner, budget: OutputBudget, pending: bytes
) -> None:
    if pending and scanner.feed(pending):
        return
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            scanner.flush()
            return
        if not budget.spend(len(chunk)):
            raise OverflowError("output limit")
        if scanner.feed(chunk):
            return
