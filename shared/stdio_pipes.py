"""An MCP server's stdin and stdout read and written on the event loop, when both are pipes or sockets.

The SDK's `stdio_server` reads and writes through `anyio.wrap_file`: every line read, every write and every flush
is a hop to a worker thread and back, three per tool call (150–190 µs of CPU each at load 15; docs/benchmarks.md).
This transport yields the same two streams (`SessionMessage | Exception` in, `SessionMessage` out) from non-blocking
pipes instead, and keeps what the SDK's does around them:

- the process's own fd 0 and fd 1 point at the null device and at stderr while it serves (the wire is served from
  private duplicates), so a stray `print` or a child process that reads stdin cannot corrupt the JSON-RPC stream;
  both are restored when it ends;
- lines are read as the SDK's text layer reads them: UTF-8 with undecodable bytes as U+FFFD, `\\r\\n` and `\\r`
  ending a line like `\\n`, a blank line passed on (and refused like any line that is not JSON), a last line
  without its newline passed on at end of input;
- a line that is not a JSON-RPC message is passed on as the exception that says why, for the caller to answer.

One difference in timing: the end of input reaches the SDK's session at once, and the session cancels requests
still running then (its rule: the client has gone). With the thread hop per line, a request sent just before the
client closed stdin often had time to finish; a client that wants its answers reads them before closing.

`usable()` says whether it applies: a regular file, a terminal or the null device cannot be waited on by the
event loop, and those go through the SDK's transport as before.
"""

from __future__ import annotations

import asyncio
import codecs
import io
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

READ_CHUNK_BYTES = 65536


def usable() -> bool:
    """Whether stdin and stdout are both pipes or sockets (how an MCP client runs a server), on POSIX."""
    if sys.platform == "win32":
        return False
    for fd in (0, 1):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            return False
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            return False
    return True


@contextmanager
def _claimed(fd: int, diversion: int) -> Iterator[int]:
    """A private duplicate of `fd` for the wire, with `fd` itself pointed at `diversion` until the block ends."""
    private = _dup_above_standard(fd)
    try:
        os.dup2(diversion, fd)
        try:
            yield private
        finally:
            os.set_blocking(private, True)  # the wire goes back to fd as it came: blocking
            os.dup2(private, fd)
    finally:
        os.close(private)


def _dup_above_standard(fd: int) -> int:
    import fcntl  # POSIX only, like the pipes this module is used for

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


@contextmanager
def _null_device() -> Iterator[int]:
    fd = os.open(os.devnull, os.O_RDONLY)
    try:
        yield fd
    finally:
        os.close(fd)


class _Lines:
    """Complete lines from a byte stream, decoded as `io.TextIOWrapper(..., encoding="utf-8", errors="replace")`
    with universal newlines decodes them."""

    def __init__(self) -> None:
        self._decoder = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")("replace"), translate=True)
        self._pending = ""

    def feed(self, chunk: bytes, *, final: bool = False) -> list[str]:
        *lines, self._pending = (self._pending + self._decoder.decode(chunk, final)).split("\n")
        complete = [line + "\n" for line in lines]
        if final and self._pending:
            complete.append(self._pending)
            self._pending = ""
        return complete


def _message(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except Exception as exc:  # the SDK's transport hands any decoding failure on the same way
        return exc


@asynccontextmanager
async def _opened(read_fd: int, write_fd: int) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    # closefd=False: closing a transport closes its file object, the descriptor stays `_claimed`'s to restore.
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0, closefd=False)
    )
    try:
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", buffering=0, closefd=False)
        )
        try:
            yield reader, asyncio.StreamWriter(write_transport, protocol, None, loop)
        finally:
            write_transport.close()
    finally:
        read_transport.close()  # off the event loop before its descriptor is restored


async def _read(reader: asyncio.StreamReader, to_server: MemoryObjectSendStream[SessionMessage | Exception]) -> None:
    lines = _Lines()
    async with to_server:
        while True:
            chunk = await reader.read(READ_CHUNK_BYTES)
            for line in lines.feed(chunk, final=not chunk):
                await to_server.send(_message(line))
            if not chunk:
                return


async def _write(from_server: MemoryObjectReceiveStream[SessionMessage], writer: asyncio.StreamWriter) -> None:
    async with from_server:
        async for message in from_server:
            payload = message.message.model_dump_json(by_alias=True, exclude_unset=True)
            writer.write((payload + "\n").encode())
            await writer.drain()


@asynccontextmanager
async def pipe_stdio() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """(messages from the client, messages to it) on this process's stdin and stdout; `usable()` must hold."""
    with _null_device() as null, _claimed(0, null) as wire_in, _claimed(1, 2) as wire_out:
        async with _opened(wire_in, wire_out) as (reader, writer), anyio.create_task_group() as tasks:
            to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)
            tasks.start_soon(_read, reader, to_server)
            tasks.start_soon(_write, from_server, writer)
            yield from_client, to_client
