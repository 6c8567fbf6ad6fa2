"""The agent manager: one Thinker per agent, started on first use with a token minted for it.

A Thinker is `python -m thinker --agent-id ID` on the agent's port (or `THINKER_PORT`), launched with
`AGENTS_CONFIG`, `ORCHESTRATOR_URL` and `ANNABELLE_AGENT_TOKEN`. The token identifies the agent to the hub,
which then limits it to its allowed tools. An agent with a `url` runs elsewhere and is only called.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import httpx
from anyio.streams.text import TextReceiveStream

from orchestrator.policy import resolve_agent
from shared.agents import AgentDefinition, AgentsConfig
from shared.auth import TOKEN_HEADER, generate_token, tokens_equal
from shared.logs import STDERR_LEVEL_VARIABLE

log = logging.getLogger(__name__)

# The Thinker aborts its own LLM work well before this; the hub only needs a bound.
THINKER_CALL_TIMEOUT_SECONDS = 130.0


class AgentError(Exception):
    """An agent cannot take the request; the message says why and what to do."""


@dataclass
class AgentRuntime:
    definition: AgentDefinition
    token: str
    url: str
    state: str = "stopped"
    pid: int | None = None
    last_error: str | None = None
    paused: bool = False
    process: anyio.abc.Process | None = None
    lock: anyio.Lock = field(default_factory=anyio.Lock)

    def describe(self) -> dict[str, Any]:
        agent = self.definition
        return {
            "agentId": agent.agentId,
            "enabled": agent.enabled,
            "state": self.state,
            "url": self.url,
            "pid": self.pid,
            "model": agent.model,
            "paused": self.paused,
            "external": agent.url is not None,
            "lastError": self.last_error,
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
    ) -> None:
        self.config = config
        self.config_path = config_path
        self.hub_url = hub_url
        self.startup_timeout = startup_timeout
        self.environ = environ
        self.agents: dict[str, AgentRuntime] = {}
        for agent in config.agents:
            url = agent.url or f"http://127.0.0.1:{agent.port if agent.port is not None else default_port}"
            self.agents[agent.agentId] = AgentRuntime(agent, generate_token(), url.rstrip("/"))
        self._tasks: anyio.abc.TaskGroup | None = None
        self._client = httpx.AsyncClient(timeout=THINKER_CALL_TIMEOUT_SECONDS)

    def attach(self, tasks: anyio.abc.TaskGroup) -> None:
        self._tasks = tasks

    # -- identity ---------------------------------------------------------------------------------------------

    def agent_for_token(self, token: str | None) -> AgentDefinition | None:
        for runtime in self.agents.values():
            if tokens_equal(token, runtime.token):
                return runtime.definition
        return None

    def resolve(self, channel: str, chat_id: str) -> str:
        return resolve_agent(self.config.bindings, self.config.agents, channel, chat_id)

    def describe(self) -> list[dict[str, Any]]:
        return [runtime.describe() for runtime in self.agents.values()]

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
        async with runtime.lock:
            if runtime.definition.url is not None or (runtime.state == "running" and await self._healthy(runtime)):
                return runtime
            await self._start(runtime)
        return runtime

    async def _start(self, runtime: AgentRuntime) -> None:
        agent = runtime.definition
        port = runtime.url.rsplit(":", 1)[1]
        env = {
            **self.environ,
            "AGENTS_CONFIG": str(self.config_path),
            "ORCHESTRATOR_URL": self.hub_url,
            "ANNABELLE_AGENT_TOKEN": runtime.token,
            "THINKER_PORT": port,
            "PYTHONUNBUFFERED": "1",
        }
        runtime.state = "starting"
        log.info("starting thinker", extra={"agent": agent.agentId, "url": runtime.url})
        started = time.monotonic()
        process = await anyio.open_process(
            [sys.executable, "-m", "thinker", "--agent-id", agent.agentId], env=env, start_new_session=True
        )
        runtime.process, runtime.pid = process, process.pid
        if self._tasks is not None:
            self._tasks.start_soon(self._forward_output, runtime, process)
        with anyio.move_on_after(self.startup_timeout):
            while process.returncode is None:
                if await self._healthy(runtime):
                    runtime.state, runtime.last_error = "running", None
                    log.info("thinker ready", extra={"agent": agent.agentId, "s": round(time.monotonic() - started, 2)})
                    return
                await anyio.sleep(0.1)
        if process.returncode is None:
            await self._terminate(process)
            runtime.last_error = f"the Thinker did not become healthy within {self.startup_timeout:g} s"
        else:
            runtime.last_error = f"the Thinker exited with code {process.returncode} while starting (see the log)"
        runtime.state, runtime.pid = "failed", None
        raise AgentError(f"Agent {agent.agentId!r} could not start: {runtime.last_error}.")

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
        if runtime.process is process:
            runtime.state = "stopped" if runtime.state != "failed" else "failed"
            runtime.pid = None
            log.info("thinker exited", extra={"agent": runtime.definition.agentId, "code": process.returncode})

    async def _healthy(self, runtime: AgentRuntime) -> bool:
        try:
            response = await self._client.get(f"{runtime.url}/health", timeout=2.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    @staticmethod
    async def _terminate(process: anyio.abc.Process) -> None:
        if process.returncode is not None:
            return
        process.terminate()
        with anyio.move_on_after(5):
            await process.wait()
            return
        process.kill()

    async def stop(self) -> None:
        for runtime in self.agents.values():
            if runtime.process is not None:
                await self._terminate(runtime.process)
                runtime.state, runtime.pid = "stopped", None
        await self._client.aclose()

    # -- requests ---------------------------------------------------------------------------------------------

    async def _post(self, runtime: AgentRuntime, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = await self._client.post(f"{runtime.url}{path}", json=body, headers={TOKEN_HEADER: runtime.token})
        except httpx.TimeoutException:
            raise AgentError(f"Agent {runtime.definition.agentId!r} did not answer in time.") from None
        except httpx.HTTPError as exc:
            runtime.state = "stopped"
            raise AgentError(f"Agent {runtime.definition.agentId!r} is unreachable ({exc}); retry.") from None
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise AgentError(f"Agent {runtime.definition.agentId!r} answered HTTP {response.status_code} without JSON.")
        if response.status_code >= 400 and "success" not in answer:
            detail = answer.get("error") or answer.get("detail") or response.text
            raise AgentError(f"Agent {runtime.definition.agentId!r} refused the request: {detail}")
        runtime.paused = bool(answer.get("paused"))
        return answer

    async def process_message(
        self, agent_id: str, *, text: str, chat_id: str, channel: str, tainted: bool = False, message_id: str = ""
    ) -> dict[str, Any]:
        runtime = await self.ensure_running(agent_id)
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
        return await self._post(runtime, "/process-message", message)

    async def execute_skill(self, agent_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return await self._post(await self.ensure_running(agent_id), "/execute-skill", body)

    async def resume(self, agent_id: str, reset_window: bool) -> dict[str, Any]:
        return await self._post(await self.ensure_running(agent_id), "/cost-resume", {"resetWindow": reset_window})


def child_environment() -> dict[str, str]:
    # Like the MCP children: the Thinker's own log file has everything, its stderr (copied here) warnings only.
    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", STDERR_LEVEL_VARIABLE: "WARNING"}
