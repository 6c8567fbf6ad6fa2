"""A stdio transport for `mcp.Client` that keeps hold of the child process.

The SDK's `stdio_client` hides the process; the hub needs it: to show its pid, to notice at once when it
exits (rather than at the next health ping), and to send the child's stderr to the hub's log under the
MCP's name. Framing is the MCP stdio framing: one JSON-RPC message per line.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress

import anyio
import anyio.abc
from anyio.streams.text import TextReceiveStream
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

from orchestrator.mcp_commands import ChildCommand
from orchestrator.warm_start import open_warm_process

log = logging.getLogger(__name__)

# Seconds a child gets to exit after its stdin closes, then after SIGTERM, before SIGKILL.
EXIT_GRACE_SECONDS = 2.0


async def log_lines(stream: anyio.abc.ByteReceiveStream, logger: logging.Logger) -> None:
    """Copy a child's output into the hub's log, one WARNING per non-blank line, until the stream ends."""
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
        async for chunk in TextReceiveStream(stream, errors="replace"):
            for line in chunk.splitlines():
                if line.strip():
                    logger.warning(line.rstrip())


Spawner = Callable[[ChildCommand], Awaitable[anyio.abc.Process]]
"""How a child is started: `spawn`, or the hub's own that first adopts a child forked before it ran (`prestart`)."""


async def spawn(command: ChildCommand) -> anyio.abc.Process:
    """Start the child in its own session: warm (forked, see `warm_start`) for a module, else a new process."""
    if command.module is not None:
        try:
            return await open_warm_process(command.module, command.module_args, command.env, command.cwd)
        except (OSError, EOFError, ValueError) as exc:  # a broken fork server must not keep an MCP down
            log.warning(
                "warm start failed; starting a new process", extra={"module": command.module, "error": str(exc)}
            )
    return await anyio.open_process(list(command.argv), env=dict(command.env), cwd=command.cwd, start_new_session=True)


class ChildProcess:
    """The running child: its pid, and an event set when it has exited."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self._process = process
        self.exited = anyio.Event()

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode


def _parse(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _stop(process: anyio.abc.Process) -> None:
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        if process.stdin is not None:
            await process.stdin.aclose()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with suppress(ProcessLookupError, PermissionError):
                try:
                    os.killpg(process.pid, sig)  # the child leads its own group: take its children too
                except ProcessLookupError:
                    process.send_signal(sig)  # a warm child killed before it became a group leader
        with anyio.move_on_after(EXIT_GRACE_SECONDS):
            await process.wait()
            return


@asynccontextmanager
async def open_child(
    command: ChildCommand,
    on_spawn: Callable[[ChildProcess], None],
    stderr_logger: logging.Logger,
    spawner: Spawner = spawn,
) -> AsyncIterator[TransportStreams]:
    """Spawn the child and yield the (read, write) streams `mcp.Client` expects."""
    process = await spawner(command)
    child = ChildProcess(process)
    on_spawn(child)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_stdout() -> None:
        assert process.stdout is not None
        buffer = ""
        async with read_writer:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                async for chunk in TextReceiveStream(process.stdout):
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in lines:
                        if line.strip():
                            await read_writer.send(_parse(line))

    async def pump_stdin() -> None:
        assert process.stdin is not None
        async with write_reader:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for message in write_reader:
                    payload = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((payload + "\n").encode())

    async def pump_stderr() -> None:
        assert process.stderr is not None
        await log_lines(process.stderr, stderr_logger)

    async def watch_exit() -> None:
        await process.wait()
        child.exited.set()
        # Closing our end of the read stream ends the session: pending requests fail instead of hanging.
        await read_writer.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump_stdout)
        tasks.start_soon(pump_stdin)
        tasks.start_soon(pump_stderr)
        tasks.start_soon(watch_exit)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process)
            tasks.cancel_scope.cancel()
