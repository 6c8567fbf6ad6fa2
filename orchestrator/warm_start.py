"""First-party MCPs start as forks of one pre-warmed interpreter instead of each importing the MCP SDK anew.

Every first-party MCP (run as `python -m <package>`) spends most of its start-up importing the same modules: the
`mcp` SDK's server and its pydantic types, pydantic-settings, httpx and `shared`. Started all at once on a small
machine, these identical imports compete for the CPU and the slowest MCP is ready several times later than it
would be alone. Instead, a `multiprocessing` fork server imports those shared modules once (`PRELOAD`); each MCP
is then a fork of it that imports only its own package and runs `python -m <package>` in-process. (At start-up
the hub itself plays that part: `prestart`.)

The fork runs `run_module`: it leads its own session (as `start_new_session` would), takes three socket ends as
fds 0, 1 and 2, replaces the environment, `sys.path`, working directory and `sys.argv` with what the command asked
for, and runs the package's `__main__` with `runpy`. The hub sees a `WarmProcess`: an `anyio.abc.Process` whose
streams are the other socket ends, so the transport, supervision and restarts treat it like any child.

What differs from a fresh interpreter: environment variables read by the interpreter at start (`PYTHONHASHSEED`,
`PYTHONWARNINGS`, `-X` options) and by the preloaded modules at import keep the values the hub had when it started
the fork server. The preloaded modules must start no thread (a fork copies only the thread that forks); numpy,
litellm and the embedding model are therefore never preloaded.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.process
import os
import runpy
import signal
import socket
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, Protocol

import anyio
import anyio.abc
import anyio.to_thread

log = logging.getLogger(__name__)

PRELOAD: tuple[str, ...] = (
    "mcp.server.mcpserver",
    "mcp.server.stdio",
    "pydantic_settings",
    "httpx",
    "shared.mcp_tools",
    "shared.settings",
    "shared.manifest",
    "shared.logs",
    "orchestrator.warm_start",
)
"""Modules the fork server imports once for every warm child: shared by the MCPs, heavy, and thread-free."""

_CONTEXT = multiprocessing.get_context("forkserver")
# One start at a time: multiprocessing polls its known children on each start, and a poll racing our own exit
# watch would read a child's exit status twice. Each started process leaves multiprocessing's list at once.
_START_LOCK = threading.Lock()


def start_fork_server() -> None:
    """Start the fork server now, so a restart does not wait for its imports of `PRELOAD`.

    Idempotent; the first warm start does it otherwise. The hub calls it once it is ready (its first MCPs are forks
    of the hub itself: `prestart`). The server's interpreter gets the hub's `sys.path`.
    """
    _CONTEXT.set_forkserver_preload(_preload())
    multiprocessing.forkserver.ensure_running()


def preload_here() -> None:
    """Import `PRELOAD` in this interpreter (the hub does, to fork its first MCPs from itself: see `prestart`)."""
    for module in PRELOAD:
        importlib.import_module(module)


def _preload() -> list[str]:
    # A hub run from a script (the `annabelle` command) rather than `python -m` has its script re-run as
    # `__mp_main__` in every fork; that script imports orchestrator.cli, so import it once in the server instead.
    main = sys.modules.get("__main__")
    from_script = getattr(main, "__spec__", None) is None and getattr(main, "__file__", None) is not None
    return [*PRELOAD, "orchestrator.cli"] if from_script else list(PRELOAD)


# -- in the child ----------------------------------------------------------------------------------------------


def _rebind_standard_streams() -> None:
    """New `sys.stdin/stdout/stderr` on fds 0-2, as a fresh interpreter with `PYTHONUNBUFFERED=1` would have."""
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - lives as long as the process
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False, buffering=1)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
        2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1
    )


def run_module(
    module: str,
    streams: tuple[socket.socket, socket.socket, socket.socket],
    env: Mapping[str, str],
    cwd: str,
    argv: Sequence[str],
) -> None:
    """Run `python -m <module> <argv...>` in this forked interpreter, with `streams` as stdin, stdout, stderr."""
    os.setsid()
    for fd, stream in enumerate(streams):
        os.dup2(stream.fileno(), fd)
        stream.close()
    _rebind_standard_streams()
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    os.chdir(cwd)
    # As `python -m` in `cwd` with this PYTHONPATH: the folder first, then PYTHONPATH, then the interpreter's own.
    front = [cwd, *(entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry)]
    sys.path[:] = list(dict.fromkeys([*front, *sys.path]))
    sys.argv = ["-m", *argv]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        # multiprocessing ends its children with os._exit, which skips atexit: run what the module registered.
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()


# -- in the hub ----------------------------------------------------------------------------------------------


class ForkedProcess(Protocol):
    """What a warm child's handle tells: a `multiprocessing` process, or a child forked by the hub (`prestart`)."""

    @property
    def pid(self) -> int | None: ...

    @property
    def exitcode(self) -> int | None: ...

    @property
    def sentinel(self) -> int:
        """A descriptor that becomes readable when the process has ended."""
        ...

    def close(self) -> None: ...


class WarmProcess(anyio.abc.Process):
    """A warm child seen as an `anyio.abc.Process`: pid, socket streams for stdio, exit code, signals."""

    def __init__(
        self,
        process: ForkedProcess,
        stdin: anyio.abc.SocketStream,
        stdout: anyio.abc.SocketStream,
        stderr: anyio.abc.SocketStream,
    ) -> None:
        self._process = process
        self._pid = process.pid or 0
        self._stdin = stdin
        self._stdout = stdout
        self._stderr = stderr
        self._returncode: int | None = None
        self._exited = anyio.Event()
        self._watching = False

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def returncode(self) -> int | None:
        return self._returncode

    @property
    def stdin(self) -> anyio.abc.ByteSendStream:
        return self._stdin

    @property
    def stdout(self) -> anyio.abc.ByteReceiveStream:
        return self._stdout

    @property
    def stderr(self) -> anyio.abc.ByteReceiveStream:
        return self._stderr

    async def wait(self) -> int:
        while self._returncode is None:
            if self._watching:
                # An event loop allows one reader per descriptor: another caller watches the exit pipe. Re-check
                # now and then in case that caller is cancelled before the child exits.
                with anyio.move_on_after(0.2):
                    await self._exited.wait()
                continue
            self._watching = True
            try:
                while (code := self._process.exitcode) is None:
                    await anyio.wait_readable(self._process.sentinel)
                self._returncode = code
                self._process.close()
                self._exited.set()
            finally:
                self._watching = False
        return self._returncode

    def send_signal(self, sig: int) -> None:
        if self._returncode is None:
            os.kill(self._pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    async def aclose(self) -> None:
        for stream in (self._stdin, self._stdout, self._stderr):
            await stream.aclose()
        if self._returncode is None:
            await self.wait()


def _start(module: str, ends: tuple[socket.socket, ...], env: dict[str, str], cwd: str, argv: list[str]) -> Any:
    process = _CONTEXT.Process(target=run_module, args=(module, ends, env, cwd, argv), name=f"mcp:{module}")
    with _START_LOCK:
        _CONTEXT.set_forkserver_preload(_preload())
        process.start()
        # The hub watches and stops its children itself; multiprocessing must neither poll nor join them at exit.
        multiprocessing.process._children.discard(process)  # type: ignore[attr-defined]
    return process


async def open_warm_process(module: str, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> WarmProcess:
    """Start `python -m <module> <argv...>` as a fork of the warm interpreter; its stdio are socket pairs."""
    pairs = [socket.socketpair() for _ in range(3)]
    ours = [pair[0] for pair in pairs]
    theirs = tuple(pair[1] for pair in pairs)
    try:
        process = await anyio.to_thread.run_sync(_start, module, theirs, dict(env), str(cwd), list(argv))
    except BaseException:
        for end in ours:
            end.close()
        raise
    finally:
        for end in theirs:
            end.close()
    stdin, stdout, stderr = [await anyio.abc.SocketStream.from_socket(end) for end in ours]
    return WarmProcess(process, stdin, stdout, stderr)
