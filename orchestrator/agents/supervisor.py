"""Thinker processes: start, watch, restart after a crash, stop when idle. The supervisor is the hub's one source
of a Thinker's health: requests ask it (`ensure`), it asks the Thinker only on its own rounds.

A spawned Thinker is `python -m thinker --agent-id ID --port PORT` with `AGENTS_CONFIG`, `ORCHESTRATOR_URL`,
`ANNABELLE_HOME` and a token minted for it (`ANNABELLE_AGENT_TOKEN`). Its life:

- started by the first message or skill (the default agent's once the hub is ready: `THINKER_WARM_START`); its stdin is a pipe the hub holds open and never writes, and
  `ANNABELLE_PARENT_WATCH=stdin` makes it exit when the pipe closes, so it never outlives the hub (not even a
  SIGKILL of the hub) and never keeps its port from the next hub;
- watched: its exit is seen at once (its output pump ends), and every `health_interval` seconds its `/health` is
  asked; one that fails twice running is killed;
- an exit nobody asked for is a crash: the next start waits a backoff (`RestartPolicy`: doubling and capped; a
  crash loop trips the breaker for the policy's window). A request meanwhile is refused with the reason and the
  wait; the health round starts a crashed Thinker again as soon as its backoff allows;
- stopped when idle for the agent's `idleTimeoutMinutes` (`reap_idle`, on the injectable `clock`, so tests
  never wait), and started again by the next message.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import anyio
import anyio.abc

from orchestrator.agents.client import ThinkerClient
from orchestrator.agents.runtime import AgentError, AgentRuntime
from orchestrator.backoff import RestartPolicy
from orchestrator.stdio_transport import log_lines
from shared.agents import PARENT_WATCH_VARIABLE, AgentDefinition
from shared.envelope import ErrorCode

log = logging.getLogger(__name__)

HEALTH_FAILURES_BEFORE_KILL = 2
DEFAULT_HEALTH_INTERVAL_SECONDS = 30.0
DEFAULT_RESTART_POLICY = RestartPolicy(
    base_seconds=2.0, max_seconds=120.0, max_restarts=5, window_seconds=600.0, healthy_after_seconds=120.0
)

Clock = Callable[[], float]
Command = Callable[[AgentDefinition, int], list[str]]
ChildrenGone = Callable[[str, str], Awaitable[None]]
"""Called with a parent's agent id and why, when its Thinker stops or crashes (its subagents go with it)."""


class Supervisor:
    def __init__(
        self,
        client: ThinkerClient,
        *,
        hub_url: str,
        home: Path,
        environ: Mapping[str, str],
        startup_timeout: float,
        command: Command,
        clock: Clock,
        restart_policy: RestartPolicy,
        on_stopped: ChildrenGone,
    ) -> None:
        self.client = client
        self.hub_url = hub_url
        self.home = home
        self.environ = dict(environ)
        self.startup_timeout = startup_timeout
        self.command = command
        self.clock = clock
        self.restart_policy = restart_policy
        self.on_stopped = on_stopped
        self.tasks: anyio.abc.TaskGroup | None = None
        """The hub's task group, once attached: output pumps run there."""

    # -- starting -------------------------------------------------------------------------------------------

    async def ensure(self, runtime: AgentRuntime) -> None:
        """A running Thinker for `runtime`, started (or restarted after its backoff) when it has none.

        A Thinker the supervisor holds as running is trusted: its exit is noticed by its output pump, a hang by
        the health round; no request is sent to it here."""
        if not runtime.spawned:
            return
        async with runtime.lock:
            process = runtime.process
            if process is not None and process.returncode is None and runtime.state == "running":
                return
            if process is not None and self._detach(runtime, process):
                self._record_crash(runtime, f"the Thinker exited with code {process.returncode}")
            self._check_backoff(runtime)
            await self.start(runtime)

    def _check_backoff(self, runtime: AgentRuntime) -> None:
        if runtime.retry_at is None:
            return
        wait = runtime.retry_at - self.clock()
        if wait > 0:
            raise AgentError(
                f"The agent {runtime.agent_id!r} crashed ({runtime.last_error}); the hub starts it again "
                f"in {math.ceil(wait)} s (restart backoff after {runtime.tracker.consecutive} crash(es)).",
                code=ErrorCode.MCP_UNAVAILABLE,
            )

    async def start(self, runtime: AgentRuntime) -> None:
        """Spawn the Thinker and wait for its `/health` (caller holds `runtime.lock`)."""
        agent = runtime.definition
        env = {
            **self.environ,
            "AGENTS_CONFIG": str(runtime.config_path),
            "ORCHESTRATOR_URL": self.hub_url,
            "ANNABELLE_AGENT_TOKEN": runtime.token,
            "ANNABELLE_HOME": str(self.home),
            "THINKER_PORT": str(runtime.port),
            "PYTHONUNBUFFERED": "1",
            PARENT_WATCH_VARIABLE: "stdin",
            **runtime.extra_env,
        }
        if runtime.state == "crashed":
            runtime.restarts += 1
        runtime.state = "starting"
        log.info("starting thinker", extra={"agent": agent.agentId, "url": runtime.url})
        started = time.monotonic()
        # stdin stays a pipe the hub never writes to: the Thinker exits when it closes (the hub is gone).
        process = await anyio.open_process(self.command(agent, runtime.port), env=env, start_new_session=True)
        runtime.process, runtime.pid = process, process.pid
        if self.tasks is not None:
            self.tasks.start_soon(self._watch, runtime, process)
        with anyio.move_on_after(self.startup_timeout):
            while process.returncode is None:
                if await self.client.healthy(runtime):
                    self._started(runtime)
                    log.info("thinker ready", extra={"agent": agent.agentId, "s": round(time.monotonic() - started, 2)})
                    return
                await anyio.sleep(0.1)
        if process.returncode is None:
            reason = f"the Thinker did not become healthy within {self.startup_timeout:g} s"
        else:
            reason = f"the Thinker exited with code {process.returncode} while starting (see the log)"
        if self._detach(runtime, process):
            await terminate(process)
            self._record_crash(runtime, reason)
        raise AgentError(f"Agent {agent.agentId!r} could not start: {runtime.last_error}.", code=ErrorCode.TOOL_ERROR)

    def _started(self, runtime: AgentRuntime) -> None:
        runtime.state, runtime.last_error, runtime.health_failures = "running", None, 0
        runtime.up_since = self.clock()
        self.touch(runtime)

    def touch(self, runtime: AgentRuntime) -> None:
        """Record activity: an idle Thinker is one untouched for its agent's idle timeout."""
        runtime.last_activity = self.clock()
        runtime.last_activity_at = datetime.now(UTC)

    # -- ending ---------------------------------------------------------------------------------------------

    @staticmethod
    def _detach(runtime: AgentRuntime, process: anyio.abc.Process) -> bool:
        """Take `process` off the runtime; True for the one caller that does it first (and so owns its exit)."""
        if runtime.process is not process:
            return False
        runtime.process, runtime.pid, runtime.up_since = None, None, None
        return True

    def _record_crash(self, runtime: AgentRuntime, reason: str) -> None:
        now = self.clock()
        delay = runtime.tracker.record_crash(now, runtime.up_since)
        if delay is None:
            delay = self.restart_policy.window_seconds
            reason += (
                f"; it crashed {runtime.tracker.recent_crashes} times within "
                f"{self.restart_policy.window_seconds / 60:g} minutes, so the hub waits {delay:g} s before trying again"
            )
        runtime.retry_at = now + delay
        runtime.state, runtime.last_error = "crashed", reason
        log.warning("thinker crashed", extra={"agent": runtime.agent_id, "reason": reason, "retry_s": delay})

    async def _kill_unhealthy(self, runtime: AgentRuntime, reason: str) -> None:
        process = runtime.process
        if process is not None and self._detach(runtime, process):
            await terminate(process)
            self._record_crash(runtime, reason)
            await self.on_stopped(runtime.agent_id, f"its parent agent crashed ({reason})")

    async def _watch(self, runtime: AgentRuntime, process: anyio.abc.Process) -> None:
        """Copy the Thinker's output to the hub's log until it exits; an exit nobody asked for is a crash."""
        child_log = logging.getLogger(f"child.thinker.{runtime.agent_id}")
        async with anyio.create_task_group() as pumps:
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    pumps.start_soon(log_lines, stream, child_log)
        await process.wait()
        log.info("thinker exited", extra={"agent": runtime.agent_id, "code": process.returncode})
        # Only an exit nobody asked for is still attached here: stop, idle and health kills detach first.
        if runtime.state == "running" and self._detach(runtime, process):
            self._record_crash(runtime, f"the Thinker exited with code {process.returncode}")
            await self.on_stopped(runtime.agent_id, "its parent agent crashed")

    async def stop(self, runtime: AgentRuntime, reason: str) -> None:
        """Stop a Thinker on purpose (idle, shutdown): not a crash, and its subagents go with it."""
        process = runtime.process
        if process is not None and self._detach(runtime, process):
            await terminate(process)
            log.info("thinker stopped", extra={"agent": runtime.agent_id, "reason": reason})
        runtime.state = "stopped"
        await self.on_stopped(runtime.agent_id, f"its parent agent was stopped ({reason})")

    async def discard(self, runtime: AgentRuntime) -> None:
        """End a Thinker whose runtime is being thrown away (a subagent): no crash record, no notice."""
        process = runtime.process
        if process is not None and self._detach(runtime, process):
            await terminate(process)

    # -- rounds ---------------------------------------------------------------------------------------------

    async def check_health(self, runtimes: Iterable[AgentRuntime]) -> None:
        """One round: external agents are probed, hung Thinkers killed, crashed ones restarted."""
        for runtime in list(runtimes):
            if not runtime.spawned:
                runtime.state = "running" if await self.client.healthy(runtime) else "unreachable"
            elif runtime.lock.locked():
                continue
            elif runtime.state == "running" and runtime.process is not None:
                await self._probe(runtime)
            elif runtime.state == "crashed" and (runtime.retry_at or 0) <= self.clock():
                try:
                    await self.ensure(runtime)
                except AgentError as exc:
                    log.warning("thinker restart failed", extra={"agent": runtime.agent_id, "error": str(exc)})

    async def _probe(self, runtime: AgentRuntime) -> None:
        if await self.client.healthy(runtime):
            runtime.health_failures = 0
            return
        runtime.health_failures += 1
        if runtime.health_failures >= HEALTH_FAILURES_BEFORE_KILL:
            async with runtime.lock:
                failures = runtime.health_failures
                await self._kill_unhealthy(runtime, f"its /health failed {failures} checks in a row")

    async def reap_idle(self, runtimes: Iterable[AgentRuntime], now: float | None = None) -> list[str]:
        """Stop every spawned Thinker idle for its agent's `idleTimeoutMinutes`; returns their agent ids."""
        now = self.clock() if now is None else now
        reaped: list[str] = []
        for runtime in list(runtimes):
            if runtime.process is None or runtime.busy or runtime.lock.locked() or runtime.last_activity is None:
                continue
            if now - runtime.last_activity >= runtime.definition.idleTimeoutMinutes * 60:
                async with runtime.lock:
                    await self.stop(runtime, f"idle for {runtime.definition.idleTimeoutMinutes} minutes")
                reaped.append(runtime.agent_id)
        return reaped


async def terminate(process: anyio.abc.Process) -> None:
    """Close its stdin (a Thinker's cue to exit), then SIGTERM, then SIGKILL, 5 s apart."""
    if process.stdin is not None:
        await process.stdin.aclose()
    if process.returncode is not None:
        return
    process.terminate()
    with anyio.move_on_after(5):
        await process.wait()
        return
    process.kill()
    with anyio.move_on_after(5):
        await process.wait()
