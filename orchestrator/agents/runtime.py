"""One agent as the hub knows it (`AgentRuntime`), and the error every part of agent handling raises.

An agent's Thinker is spawned by the hub (`url` is on loopback at the agent's port) or runs elsewhere (the
agent's `url`): the hub only calls and health-checks those. A subagent is an `AgentRuntime` with a `parent`.
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from orchestrator.backoff import RestartTracker
from shared.agents import AgentDefinition
from shared.envelope import ErrorCode
from shared.logs import STDERR_LEVEL_VARIABLE


class AgentError(Exception):
    """An agent cannot take the request; the message says why and what to do, `code` classifies it for tools."""

    def __init__(self, message: str, *, code: ErrorCode = ErrorCode.TOOL_ERROR) -> None:
        super().__init__(message)
        self.code = code


def thinker_command(agent: AgentDefinition, port: int) -> list[str]:
    return [sys.executable, "-m", "thinker", "--agent-id", agent.agentId, "--port", str(port)]


def child_environment() -> dict[str, str]:
    """What a spawned Thinker inherits: like the MCP children, its own log file has everything, its stderr
    (copied into the hub's log) warnings only."""
    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", STDERR_LEVEL_VARIABLE: "WARNING"}


def free_port() -> int:
    """A port the OS says is free now (another process could still take it before the Thinker binds it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
    def agent_id(self) -> str:
        return self.definition.agentId

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
