"""HTTP to Thinkers: the contract's requests out, its answers in (`shared.contracts.thinker_api`).

One `httpx.AsyncClient` for every agent. A turn's wait is a cancel scope, not an httpx read timeout, so the hub
can move its deadline while a subagent of that turn works (`extend_turns`). Every failure becomes an
`AgentError` with a sentence; an answer that does not fit the contract is one too.
"""

from __future__ import annotations

import math
from typing import TypeVar

import anyio
import httpx
from pydantic import ValidationError

from orchestrator.agents.runtime import AgentError, AgentRuntime
from shared.auth import TOKEN_HEADER
from shared.contracts.thinker_api import Answer, CostStatus, Request
from shared.envelope import ErrorCode
from shared.traces import trace_headers

SHORT_CALL_TIMEOUT_SECONDS = 30.0
"""How long the hub waits for the Thinker's quick requests (clear a session, resume). A turn waits for its agent's
`turn_wait` instead (`shared.agents`): the Thinker ends every turn within its agent's `turnTimeoutSeconds`, so the
hub never gives up on a turn that is still working; a turn that spawned subagents gets their time limits on top
(see `extend_turns`)."""
CONNECT_TIMEOUT_SECONDS = 10.0
HEALTH_TIMEOUT_SECONDS = 5.0

AnswerT = TypeVar("AnswerT", bound=Answer)


class ThinkerClient:
    def __init__(self, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._transport = transport
        self._made: httpx.AsyncClient | None = None

    @property
    def _client(self) -> httpx.AsyncClient:
        # Made on first use: its transport (httpcore's import and a TLS context, about 0.05 s of CPU) is then not
        # on the hub's way to ready, and a hub whose agents never start needs none.
        if self._made is None:
            self._made = httpx.AsyncClient(timeout=HEALTH_TIMEOUT_SECONDS, transport=self._transport)
        return self._made

    async def aclose(self) -> None:
        if self._made is not None:
            await self._made.aclose()

    async def healthy(self, runtime: AgentRuntime) -> bool:
        try:
            response = await self._client.get(f"{runtime.url}/health", timeout=HEALTH_TIMEOUT_SECONDS)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def post(
        self,
        runtime: AgentRuntime,
        path: str,
        body: Request,
        answer: type[AnswerT],
        *,
        wait: float = SHORT_CALL_TIMEOUT_SECONDS,
    ) -> AnswerT:
        response = await self._send(runtime, path, body, wait)
        return self._read(runtime, response, answer)

    async def cost_status(self, runtime: AgentRuntime) -> CostStatus | None:
        """The Thinker's `/cost-status`, or None when it cannot be had."""
        try:
            response = await self._client.get(
                f"{runtime.url}/cost-status", headers={TOKEN_HEADER: runtime.token}, timeout=CONNECT_TIMEOUT_SECONDS
            )
            return CostStatus.model_validate_json(response.content)
        except (httpx.HTTPError, ValidationError):
            return None

    @staticmethod
    def extend_turns(runtime: AgentRuntime, seconds: float) -> None:
        """Let the hub wait `seconds` more for the turns in flight (a subagent of theirs is working)."""
        deadline = anyio.current_time() + seconds
        for scope in runtime.turns:
            scope.deadline = max(scope.deadline, deadline)

    async def _send(self, runtime: AgentRuntime, path: str, body: Request, wait: float) -> httpx.Response:
        agent_id = runtime.agent_id
        with anyio.CancelScope(deadline=anyio.current_time() + wait) as scope:
            runtime.turns.add(scope)
            try:
                return await self._client.post(
                    f"{runtime.url}{path}",
                    content=body.model_dump_json(exclude_none=True),
                    # The turn's trace goes with it: the Thinker's events and its tool calls join this trace.
                    headers={TOKEN_HEADER: runtime.token, "Content-Type": "application/json", **trace_headers()},
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
    def _read(runtime: AgentRuntime, response: httpx.Response, answer: type[AnswerT]) -> AnswerT:
        agent_id = runtime.agent_id
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise AgentError(f"Agent {agent_id!r} answered HTTP {response.status_code} without JSON.")
        if response.status_code >= 400 and "success" not in body:
            detail = body.get("error") or body.get("detail") or response.text
            raise AgentError(f"Agent {agent_id!r} refused the request: {detail}")
        try:
            return answer.model_validate(body)
        except ValidationError:
            raise AgentError(
                f"Agent {agent_id!r} answered HTTP {response.status_code} in a shape this hub does not know; "
                "are the hub and the Thinker the same version?"
            ) from None
