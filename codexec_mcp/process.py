"""Running sandboxed processes: start them in a process group of their own, read their output in bounded memory,
and stop the whole group (SIGTERM, then SIGKILL after a grace period) on a timeout, too much output, or when
the caller gives up.

Inside bubblewrap the group is bubblewrap itself: when it dies, the kernel kills every process of the
sandbox's PID namespace, daemonised or not. In limits-only mode the group is the program and the children that
stayed in it; a child that started a session of its own escapes the group (docs/codexec.md says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

from codexec_mcp.limits import Limits, OutputCapture

READ_CHUNK = 65536
DRAIN_SECONDS = 1.0
NAMESPACE_EXIT_SECONDS = 5.0


@dataclass
class Outcome:
    returncode: int | None
    stdout: OutputCapture
    stderr: OutputCapture
    duration_ms: int
    stopped: str | None = None
    """`timeout` or `output_limit` when the runner stopped the process."""


class OutputBudget:
    """Bytes a run may still write across stdout and stderr; `exceeded` is set once it is spent."""

    def __init__(self, limit: int) -> None:
        self.remaining = limit
        self.exceeded = asyncio.Event()

    def spend(self, count: int) -> bool:
        self.remaining -= count
        if self.remaining < 0:
            self.exceeded.set()
            return False
        return True


def signal_group(process: asyncio.subprocess.Process, signum: int) -> None:
    """Signal the process's whole group (its pid is the group id: it was started in a new session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


async def stop_group(process: asyncio.subprocess.Process, grace_seconds: float) -> None:
    """SIGTERM to the group, then SIGKILL to whatever is left after `grace_seconds`."""
    signal_group(process, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(process.wait(), grace_seconds)
    signal_group(process, signal.SIGKILL)
    await process.wait()


async def spawn(
    argv: list[str],
    env: dict[str, str],
    cwd: str | None,
    *,
    stdin: int = asyncio.subprocess.DEVNULL,
    watch: NamespaceWatch | None = None,
) -> asyncio.subprocess.Process:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
            pass_fds=(watch.write_end,) if watch else (),
        )
    except BaseException:
        if watch is not None:
            watch.abandon()
        raise
    if watch is not None:
        watch.started()
    return process


class NamespaceWatch:
    """Knows when a bubblewrap sandbox is really over.

    bubblewrap reports the host pid of its PID namespace's init on `--info-fd`, and exits as soon as it knows
    the program's exit code: a moment before the kernel has finished killing the namespace's other processes
    (daemons, orphans). The namespace is empty once that init is gone, which a pidfd tells without polling."""

    MAX_INFO_BYTES = 65536

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        self._loop = asyncio.get_running_loop()
        self._info = b""
        self._pidfd: int | None = None
        self._reading = False

    def started(self) -> None:
        """The child has its copy of the write end: close ours and listen."""
        os.close(self.write_end)
        self._loop.add_reader(self.read_end, self._readable)
        self._reading = True

    def _readable(self) -> None:
        try:
            chunk = os.read(self.read_end, 4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk or len(self._info) > self.MAX_INFO_BYTES:
            self._stop_reading()
            return
        self._info += chunk
        if self._pidfd is None:
            try:
                info, _ = json.JSONDecoder().raw_decode(self._info.decode("utf-8"))
                self._pidfd = os.pidfd_open(int(info["child-pid"]))
            except (ValueError, KeyError, TypeError, OSError):
                return

    def _stop_reading(self) -> None:
        if self._reading:
            self._loop.remove_reader(self.read_end)
            self._reading = False

    def abandon(self) -> None:
        """The child never started: close both ends."""
        for fd in (self.read_end, self.write_end):
            with contextlib.suppress(OSError):
                os.close(fd)

    async def gone(self) -> None:
        """Wait (at most `NAMESPACE_EXIT_SECONDS`) until the sandbox's init, and with it every process it held,
        has exited."""
        self._readable()
        self._stop_reading()
        with contextlib.suppress(OSError):
            os.close(self.read_end)
        pidfd, self._pidfd = self._pidfd, None
        if pidfd is None:
            return
        exited = self._loop.create_future()
        self._loop.add_reader(pidfd, lambda: exited.done() or exited.set_result(None))
        try:
            await asyncio.wait_for(exited, NAMESPACE_EXIT_SECONDS)
        except TimeoutError:
            pass
        finally:
            self._loop.remove_reader(pidfd)
            os.close(pidfd)


def release(process: asyncio.subprocess.Process) -> None:
    """Close the pipes to a finished process. Pipes nobody read to the end would otherwise keep asyncio's
    transport open until garbage collection, possibly after its event loop has gone."""
    transport = getattr(process, "_transport", None)
    if transport is not None:
        transport.close()


async def _pump(stream: asyncio.StreamReader, capture: OutputCapture, budget: OutputBudget) -> None:
    """Read a stream to its end; past the budget the bytes are only drained (the runner is stopping the run)."""
    while True:
        chunk = await stream.read(READ_CHUNK)
        if not chunk:
            return
        if budget.spend(len(chunk)):
            capture.feed(chunk)


async def run_to_completion(
    argv: list[str],
    env: dict[str, str],
    cwd: str | None,
    limits: Limits,
    *,
    head_chars: int,
    tail_chars: int,
    grace_seconds: float,
    watch: NamespaceWatch | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Outcome:
    """Run a program with no stdin until it exits or a limit stops it; with a `watch`, return only once
    everything the sandbox held is gone."""
    started = clock()
    stdout, stderr = OutputCapture(head_chars, tail_chars), OutputCapture(head_chars, tail_chars)
    process = await spawn(argv, env, cwd, watch=watch)
    assert process.stdout is not None and process.stderr is not None
    budget = OutputBudget(limits.max_output_bytes)
    pumps = [
        asyncio.create_task(_pump(process.stdout, stdout, budget)),
        asyncio.create_task(_pump(process.stderr, stderr, budget)),
    ]
    exited = asyncio.create_task(process.wait())
    over = asyncio.create_task(budget.exceeded.wait())
    stopped: str | None = None
    try:
        done, _ = await asyncio.wait({exited, over}, timeout=limits.wall_seconds, return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            stopped = "output_limit" if over in done else "timeout"
            await stop_group(process, grace_seconds)
        # Children left in the group (limits-only mode) would keep the pipes open: they go with their parent.
        signal_group(process, signal.SIGKILL)
        _, pending = await asyncio.wait(pumps, timeout=DRAIN_SECONDS)
        for task in pending:
            task.cancel()
    except BaseException:
        # The caller gave up (the hub's timeout, a cancelled request): nothing of the run may outlive it.
        signal_group(process, signal.SIGKILL)
        for task in pumps:
            task.cancel()
        await asyncio.shield(process.wait())
        if watch is not None:
            await asyncio.shield(watch.gone())
        raise
    finally:
        over.cancel()
        exited.cancel()
        if process.returncode is not None:
            release(process)
    if watch is not None:
        await watch.gone()
    return Outcome(
        returncode=process.returncode,
        stdout=stdout,
        stderr=stderr,
        duration_ms=int((clock() - started) * 1000),
        stopped=stopped,
    )
