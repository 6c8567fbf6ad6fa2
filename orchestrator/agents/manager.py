"""The agent manager: the hub's one door to its agents. Who answers which chat, and each request to a Thinker.

It holds an `AgentRuntime` per agent of agents.json (and per running subagent) and delegates: processes to the
`Supervisor`, HTTP to the `ThinkerClient`, cost-pause notices to `notices`. A cost pause (an answer with
`paused`) is announced once with the figures of the Thinker's `/cost-status`; the agent then gets no requests
until resumed. A budget stop the Thinker marks `notify` is announced too (the Thinker's ledger makes that once
per limit and window). Subagents (`run_subagent`) are temporary Thinkers running one task for a parent agent, stopped at
their timeout or with their parent.
"""

from __future__ import annotations

import logging
import shutil
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import anyio
import anyio.abc
import httpx

from orchestrator.agents.client import SHORT_CALL_TIMEOUT_SECONDS, ThinkerClient
from orchestrator.agents.notices import Notify, announce_budget, announce_pause
from orchestrator.agents.runtime import AgentError, AgentRuntime, free_port, thinker_command
from orchestrator.agents.subagents import (
    MAX_SUBAGENTS_PER_PARENT,
    SubagentRequest,
    required_tools,
    subagent_definition,
    subagent_id,
)
from orchestrator.agents.supervisor import (
    DEFAULT_HEALTH_INTERVAL_SECONDS,
    DEFAULT_RESTART_POLICY,
    Clock,
    Command,
    Supervisor,
)
from orchestrator.backoff import RestartPolicy, RestartTracker
from orchestrator.policy import resolve_agent
from orchestrator.turns import Turn
from shared.agents import (
    DEFAULT_AGENT_ID,
    TURN_GRACE_SECONDS,
    AgentDefinition,
    AgentsConfig,
    fixed_thinker_ports,
    turn_wait,
)
from shared.auth import generate_token, tokens_equal
from shared.contracts.thinker_api import (
    Acknowledgement,
    Answer,
    ClearSessionRequest,
    CostResumeRequest,
    CostStatus,
    ExecuteSkillRequest,
    ProcessMessageRequest,
    SkillAnswer,
    TurnAnswer,
    paused_reason,
)
from shared.envelope import ErrorCode
from shared.traces import current_trace, trace_event, traced

log = logging.getLogger(__name__)

AnswerT = TypeVar("AnswerT", bound=Answer)
TurnT = TypeVar("TurnT", bound=TurnAnswer)


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
        notifier: Notify | None = None,
        clock: Clock = time.monotonic,
        health_interval: float = DEFAULT_HEALTH_INTERVAL_SECONDS,
        restart_policy: RestartPolicy = DEFAULT_RESTART_POLICY,
        command: Command = thinker_command,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.home = home
        self.notifier = notifier
        self.clock = clock
        self.health_interval = health_interval
        self.restart_policy = restart_policy
        self.client = ThinkerClient(transport)
        self.supervisor = Supervisor(
            self.client,
            hub_url=hub_url,
            home=home,
            environ=environ,
            startup_timeout=startup_timeout,
            command=command,
            clock=clock,
            restart_policy=restart_policy,
            on_stopped=self._stop_subagents,
        )
        self.agents: dict[str, AgentRuntime] = {}
        self.subagents: dict[str, AgentRuntime] = {}
        fixed = fixed_thinker_ports(config, default_port)
        for agent in config.agents:
            port = fixed[agent.agentId][0] if agent.agentId in fixed else free_port()
            url = agent.url if agent.url is not None else f"http://127.0.0.1:{port}"
            runtime = self._new_runtime(agent, url, config_path)
            runtime.state = "stopped" if agent.url is None else "unknown"
            self.agents[agent.agentId] = runtime
        self._tasks: anyio.abc.TaskGroup | None = None
        self._maintenance: anyio.CancelScope | None = None

    def _new_runtime(self, agent: AgentDefinition, url: str, config_path: Path) -> AgentRuntime:
        tracker = RestartTracker(self.restart_policy)
        return AgentRuntime(agent, generate_token(), url.rstrip("/"), config_path, tracker)

    def attach(self, tasks: anyio.abc.TaskGroup) -> None:
        """Run the health checks and the idle reaper in `tasks` (the hub's task group) until `stop`."""
        self._tasks = self.supervisor.tasks = tasks
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

    def describe(self) -> list[dict[str, object]]:
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

    async def ensure_running(self, agent_id: str) -> AgentRuntime:
        runtime = self.runtime(agent_id)
        await self.supervisor.ensure(runtime)
        return runtime

    async def warm_start(self) -> None:
        """Start the default agent's Thinker before anyone asks (it then warms itself: litellm, the tool index),
        so the first message does not wait for it. A warm start is an optimisation: a failure is logged, and the
        first message starts the Thinker again and says what is wrong."""
        try:
            agent_id = self.default_agent_id()
            await self.ensure_running(agent_id)
        except Exception as exc:
            log.warning("thinker warm start failed; the first message will start it", extra={"error": str(exc)})
            return
        log.info("thinker warm start", extra={"agent": agent_id})

    # -- requests ---------------------------------------------------------------------------------------------

    async def process_message(
        self,
        agent_id: str,
        *,
        text: str,
        chat_id: str,
        channel: str,
        tainted: bool = False,
        message_id: str = "",
        owner: bool = False,
        turn_id: str | None = None,
    ) -> TurnAnswer:
        runtime = self.runtime(agent_id)
        if runtime.paused:
            return TurnAnswer.paused_refusal(paused_reason(agent_id))
        await self.supervisor.ensure(runtime)
        request = ProcessMessageRequest(
            id=message_id or uuid.uuid4().hex,
            chatId=chat_id,
            senderId=f"{channel}-user",
            text=text,
            date=datetime.now(UTC).isoformat(),
            channel=channel,
            agentId=agent_id,
            tainted=tainted,
            owner=owner,
            turnId=turn_id,
        )
        return await self._turn(runtime, "/process-message", request, TurnAnswer)

    async def execute_skill(self, agent_id: str, request: ExecuteSkillRequest) -> SkillAnswer:
        """Run a skill on an agent, traced under the caller's trace (an HTTP X-Trace-Id) or a new one."""
        with traced(current_trace()):
            skill = request.skillName or request.skillId
            trace_event("skill_started", agent=agent_id, skill=str(skill) if skill is not None else None)
            runtime = self.runtime(agent_id)
            if runtime.paused:
                return SkillAnswer.paused_refusal(paused_reason(agent_id))
            await self.supervisor.ensure(runtime)
            return await self._turn(runtime, "/execute-skill", request, SkillAnswer)

    async def clear_session(self, agent_id: str, chat_id: str) -> Acknowledgement:
        """Forget a chat's history through the agent's Thinker (started if needed: it owns the session files)."""
        runtime = self.runtime(agent_id)
        await self.supervisor.ensure(runtime)
        return await self._request(runtime, "/clear-session", ClearSessionRequest(chatId=chat_id), Acknowledgement)

    async def resume(self, agent_id: str, reset_window: bool) -> Acknowledgement:
        runtime = self.runtime(agent_id)
        await self.supervisor.ensure(runtime)
        answer = await self._request(
            runtime, "/cost-resume", CostResumeRequest(resetWindow=reset_window), Acknowledgement
        )
        if answer.success:
            runtime.paused = False
        return answer

    async def resume_paused(self, reset_window: bool = False) -> list[str]:
        """Resume every agent paused by its cost controls (what `/resume` does); returns the ids resumed."""
        resumed: list[str] = []
        for agent_id, runtime in self.agents.items():
            if runtime.paused and (await self.resume(agent_id, reset_window)).success:
                resumed.append(agent_id)
        return resumed

    def keep_waiting(self, agent_id: str, seconds: float) -> None:
        """A call of `agent_id`'s turn waits (for the owner's approval): wait `seconds` more for that turn, and
        for its parent's, when it is a subagent."""
        runtime = self.agents.get(agent_id) or self.subagents.get(agent_id)
        while runtime is not None:
            self.client.extend_turns(runtime, seconds + turn_wait(runtime.definition))
            runtime = self.agents.get(runtime.parent) if runtime.parent is not None else None

    async def cost_status(self, runtime: AgentRuntime) -> CostStatus | None:
        return await self.client.cost_status(runtime)

    async def _turn(
        self,
        runtime: AgentRuntime,
        path: str,
        body: ExecuteSkillRequest | ProcessMessageRequest,
        answer: type[TurnT],
    ) -> TurnT:
        """A chat turn or a skill run on the agent's Thinker, given a turn's time; the pause and budget stop its
        answer reports are noted."""
        outcome = await self._request(runtime, path, body, answer, wait=turn_wait(runtime.definition))
        self._note_pause(runtime, outcome)
        self._note_budget(runtime, outcome)
        return outcome

    async def _request(
        self,
        runtime: AgentRuntime,
        path: str,
        body: ExecuteSkillRequest | ProcessMessageRequest | ClearSessionRequest | CostResumeRequest,
        answer: type[AnswerT],
        *,
        wait: float = SHORT_CALL_TIMEOUT_SECONDS,
    ) -> AnswerT:
        """One request, counted as activity: a Thinker with a request in flight is never idle-killed."""
        self.supervisor.touch(runtime)
        runtime.busy += 1
        try:
            return await self.client.post(runtime, path, body, answer, wait=wait)
        finally:
            runtime.busy -= 1
            self.supervisor.touch(runtime)

    # -- cost pauses ------------------------------------------------------------------------------------------

    def _note_pause(self, runtime: AgentRuntime, answer: TurnAnswer) -> None:
        """The first answer saying `paused` pauses the agent here too and is announced, once per pause."""
        if not answer.paused or runtime.paused:
            return
        runtime.paused = True

        async def announce() -> None:
            status = await self.client.cost_status(runtime)
            chat = runtime.definition.costControls.notifyChatId
            await announce_pause(self.notifier, runtime.agent_id, status, answer.error, chat)

        self._background(announce)

    def _note_budget(self, runtime: AgentRuntime, answer: TurnAnswer) -> None:
        """A budget stop the Thinker marked `notify` (the first of its limit and window) is told to the owner."""
        stop = answer.budget
        if stop is None or not stop.notify:
            return
        chat = runtime.definition.costControls.notifyChatId

        async def announce() -> None:
            await announce_budget(self.notifier, stop, answer.error, chat)

        self._background(announce)

    def _background(self, work: Callable[[], Awaitable[None]]) -> None:
        if self._tasks is not None:
            self._tasks.start_soon(work)
        else:  # not attached to a task group (some tests): nothing runs after the request
            log.warning("agent manager not attached; background work skipped")

    # -- rounds and shutdown ----------------------------------------------------------------------------------

    async def check_health(self) -> None:
        await self.supervisor.check_health(self.agents.values())

    async def reap_idle(self, now: float | None = None) -> list[str]:
        return await self.supervisor.reap_idle(self.agents.values(), now)

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
            await self.supervisor.stop(runtime, "the hub is stopping")
        for sub in list(self.subagents.values()):
            await self._discard_subagent(sub)
        await self.client.aclose()

    # -- subagents --------------------------------------------------------------------------------------------

    def subagents_of(self, parent_id: str) -> list[AgentRuntime]:
        return [sub for sub in self.subagents.values() if sub.parent == parent_id]

    async def run_subagent(
        self, parent_id: str, request: SubagentRequest, tools: Sequence[str], turn: Turn | None = None
    ) -> tuple[str, SkillAnswer]:
        """Run `request.task` in a new temporary Thinker limited to `tools`; it is removed whatever happens.

        The task goes to the subagent's `/execute-skill` (a one-off run, no chat history): with exact tool names
        in `allowedTools` it is offered exactly those (`requiredTools`), else it selects among its tools.
        Returns the subagent's id and its answer.
        """
        if parent_id in self.subagents:
            raise AgentError("A subagent cannot start subagents of its own.", code=ErrorCode.NOT_ALLOWED)
        parent = self.runtime(parent_id)
        active = self.subagents_of(parent_id)
        if len(active) >= MAX_SUBAGENTS_PER_PARENT:
            names = ", ".join(sub.agent_id for sub in active)
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
        self.client.extend_turns(parent, self.supervisor.startup_timeout + seconds + turn_wait(parent.definition))
        if turn is not None:
            # What the subagent reads, its parent reads: it works inside the parent's turn, taint and all.
            turn.agents.add(definition.agentId)
        task = ExecuteSkillRequest(
            instructions=request.task,
            maxSteps=definition.maxSteps,
            skillName=f"subagent of {parent_id}",
            requiredTools=required_tools(request, tools),
            turnId=turn.id if turn is not None else None,
        )
        try:
            async with runtime.lock:
                await self.supervisor.start(runtime)
            # The subagent's own Thinker ends its run at `seconds` (its turnTimeoutSeconds); the grace is its answer's
            # way back, so the hub does not give up at the same moment the subagent says it ran out of time.
            answer = await self._request(
                runtime, "/execute-skill", task, SkillAnswer, wait=seconds + TURN_GRACE_SECONDS
            )
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
        return definition.agentId, answer

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
            await self.supervisor.discard(sub)
            log.info("subagent stopped", extra={"agent": sub.agent_id, "reason": reason})

    async def _discard_subagent(self, runtime: AgentRuntime) -> None:
        await self.supervisor.discard(runtime)
        agent_id = runtime.agent_id
        self.subagents.pop(agent_id, None)
        runtime.config_path.unlink(missing_ok=True)
        # Its chat sessions and (should it have made one) its persona folder die with it.
        for folder in (self.home / "sessions" / agent_id, self.home / "agents" / agent_id):
            shutil.rmtree(folder, ignore_errors=True)
        log.info("subagent removed", extra={"agent": agent_id, "parent": runtime.parent})
