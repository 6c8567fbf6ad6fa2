"""One supervised MCP child: spawn, initialise, list tools, health-check, restart with backoff.

`ManagedMcp` owns the child process and its `mcp.Client` session. A supervisor task keeps the session open
while the child is healthy; when the child exits or stops answering pings, the session is torn down and the
child restarted after a backoff, with its tools listed again. A crash loop trips a breaker and the MCP is
given up. Calls made while the MCP is not ready fail at once with `McpUnavailable`, never hang.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import anyio
import anyio.abc
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, Tool

from orchestrator.backoff import RestartPolicy, RestartTracker
from orchestrator.errors import McpCallError, McpTimeout, McpUnavailable, describe_cause
from orchestrator.mcp_commands import ChildCommand
from orchestrator.stdio_transport import ChildProcess, Spawner, open_child, spawn

log = logging.getLogger(__name__)

# One unanswered probe may be a server busy in one long step that holds its GIL (Guardian building its tokeniser
# on a saturated machine took longer than the 10 s timeout, and was restarted mid-scan): only this many unanswered
# in a row mean hung. A probe answered with an error, or a closed pipe, restarts it at once.
MISSED_PROBES_BEFORE_RESTART = 3


def _signature(tools: list[Tool]) -> list[tuple[str, str | None, str]]:
    return [(tool.name, tool.description, repr(tool.input_schema)) for tool in tools]


async def list_all_tools(client: Client) -> list[Tool]:
    """Every tool a server lists, following its pages."""
    listing = await client.list_tools()
    tools = list(listing.tools)
    while listing.next_cursor:
        listing = await client.list_tools(cursor=listing.next_cursor)
        tools.extend(listing.tools)
    return tools


class McpState(StrEnum):
    NOT_STARTED = "not started"
    """Left for first use (`start_on_first_use`): its tools are listed, the first call starts it."""
    STARTING = "starting"
    READY = "ready"
    RESTARTING = "restarting"
    FAILED = "failed"
    STOPPED = "stopped"


class ManagedMcp:
    def __init__(
        self,
        name: str,
        command: ChildCommand,
        *,
        call_timeout: float,
        policy: RestartPolicy,
        health_interval: float,
        health_timeout: float,
        startup_timeout: float,
        on_tools_changed: Callable[[ManagedMcp], None] = lambda _: None,
        clock: Callable[[], float] = time.monotonic,
        spawner: Spawner = spawn,
    ) -> None:
        self.name = name
        self.command = command
        self.call_timeout = call_timeout
        self.health_interval = health_interval
        self.health_timeout = health_timeout
        self.startup_timeout = startup_timeout
        self.state = McpState.STOPPED
        self.tools: list[Tool] = []
        self.last_error: str | None = None
        self.restarts = 0
        self._tracker = RestartTracker(policy)
        self._on_tools_changed = on_tools_changed
        self._clock = clock
        self._spawner = spawner
        self._client: Client | None = None
        self._child: ChildProcess | None = None
        self._up_since: float | None = None
        self._next_attempt_at: float | None = None
        self._first_outcome = anyio.Event()
        self._stopping = False
        self._cancel: anyio.CancelScope | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._command_then: Callable[[], ChildCommand] | None = None
        self._life: anyio.CancelScope | None = None
        self._renewing = False
        self.not_started: str | None = None
        """Why it was left for first use ("not configured: set X"), while it is."""

    # -- what the hub reads -------------------------------------------------------------------------------

    @property
    def available(self) -> bool:
        return self.state is McpState.READY and self._client is not None

    @property
    def pid(self) -> int | None:
        child = self._child
        return child.pid if child is not None and not child.exited.is_set() else None

    def describe(self) -> dict[str, Any]:
        return {
            "state": self.state.value,
            "available": self.available,
            "pid": self.pid,
            "toolCount": len(self.tools),
            "restarts": self.restarts,
            "lastError": self.last_error,
            "notStarted": self.not_started,
        }

    # -- lifecycle --------------------------------------------------------------------------------------------

    async def start(self, tasks: anyio.abc.TaskGroup) -> bool:
        """Start supervising in `tasks`; wait for the first start to succeed (True) or fail (False)."""
        self.state = McpState.STARTING
        tasks.start_soon(self._supervise, name=f"mcp:{self.name}")
        await self._first_outcome.wait()
        return self.state is McpState.READY

    def start_on_first_use(
        self, tasks: anyio.abc.TaskGroup, tools: list[Tool], reason: str, command: Callable[[], ChildCommand]
    ) -> None:
        """Do not start now: `tools` (shipped with the package) stand for its list until the first call, or
        `wake`, starts it in `tasks` with `command()`, made then so that it carries the setting that has appeared
        meanwhile (see `orchestrator.on_demand`)."""
        self._tasks = tasks
        self._command_then = command
        self.tools = tools
        self.not_started = reason
        self.state = McpState.NOT_STARTED

    async def wake(self) -> None:
        """Start it if it was left for first use, and wait for that start's outcome (callers arriving meanwhile
        wait for the same start)."""
        if self._tasks is None:
            return  # started with the others
        if self.state is McpState.NOT_STARTED:
            log.info("mcp starting on first use", extra={"mcp": self.name, "was": self.not_started})
            self.not_started = None
            self.state = McpState.STARTING
            if self._command_then is not None:
                self.command = self._command_then()
            self._tasks.start_soon(self._supervise, name=f"mcp:{self.name}")
        if self.state is McpState.STARTING:  # not when the hub stopped it before anything called it
            await self._first_outcome.wait()

    def renew(self, command: ChildCommand) -> None:
        """Run it with `command` from now on (a setting it lacked has appeared): a running child is replaced at
        once, which is not a crash (no backoff, not counted); one that gave up (it failed to start, or crashed in
        a loop) starts again, with its crash count cleared; one waiting to restart takes `command` then."""
        self.command = command
        if self._life is not None:
            log.info("mcp restarting with a new setting", extra={"mcp": self.name, "pid": self.pid})
            self._renewing = True
            self._life.cancel()
        elif self.state is McpState.FAILED and self._tasks is not None:
            log.info("mcp starting again with a new setting", extra={"mcp": self.name, "was": self.last_error})
            self._tracker = RestartTracker(self._tracker.policy)
            self._first_outcome = anyio.Event()
            self.state = McpState.STARTING
            self._tasks.start_soon(self._supervise, name=f"mcp:{self.name}")

    async def stop(self) -> None:
        self._stopping = True
        if self._cancel is not None:
            self._cancel.cancel()
        self.state = McpState.STOPPED

    async def _supervise(self) -> None:
        with anyio.CancelScope() as scope:
            self._cancel = scope
            while not self._stopping:
                reason = "replaced"  # what ends a life that `renew` cancels
                with anyio.CancelScope() as life:
                    self._life = life
                    reason = await self._run_once()
                self._life = None
                self._client = None
                if self._stopping:
                    break
                if self._renewing:
                    self._renewing = False
                    self.state = McpState.STARTING
                    continue
                self.last_error = reason
                if not self._first_outcome.is_set():
                    # Never came up: reported once and skipped, not retried in a loop.
                    self.state = McpState.FAILED
                    log.error("mcp failed to start", extra={"mcp": self.name, "reason": reason})
                    self._first_outcome.set()
                    return
                delay = self._tracker.record_crash(self._clock(), self._up_since)
                if delay is None:
                    self.state = McpState.FAILED
                    self.last_error = (
                        f"{reason}; gave up after {self._tracker.recent_crashes} crashes in "
                        f"{self._tracker.policy.window_seconds / 60:g} minutes (restart the hub once it is fixed)"
                    )
                    log.error("mcp crash loop: giving up", extra={"mcp": self.name, "reason": reason})
                    return
                self.state = McpState.RESTARTING
                self._next_attempt_at = self._clock() + delay
                log.warning("mcp down; restarting", extra={"mcp": self.name, "reason": reason, "delay_s": delay})
                await anyio.sleep(delay)
                self.restarts += 1
        self.state = McpState.STOPPED
        self._first_outcome.set()

    async def _run_once(self) -> str:
        """Run one life of the child; return why it ended."""
        stderr_log = logging.getLogger(f"child.{self.name}")

        def remember(child: ChildProcess) -> None:
            self._child = child

        try:
            transport = open_child(self.command, remember, stderr_log, self._spawner)
            async with Client(transport, read_timeout_seconds=None, cache=None) as client:
                return await self._serve(client)
        except TimeoutError:
            return f"did not initialise within {self.startup_timeout:g} s"
        except Exception as exc:  # the supervisor must outlive any failure of one child's life
            child = self._child
            if child is not None and child.returncode is not None:
                return f"process exited with code {child.returncode}"
            return describe_cause(exc)
        finally:
            self._client = None

    async def _serve(self, client: Client) -> str | None:
        """One connected session: list the tools, announce readiness, then watch it until it ends."""
        with anyio.fail_after(self.startup_timeout):
            tools = await list_all_tools(client)
        self.tools = tools
        self._client = client
        self._up_since = self._clock()
        self._next_attempt_at = None
        self.state = McpState.READY
        log.info("mcp ready", extra={"mcp": self.name, **self._where(), "tools": len(tools)})
        self._first_outcome.set()
        self._on_tools_changed(self)
        return await self._watch(client)

    def _where(self) -> dict[str, Any]:
        """How the log tells this server apart: a child's pid (an HTTP server says its URL)."""
        return {"pid": self.pid}

    async def _watch(self, client: Client) -> str:
        """Return when the child exits or stops answering the health probe."""
        child = self._child
        assert child is not None
        outcome = "stopped"
        async with anyio.create_task_group() as watchers:

            async def on_exit() -> None:
                nonlocal outcome
                await child.exited.wait()
                outcome = f"process exited with code {child.returncode}"
                watchers.cancel_scope.cancel()

            async def on_probe_failure() -> None:
                # The probe is `tools/list`, not `ping`: servers on the 2026-07-28 protocol answer `ping` with
                # "Method not found". Listing also notices a server whose tools changed.
                nonlocal outcome
                missed = 0
                while True:
                    await anyio.sleep(self.health_interval)
                    try:
                        with anyio.fail_after(self.health_timeout):
                            tools = await list_all_tools(client)
                    except TimeoutError:
                        missed += 1
                        if missed < MISSED_PROBES_BEFORE_RESTART:
                            log.warning(
                                "mcp health probe unanswered",
                                extra={"mcp": self.name, "missed": missed, "timeout_s": self.health_timeout},
                            )
                            continue
                        outcome = (
                            f"health check failed (no answer within {self.health_timeout:g} s, "
                            f"{missed} probes in a row)"
                        )
                    except (MCPError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                        outcome = f"health check failed ({exc})"
                    else:
                        missed = 0
                        if _signature(tools) != _signature(self.tools):
                            self.tools = tools
                            log.info("mcp tools changed", extra={"mcp": self.name, "tools": len(tools)})
                            self._on_tools_changed(self)
                        continue
                    watchers.cancel_scope.cancel()
                    return

            watchers.start_soon(on_exit)
            watchers.start_soon(on_probe_failure)
        return outcome

    # -- calls ------------------------------------------------------------------------------------------------

    def _unavailable_reason(self) -> str:
        if self.state is McpState.RESTARTING and self._next_attempt_at is not None:
            wait = max(self._next_attempt_at - self._clock(), 0.0)
            when = "in under a second" if wait < 1 else f"in about {wait:.0f} s"
            return f"The {self.name} MCP is restarting after a crash ({self.last_error}); retry {when}."
        if self.state is McpState.STARTING:
            return f"The {self.name} MCP is starting; retry in a few seconds."
        if self.state is McpState.FAILED:
            return f"The {self.name} MCP is not running: {self.last_error}."
        return f"The {self.name} MCP is {self.state.value}."

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        if self._tasks is not None:
            await self.wake()  # left for first use: this call starts it
        client = self._client
        if client is None or self.state is not McpState.READY:
            raise McpUnavailable(self._unavailable_reason())
        try:
            with anyio.fail_after(self.call_timeout):
                return await client.call_tool(tool, arguments)
        except TimeoutError:
            raise McpTimeout(
                f"{self.name}_{tool} did not answer within {self.call_timeout:g} s (the {self.name} MCP's timeout)."
            ) from None
        except (MCPError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            if self._client is not client or "closed" in str(exc).lower():
                raise McpUnavailable(
                    f"The {self.name} MCP stopped while running {tool}; it is being restarted, retry shortly."
                ) from None
            raise McpCallError(f"The {self.name} MCP rejected the call to {tool}: {exc}") from None
