"""The first-party MCPs forked from the hub itself, before it imports its web stack, and adopted once it runs.

`python -m orchestrator` spends more CPU importing the hub (the MCP SDK, FastAPI, the app's modules) than the
slowest MCP needs to start alone, and every first-party MCP imports much of the same. So `serve()` first imports
only what the MCPs share (`warm_start.PRELOAD`, which the hub needs anyway), forks each first-party MCP from
itself, and only then imports the rest: the children import their own package and wait for `initialize` on one
core while the hub imports on the other. When the hub's event loop runs, `Hub.start` adopts each child whose
command is the one it would have spawned; a child nobody adopts (the configuration changed in between) is killed.

Forking is only safe while the process runs a single thread: with any other thread alive, nothing is forked and
the hub spawns its MCPs from the fork server as usual. Restarts always go through the fork server, which the hub
starts once it is ready. The forked child runs as a fork-server child does (`warm_start.run_module`), except that
it first closes the hub's ends of its siblings' streams and forgets the hub's exit handlers.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import NoReturn

import anyio.abc

from orchestrator.mcp_commands import ChildCommand
from orchestrator.warm_start import WarmProcess, run_module


class ForkedChild:
    """A child this process forked: its pid, a pidfd that turns readable when it ends, and its exit code."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.sentinel = os.pidfd_open(pid)
        self._exitcode: int | None = None

    @property
    def exitcode(self) -> int | None:
        """None while it runs; then as `multiprocessing` says it: the code, or minus the signal that ended it."""
        if self._exitcode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self._exitcode = os.waitstatus_to_exitcode(status)
        return self._exitcode

    def close(self) -> None:
        with suppress(OSError):
            os.close(self.sentinel)

    def kill(self) -> None:
        """Kill it (and its group, once it leads one) and reap it."""
        if self.exitcode is None:
            for kill in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
                with suppress(ProcessLookupError, PermissionError):
                    kill()
            with suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
        self.close()


@dataclass
class _Forked:
    command: ChildCommand
    child: ForkedChild
    ends: list[socket.socket]
    """The hub's ends of the child's stdin, stdout and stderr."""


class Prestarted:
    """The MCP children forked before the hub's imports, waiting for the hub to adopt them."""

    def __init__(self) -> None:
        self._waiting: list[_Forked] = []

    @property
    def pids(self) -> list[int]:
        return [forked.child.pid for forked in self._waiting]

    def fork(self, commands: Sequence[ChildCommand]) -> None:
        """Fork every first-party MCP (`command.module` set) among `commands`, unless another thread is running."""
        if threading.active_count() > 1:
            return  # a fork would copy one thread of several: the hub spawns these from the fork server instead
        for command in commands:
            if command.module is not None:
                self._fork(command)

    def _fork(self, command: ChildCommand) -> None:
        pairs = [socket.socketpair() for _ in range(3)]
        ours = [pair[0] for pair in pairs]
        theirs = (pairs[0][1], pairs[1][1], pairs[2][1])
        # Whatever the hub has buffered for its own stdout or stderr must not be written a second time by the child.
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError, AttributeError):
                stream.flush()
        inherited = [*ours, *(end for forked in self._waiting for end in forked.ends)]
        pid = os.fork()
        if pid == 0:
            _run_child(command, theirs, inherited)
        for end in theirs:
            end.close()
        self._waiting.append(_Forked(command, ForkedChild(pid), ours))

    async def adopt(self, command: ChildCommand) -> WarmProcess | None:
        """The waiting child started with exactly `command`, as a process the hub's transport can use; else None."""
        for index, forked in enumerate(self._waiting):
            if forked.command == command:
                del self._waiting[index]
                stdin, stdout, stderr = [await anyio.abc.SocketStream.from_socket(end) for end in forked.ends]
                return WarmProcess(forked.child, stdin, stdout, stderr)
        return None

    def discard(self) -> None:
        """Kill every child not adopted (idempotent)."""
        while self._waiting:
            forked = self._waiting.pop()
            for end in forked.ends:
                end.close()
            forked.child.kill()


def _run_child(command: ChildCommand, streams: tuple[socket.socket, ...], inherited: list[socket.socket]) -> NoReturn:
    """In the forked child: run the MCP's module, then leave without returning into the hub's code."""
    code = 1
    try:
        atexit._clear()  # the hub's exit handlers are the hub's
        for end in inherited:
            end.close()  # else a sibling's stdin would not reach end-of-file when the hub closes it
        assert command.module is not None
        run_module(
            command.module, (streams[0], streams[1], streams[2]), command.env, str(command.cwd), command.module_args
        )
        code = 0
    except SystemExit as exc:
        # As the interpreter does at exit: a number is the code, a message is printed and means 1.
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr, flush=True)
    except BaseException:
        traceback.print_exc()
        with suppress(OSError, ValueError):
            sys.stderr.flush()
    finally:
        os._exit(code)
