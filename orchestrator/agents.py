"""The agent manager: one Thinker per agent, started on first use, watched, restarted, stopped when idle.

A spawned Thinker is `python -m thinker --agent-id ID --port PORT` with `AGENTS_CONFIG`, `ORCHESTRATOR_URL`,
`ANNABELLE_HOME` and a token minted for it (`ANNABELLE_AGENT_TOKEN`); the hub knows the agent by that token and
limits it to its allowed tools. Its life:

- started lazily by the first message or skill; its stdin is a pipe the hub holds open and never writes, and
  `ANNABELLE_PARENT_WATCH=stdin` makes it exit when the pipe closes, so it never outlives the hub (not even a
  SIGKILL of the hub) and never keeps its port from the next hub;
- health-checked every `health_interval` seconds: a Thinker whose `/health` fails twice running is killed;
- an exit nobody asked for is a crash: the next start waits a backoff (`RestartPolicy`: doubling and capped; a
  crash loop trips the breaker for the policy's window). A request meanwhile is refused with the reason and the
  wait; the health loop starts a crashed Thinker again as soon as its backoff allows;
- stopped when idle for the agent's `idleTimeoutMinutes` (`reap_idle`, on the injectable `clock`, so tests
  never wait), and started again by the next message.

An agent with `url` runs elsewhere: it is only called and health-checked, never started or stopped.
A cost pause (a Thinker answer with `paused: true`) is announced once through the notifier with the figures of
the Thinker's `/cost-status`; the agent then gets no messages until resumed. Subagents (`run_subagent`) are
temporary Thinkers running one task for a parent agent, stopped at their timeout or with their parent.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import socket
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx
from anyio.streams.text import TextReceiveStream

from orchestrator.backoff import RestartPolicy, RestartTracker
from orchestrator.notify import Notifier
from orchestrator.policy import resolve_agent
from orchestrator.subagents import (
    MAX_SUBAGENTS_PER_PARENT,
    SubagentRequest,
    required_tools,
    subagent_definition,
    subagent_id,
)
from shared.agents import DEFAULT_AGENT_ID, PARENT_WATCH_VARIABLE, AgentDefinition, AgentsConfig
from shared.auth import TOKEN_HEADER, generate_token, tokens_equal
from shared.envelope import ErrorCode
from shared.logs import STDERR_LEVEL_VARIABLE
from shared.traces import current_trace, trace_event, trace_headers, traced

log = logging.getLogger(__name__)

THINKER_CALL_TIMEOUT_SECONDS = 130.0
"""How long the hub waits for a turn. The Thinker bounds its own model calls well before this; a turn that
spawned subagents gets their time limits on top (see `_extend_turns`)."""
CONNECT_TIMEOUT_SECONDS = 10.0
HEALTH_TIMEOUT_SECONDS = 5.0
HEALTH_FAILURES_BEFORE_KILL = 2
DEFAULT_HEALTH_INTERVAL_SECONDS = 30.0
DEFAULT_RESTART_POLICY = RestartPolicy(
    base_seconds=2.0, max_seconds=120.0, max_restarts=5, window_seconds=600.0, healthy_after_seconds=120.0
)

Clock = Callable[[], float]
Command = Callable[[AgentDefinition, int], list[str]]


def thinker_command(agent: AgentDefinition, port: int) -> list[str]:
    return [sys.executable, "-m", "thinker", "--agent-id", agent.agentId, "--port", str(port)]


def free_port() -> int:
    """A port the OS says is free now (another process could still take it before the Thinker binds it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class AgentError(Exception):
    """An agent cannot take the request; the message says why and what to do, `code` classifies it for tools."""

    def __init__(self, message: str, *, code: ErrorCode = ErrorCode.TOOL_ERROR) -> None:
        super().__init__(message)
        self.code = code


def pause_announcement(agent_id: str, status: Mapping[str, Any], reason: str | None) -> str:
    """The owner's notice of a cost pause, with the cost monitor's figures when the Thinker gave them."""
    why = status.get("pauseReason") or reason or "its token usage crossed the agent's cost limits"
    text = f"The agent {agent_id!r} is paused by its cost controls: {str(why).rstrip('.')}."
    hour, cap = status.get("currentHourTokens"), status.get("hardCapTokensPerHour")
    if isinstance(hour, int) and isinstance(cap, int):
        text += f" Tokens this hour: {hour:,} of a {cap:,} cap."
    rate, baseline = status.get("shortWindowTokensPerMinute"), status.get("baselineTokensPerMinute")
    if isinstance(rate, int | float) and isinstance(baseline, int | float):
        minutes = status.get("shortWindowMinutes", "few")
        text += f" Last {minutes} minutes: {rate:,.0f} tokens/min against a baseline of {baseline:,.0f} tokens/min."
    return text + f" It answers no messages until resumed: send /resume or POST /agents/{agent_id}/resume."


@dataclass
class AgentRuntime:
    definition: AgentDefinition
    token: str
    url: str
    config_path: Path
    tracker: RestartTracker
    parent: str | None = None
    """The parent agent's id, for a subagent."""
    state: str = "stopped"
    pid: int | None = None
    last_error: str | None = None
    paused: bool = False
    process: anyio.abc.Process | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    restarts: int = 0
    retry_at: float | None = None
    """Clock time before which a crashed Thinker is not started again."""
    up_since: float | None = None
    last_activity: float | None = None
    last_activity_at: datetime | None = None
    busy: int = 0
    """Requests in flight: a busy Thinker is never idle-killed."""
    health_failures: int = 0
    subagents_started: int = 0
    extra_env: dict[str, str] = field(default_factory=dict)
    turns: set[anyio.CancelScope] = field(default_factory=set)

    @property
    def spawned(self) -> bool:
        return self.definition.url is None

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def describe(self, now: float) -> dict[str, Any]:
        agent = self.definition
        running = self.spawned and self.process is not None
        idle_left = None
        if running and self.last_activity is not None and self.parent is None:
            idle_left = max(agent.idleTimeoutMinutes * 60 - (now - self.last_activity), 0.0)
        retry_in = max(self.retry_at - now, 0.0) if self.retry_at is not None and self.state == "crashed" else None
        return {
            "agentId": agent.agentId,
            "enabled": agent.enabled,
            "state": self.state,
            "url": self.url,
            "pid": self.pid,
            "model": agent.model,
            "paused": self.paused,
            "external": not self.spawned,
            "parent": self.parent,
            "restarts": self.restarts,
            "lastError": self.last_error,
            "lastActivity": self.last_activity_at.isoformat() if self.last_activity_at else None,
            "idleTimeoutMinutes": agent.idleTimeoutMinutes,
            "idleKillInSeconds": round(idle_left, 1) if idle_left is not None else None,
            "idleKillAt": (
                (datetime.now(UTC) + timedelta(seconds=idle_left)).isoformat() if idle_left is not None else None
            ),
            "restartInSeconds": round(retry_in, 1) if retry_in is not None else None,
        }


class AgentManager:
    def __init__(
        self,
        config: AgentsConfig,
        *,
        config_path: Path,
        hub_url: str,
        default_port: int,
        startup_timeout: float,
        environ: dict[str, str],
        home: Path,
        notifier: Notifier | None = None,
        clock: Clock = time.monotonic,
        health_interval: float = DEFAULT_HEALTH_INTERVAL_SECONDS,
        restart_policy: RestartPolicy = DEFAULT_RESTART_POLICY,
        command: Command = thinker_command,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.config_path = config_path
        self.hub_url = hub_url
        self.startup_timeout = startup_timeout
        self.environ = environ
        self.home = home
        self.notifier = notifier
        self.clock = clock
        self.health_interval = health_interval
        self.restart_policy = restart_policy
        self.command = command
        self.agents: dict[str, AgentRuntime] = {}
        self.subagents: dict[str, AgentRuntime] = {}
        default_taken = False
        for agent in config.agents:
            if agent.url is not None:
                url = agent.url
            elif agent.port:
                url = f"http://127.0.0.1:{agent.port}"
            else:
                # THINKER_PORT for the first agent without a port; the others (and port 0) get a free one.
                port = default_port if agent.port is None and not default_taken else free_port()
                default_taken = default_taken or port == default_port
                url = f"http://127.0.0.1:{port}"
            runtime = self._new_runtime(agent, url, config_path)
            runtime.state = "stopped" if agent.url is None else "unknown"
            self.agents[agent.agentId] = runtime
        self._tasks: anyio.abc.TaskGroup | None = None
        self._maintenance: anyio.CancelScope | None = None
        self._client = httpx.AsyncClient(timeout=HEALTH_TIMEOUT_SECONDS, transport=transport)

    def _new_runtime(self, agent: AgentDefinition, url: str, config_path: Path) -> AgentRuntime:
        tracker = RestartTracker(self.restart_policy)
        return AgentRuntime(agent, generate_token(), url.rstrip("/"), config_path, tracker)

    def attach(self, tasks: anyio.abc.TaskGroup) -> None:
        """Run the health checks and the idle reaper in `tasks` (the hub's task group) until `stop`."""
        self._tasks = tasks
        tasks.start_soon(self._maintain)

    # -- identity ---------------------------------------------------------------------------------------------

    def _all(self) -> list[AgentRuntime]:
        return [*self.agents.values(), *self.subagents.values()]

    def agent_for_token(self, token: str | None) -> AgentDefinition | None:
        for runtime in self._all():
            if tokens_equal(token, runtime.token):
                return runtime.definition
        return None

    def resolve(self, channel: str, chat_id: str) -> str:
        return resolve_agent(self.config.bindings, self.config.agents, channel, chat_id)

    def default_agent_id(self) -> str:
        """`annabelle` when it is configured and enabled, else the first enabled agent."""
        default = self.agents.get(DEFAULT_AGENT_ID)
        if default is not None and default.definition.enabled:
            return DEFAULT_AGENT_ID
        return resolve_agent([], self.config.agents, "", "")

    def describe(self) -> list[dict[str, Any]]:
        now = self.clock()
        return [runtime.describe(now) for runtime in self._all()]

    def runtime(self, agent_id: str) -> AgentRuntime:
        runtime = self.agents.get(agent_id)
        if runtime is None:
            known = ", ".join(sorted(self.agents))
            raise AgentError(f"No agent named {agent_id!r}; agents.json has: {known}.")
        if not runtime.definition.enabled:
            raise AgentError(f"The agent {agent_id!r} is disabled in agents.json.")
        return runtime

    # -- lifecycle --------------------------------------------------------------------------------------------

    async def ensure_running(self, agent_id: str) -> AgentRuntime:
        runtime = self.runtime(agent_id)
        await self._ensure(runtime)
        return runtime

    async def _ensure(self, runtime: AgentRuntime) -> None:
        if not runtime.spawned:
            return
        async with runtime.lock:
            process = runtime.process
            if process is not None and process.returncode is None and runtime.state == "running":
                if await self._healthy(runtime):
                    return
                await self._kill_unhealthy(runtime, "its /health stopped answering")
            elif process is not None and self._detach(runtime, process):
                self._record_crash(runtime, f"the Thinker exited with code {process.returncode}")
            self._check_backoff(runtime)
            await self._start(runtime)

    def _check_backoff(self, runtime: AgentRuntime) -> None:
        if runtime.retry_at is None:
            return
        wait = runtime.retry_at - self.clock()
        if wait > 0:
            raise AgentError(
                f"The agent {runtime.definition.agentId!r} crashed ({runtime.last_error}); the hub starts it again "
                f"in {math.ceil(wait)} s (restart backoff after {runtime.tracker.consecutive} crash(es)).",
                code=ErrorCode.MCP_UNAVAILABLE,
            )

    async def _start(self, runtime: AgentRuntime) -> None:
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
        if self._tasks is not None:
            self._tasks.start_soon(self._forward_output, runtime, process)
        with anyio.move_on_after(self.startup_timeout):
            while process.returncode is None:
                if await self._healthy(runtime):
                    self._started(runtime)
                    log.info("thinker ready", extra={"agent": agent.agentId, "s": round(time.monotonic() - started, 2)})
                    return
                await anyio.sleep(0.1)
        if process.returncode is None:
            reason = f"the Thinker did not become healthy within {self.startup_timeout:g} s"
        else:
            reason = f"the Thinker exited with code {process.returncode} while starting (see the log)"
        if self._detach(runtime, process):
            await self._terminate(process)
            self._record_crash(runtime, reason)
        raise AgentError(f"Agent {agent.agentId!r} could not start: {runtime.last_error}.", code=ErrorCode.TOOL_ERROR)

    def _started(self, runtime: AgentRuntime) -> None:
        runtime.state, runtime.last_error, runtime.health_failures = "running", None, 0
        runtime.up_since = self.clock()
        self._touch(runtime)

    def _touch(self, runtime: AgentRuntime) -> None:
        runtime.last_activity = self.clock()
        runtime.last_activity_at = datetime.now(UTC)

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
        log.warning("thinker crashed", extra={"agent": runtime.definition.agentId, "reason": reason, "retry_s": delay})

    async def _kill_unhealthy(self, runtime: AgentRuntime, reason: str) -> None:
        process = runtime.process
        if process is not None and self._detach(runtime, process):
            await self._terminate(process)
            self._record_crash(runtime, reason)
            await self._stop_subagents(runtime.definition.agentId, f"its parent agent crashed ({reason})")

    async def _forward_output(self, runtime: AgentRuntime, process: anyio.abc.Process) -> None:
        child_log = logging.getLogger(f"child.thinker.{runtime.definition.agentId}")
        streams = [stream for stream in (process.stdout, process.stderr) if stream is not None]

        async def pump(stream: anyio.abc.ByteReceiveStream) -> None:
            try:
                async for chunk in TextReceiveStream(stream, errors="replace"):
                    for line in chunk.splitlines():
                        if line.strip():
                            child_log.warning(line.rstrip())
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                return

        async with anyio.create_task_group() as pumps:
            for stream in streams:
                pumps.start_soon(pump, stream)
        await process.wait()
        log.info("thinker exited", extra={"agent": runtime.definition.agentId, "code": process.returncode})
        # Only an exit nobody asked for is still attached here: stop, idle and health kills detach first.
        if runtime.state == "running" and self._detach(runtime, process):
            self._record_crash(runtime, f"the Thinker exited with code {process.returncode}")
            await self._stop_subagents(runtime.definition.agentId, "its parent agent crashed")

    async def _healthy(self, runtime: AgentRuntime) -> bool:
        try:
            response = await self._client.get(f"{runtime.url}/health", timeout=HEALTH_TIMEOUT_SECONDS)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    @staticmethod
    async def _terminate(process: anyio.abc.Process) -> None:
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

    async def _stop(self, runtime: AgentRuntime, reason: str) -> None:
        """Stop a Thinker on purpose (idle, shutdown): not a crash, and its subagents go with it."""
        process = runtime.process
        if process is not None and self._detach(runtime, process):
            await self._terminate(process)
            log.info("thinker stopped", extra={"agent": runtime.definition.agentId, "reason": reason})
        runtime.state = "stopped"
        await self._stop_subagents(runtime.definition.agentId, f"its parent agent was stopped ({reason})")

    async def check_health(self) -> None:
        """One round of health checks: external agents are probed, hung Thinkers killed, crashed ones restarted."""
        for runtime in list(self.agents.values()):
            if not runtime.spawned:
                runtime.state = "running" if await self._healthy(runtime) else "unreachable"
            elif runtime.lock.locked():
                continue
            elif runtime.state == "running" and runtime.process is not None:
                await self._probe(runtime)
            elif runtime.state == "crashed" and (runtime.retry_at or 0) <= self.clock():
                try:
                    await self._ensure(runtime)
                except AgentError as exc:
                    log.warning(
                        "thinker restart failed", extra={"agent": runtime.definition.agentId, "error": str(exc)}
                    )

    async def _probe(self, runtime: AgentRuntime) -> None:
        if await self._healthy(runtime):
            runtime.health_failures = 0
            return
        runtime.health_failures += 1
        if runtime.health_failures >= HEALTH_FAILURES_BEFORE_KILL:
            async with runtime.lock:
                failures = runtime.health_failures
                await self._kill_unhealthy(runtime, f"its /health failed {failures} checks in a row")

    async def reap_idle(self, now: float | None = None) -> list[str]:
        """Stop every spawned Thinker idle for its agent's `idleTimeoutMinutes`; returns their agent ids."""
        now = self.clock() if now is None else now
        reaped: list[str] = []
        for runtime in list(self.agents.values()):
            if runtime.process is None or runtime.busy or runtime.lock.locked() or runtime.last_activity is None:
                continue
            if now - runtime.last_activity >= runtime.definition.idleTimeoutMinutes * 60:
                async with runtime.lock:
                    await self._stop(runtime, f"idle for {runtime.definition.idleTimeoutMinutes} minutes")
                reaped.append(runtime.definition.agentId)
        return reaped

    async def _maintain(self) -> None:
        with anyio.CancelScope() as scope:
            self._maintenance = scope
            while True:
                await anyio.sleep(self.health_interval)
                try:
                    await self.check_health()
                    await self.reap_idle()
                except Exception:  # the loop must outlive one bad round; the log has what went wrong
                    log.exception("agent maintenance round failed")

    async def stop(self) -> None:
        if self._maintenance is not None:
            self._maintenance.cancel()
        for runtime in list(self.agents.values()):
            await self._stop(runtime, "the hub is stopping")
        for sub in list(self.subagents.values()):
            await self._discard_subagent(sub)
        await self._client.aclose()

    # -- requests ---------------------------------------------------------------------------------------------

    async def _post(
        self, runtime: AgentRuntime, path: str, body: dict[str, Any], *, wait: float = THINKER_CALL_TIMEOUT_SECONDS
    ) -> dict[str, Any]:
        self._touch(runtime)
        runtime.busy += 1
        try:
            response = await self._send(runtime, path, body, wait)
        finally:
            runtime.busy -= 1
            self._touch(runtime)
        return self._answer(runtime, response)

    async def _send(self, runtime: AgentRuntime, path: str, body: dict[str, Any], wait: float) -> httpx.Response:
        agent_id = runtime.definition.agentId
        # A cancel scope rather than an httpx read timeout: its deadline can be moved while subagents work.
        with anyio.CancelScope(deadline=anyio.current_time() + wait) as scope:
            runtime.turns.add(scope)
            try:
                return await self._client.post(
                    f"{runtime.url}{path}",
                    json=body,
                    # The turn's trace goes with it: the Thinker's events and its tool calls join this trace.
                    headers={TOKEN_HEADER: runtime.token, **trace_headers()},
                    timeout=httpx.Timeout(CONNECT_TIMEOUT_SECONDS, read=None),
                )
            except httpx.TimeoutException:
                raise AgentError(f"Agent {agent_id!r} did not accept the request in time.") from None
            except httpx.HTTPError as exc:
                if not runtime.spawned:
                    runtime.state = "unreachable"
                raise AgentError(
                    f"Agent {agent_id!r} is unreachable ({type(exc).__name__}); retry.", code=ErrorCode.MCP_UNAVAILABLE
                ) from None
            finally:
                runtime.turns.discard(scope)
        raise AgentError(f"Agent {agent_id!r} did not answer within {math.ceil(wait)} s.", code=ErrorCode.TIMEOUT)

    @staticmethod
    def _answer(runtime: AgentRuntime, response: httpx.Response) -> dict[str, Any]:
        agent_id = runtime.definition.agentId
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise AgentError(f"Agent {agent_id!r} answered HTTP {response.status_code} without JSON.")
        if response.status_code >= 400 and "success" not in answer:
            detail = answer.get("error") or answer.get("detail") or response.text
            raise AgentError(f"Agent {agent_id!r} refused the request: {detail}")
        return answer

    def _extend_turns(self, runtime: AgentRuntime, seconds: float) -> None:
        """Let the hub wait `seconds` more for the turns in flight (a subagent of theirs is working)."""
        deadline = anyio.current_time() + seconds
        for scope in runtime.turns:
            scope.deadline = max(scope.deadline, deadline)

    @staticmethod
    def _paused_refusal(agent_id: str) -> dict[str, Any]:
        return {
            "success": False,
            "paused": True,
            "error": (
                f"The agent {agent_id!r} is paused by its cost controls and gets no messages until resumed: "
                f"POST /agents/{agent_id}/resume or /resume."
            ),
        }

    async def process_message(
        self, agent_id: str, *, text: str, chat_id: str, channel: str, tainted: bool = False, message_id: str = ""
    ) -> dict[str, Any]:
        runtime = self.runtime(agent_id)
        if runtime.paused:
            return self._paused_refusal(agent_id)
        await self._ensure(runtime)
        message = {
            "id": message_id or uuid.uuid4().hex,
            "chatId": chat_id,
            "senderId": f"{channel}-user",
            "text": text,
            "date": datetime.now(UTC).isoformat(),
            "channel": channel,
            "agentId": agent_id,
            "tainted": tainted,
        }
        answer = await self._post(runtime, "/process-message", message)
        self._note_pause(runtime, answer)
        return answer

    async def execute_skill(self, agent_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Run a skill on an agent, traced under the caller's trace (an HTTP X-Trace-Id) or a new one."""
        with traced(current_trace()):
            skill = body.get("skillName") or body.get("skillId")
            trace_event("skill_started", agent=agent_id, skill=str(skill) if skill is not None else None)
            return await self._execute_skill(agent_id, body)

    async def _execute_skill(self, agent_id: str, body: dict[str, Any]) -> dict[str, Any]:
        runtime = self.runtime(agent_id)
        if runtime.paused:
            return self._paused_refusal(agent_id)
        await self._ensure(runtime)
        answer = await self._post(runtime, "/execute-skill", body)
        self._note_pause(runtime, answer)
        return answer

    async def clear_session(self, agent_id: str, chat_id: str, *, sessions_root: Path | None = None) -> dict[str, Any]:
        """Forget a chat's history through the agent's Thinker (started if needed: it owns the session files and
        their cache). `sessions_root` is accepted for callers that know it; the Thinker knows its own folder."""
        del sessions_root
        runtime = self.runtime(agent_id)
        await self._ensure(runtime)
        return await self._post(runtime, "/clear-session", {"chatId": chat_id})

    async def resume(self, agent_id: str, reset_window: bool) -> dict[str, Any]:
        runtime = self.runtime(agent_id)
        await self._ensure(runtime)
        answer = await self._post(runtime, "/cost-resume", {"resetWindow": reset_window})
        if answer.get("success"):
            runtime.paused = False
        return answer

    # -- cost pauses ------------------------------------------------------------------------------------------

    async def resume_paused(self, reset_window: bool = False) -> list[str]:
        """Resume every agent paused by its cost controls (what `/resume` does); returns the ids resumed."""
        resumed: list[str] = []
        for agent_id, runtime in self.agents.items():
            if runtime.paused and (await self.resume(agent_id, reset_window)).get("success"):
                resumed.append(agent_id)
        return resumed

    def _note_pause(self, runtime: AgentRuntime, answer: Mapping[str, Any]) -> None:
        """The first answer saying `paused` pauses the agent here too and is announced, once per pause."""
        if not answer.get("paused") or runtime.paused:
            return
        runtime.paused = True
        reason = answer.get("error") if isinstance(answer.get("error"), str) else None
        self._background(lambda: self._announce_pause(runtime, reason))

    def _background(self, work: Callable[[], Awaitable[None]]) -> None:
        if self._tasks is not None:
            self._tasks.start_soon(work)
        else:  # not attached to a task group (some tests): nothing runs after the request
            log.warning("agent manager not attached; background work skipped")

    async def _announce_pause(self, runtime: AgentRuntime, reason: str | None) -> None:
        agent = runtime.definition
        status = await self.cost_status(runtime)
        text = pause_announcement(agent.agentId, status, reason)
        try:
            if self.notifier is None:
                log.warning("cost pause (no notifier)", extra={"agent": agent.agentId, "text": text})
                return
            await self.notifier.notify(text, chat_id=agent.costControls.notifyChatId, kind="cost_pause")
        except Exception:  # a failed notice must not take the hub's task group down with it
            log.exception("cost pause announcement failed", extra={"agent": agent.agentId})

    async def cost_status(self, runtime: AgentRuntime) -> dict[str, Any]:
        """The Thinker's `/cost-status`, or {} when it cannot be had (the pause is announced without figures)."""
        try:
            response = await self._client.get(
                f"{runtime.url}/cost-status", headers={TOKEN_HEADER: runtime.token}, timeout=CONNECT_TIMEOUT_SECONDS
            )
            status = response.json()
        except (httpx.HTTPError, ValueError):
            return {}
        return status if isinstance(status, dict) else {}

    # -- subagents --------------------------------------------------------------------------------------------

    def subagents_of(self, parent_id: str) -> list[AgentRuntime]:
        return [sub for sub in self.subagents.values() if sub.parent == parent_id]

    async def run_subagent(self, parent_id: str, request: SubagentRequest, tools: Sequence[str]) -> dict[str, Any]:
        """Run `request.task` in a new temporary Thinker limited to `tools`; it is removed whatever happens.

        The task goes to the subagent's `/execute-skill` (a one-off run, no chat history): with exact tool names
        in `allowedTools` it is offered exactly those (`requiredTools`), else it selects among its tools.
        """
        if parent_id in self.subagents:
            raise AgentError("A subagent cannot start subagents of its own.", code=ErrorCode.NOT_ALLOWED)
        parent = self.runtime(parent_id)
        active = self.subagents_of(parent_id)
        if len(active) >= MAX_SUBAGENTS_PER_PARENT:
            names = ", ".join(sub.definition.agentId for sub in active)
            raise AgentError(
                f"The agent {parent_id!r} already runs {len(active)} subagents ({names}), the most allowed at once; "
                "wait for one to finish.",
                code=ErrorCode.NOT_ALLOWED,
            )
        parent.subagents_started += 1
        port = free_port()
        definition = subagent_definition(
            parent.definition, subagent_id(parent_id, parent.subagents_started), port, request, tools
        )
        runtime = self._new_runtime(definition, f"http://127.0.0.1:{port}", self._write_subagent_config(definition))
        runtime.parent = parent_id
        # Facts belong to real conversations, and a one-task run never grows long enough to compact.
        runtime.extra_env = {"THINKER_FACT_EXTRACTION_ENABLED": "false", "THINKER_COMPACTION_ENABLED": "false"}
        self.subagents[definition.agentId] = runtime
        seconds = request.timeout_minutes * 60
        self._extend_turns(parent, self.startup_timeout + seconds + THINKER_CALL_TIMEOUT_SECONDS)
        body: dict[str, Any] = {
            "instructions": request.task,
            "maxSteps": definition.maxSteps,
            "skillName": f"subagent of {parent_id}",
        }
        exact = required_tools(request, tools)
        if exact:
            body["requiredTools"] = exact
        try:
            async with runtime.lock:
                await self._start(runtime)
            answer = await self._post(runtime, "/execute-skill", body, wait=seconds)
        except AgentError as exc:
            if runtime.last_error and runtime.state == "stopped":
                raise AgentError(f"The subagent {definition.agentId} {runtime.last_error}.") from None
            if exc.code is ErrorCode.TIMEOUT:
                raise AgentError(
                    f"The subagent {definition.agentId} did not finish within {request.timeout_minutes} minute(s) "
                    "and was stopped.",
                    code=ErrorCode.TIMEOUT,
                ) from None
            raise
        finally:
            await self._discard_subagent(runtime)
        return {"agentId": definition.agentId, **answer}

    def _write_subagent_config(self, definition: AgentDefinition) -> Path:
        """The subagent is in no agents.json: its Thinker reads its definition from a file of its own."""
        folder = self.home / "agents" / "subagents"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{definition.agentId}.json"
        path.write_text(AgentsConfig(agents=[definition]).model_dump_json(exclude_none=True, indent=2))
        return path

    async def _stop_subagents(self, parent_id: str, reason: str) -> None:
        for sub in self.subagents_of(parent_id):
            # Said before the kill: the task waiting on this subagent wakes up as it dies and reads why.
            sub.state, sub.last_error = "stopped", f"was stopped because {reason}"
            process = sub.process
            if process is not None and self._detach(sub, process):
                await self._terminate(process)
            log.info("subagent stopped", extra={"agent": sub.definition.agentId, "reason": reason})

    async def _discard_subagent(self, runtime: AgentRuntime) -> None:
        process = runtime.process
        if process is not None and self._detach(runtime, process):
            await self._terminate(process)
        agent_id = runtime.definition.agentId
        self.subagents.pop(agent_id, None)
        runtime.config_path.unlink(missing_ok=True)
        # Its chat sessions and (should it have made one) its persona folder die with it.
        for folder in (self.home / "sessions" / agent_id, self.home / "agents" / agent_id):
            shutil.rmtree(folder, ignore_errors=True)
        log.info("subagent removed", extra={"agent": agent_id, "parent": runtime.parent})


def child_environment() -> dict[str, str]:
    # Like the MCP children: the Thinker's own log file has everything, its stderr (copied here) warnings only.
    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", STDERR_LEVEL_VARIABLE: "WARNING"}
