"""The skill scheduler: the hub's service that runs scheduled skills (I/O; the decisions are in `runs`/`triggers`).

Started from the app's lifespan when the memory MCP is routable:

1. has the installer (`install.SkillInstaller`) seed the shipped playbooks and scheduled skills and sync
   `$ANNABELLE_HOME/skills/*/SKILL.md`, then watches the files' modification times;
2. ticks once a second, just after the wall-clock second turns, so a skill fires within a second of its time:
   the skills are listed from Memorizer (cached, re-read every SKILL_REFRESH_SECONDS or at once after a skill write
   through the hub), `runs.due_skills` picks the due ones, and each runs in the background under a concurrency
   limit, never twice at once. A halted scheduler (`/kill scheduler`) ticks without running anything;
3. runs a skill in its tier: the direct tier calls the plan's tools through the hub (no LLM); the agent tier asks
   the skill's agent (`AgentManager.execute_skill`) with its required tools as a strict sandbox. E-mail and meeting
   skills first make a cheap pre-flight call and are skipped when there is nothing to do;
4. writes the outcome on the skill (`runs.run_outcome`): last run, failures and backoff persist in Memorizer, so a
   restart neither forgets a backoff nor re-runs a skill; notifies on completion or auto-disable;
5. enables skills that were waiting for tools once all their tools are routable.

The clock is a constructor argument; tests call `tick(wait=True)` with a fake clock and never sleep.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import anyio.abc
from pydantic import ValidationError

from orchestrator.callers import Caller, agent_caller
from orchestrator.notify import Notifier
from orchestrator.router import ToolRouter
from orchestrator.skills.install import SkillInstaller
from orchestrator.skills.memory_calls import (
    BOOKKEEPING,
    LIST_TOOL,
    SCHEDULER,
    UPDATE_TOOL,
    SkillsHost,
    routable_tools,
)
from orchestrator.skills.normalizer import DEFAULT_AGENT_ID
from orchestrator.skills.runs import (
    Due,
    Outcome,
    auto_enable_candidates,
    direct_calls,
    due_skills,
    missed_outcome,
    next_runs,
    preflight_for,
    preflight_says_skip,
    run_outcome,
    skill_tools,
    skill_words,
)
from orchestrator.skills.triggers import RunDecision
from orchestrator.turns import TurnLedger
from shared.contracts.thinker_api import MAX_SKILL_STEPS, ExecuteSkillRequest
from shared.mcp_tools import describe_validation
from shared.text import clip
from shared.timeutil import Clock, parse_timestamp, utc_now
from shared.traces import elapsed_ms, trace_event, traced

if TYPE_CHECKING:
    from orchestrator.halt import HaltState
    from orchestrator.settings import OrchestratorSettings

__all__ = ["SkillScheduler"]

log = logging.getLogger(__name__)

_SEND_TOOLS = frozenset({"telegram_send_message"})
_RESULT_CHARS = 200


class SchedulerHost(SkillsHost, Protocol):
    """What the scheduler uses of the hub (`orchestrator.hub.Hub` is one)."""

    router: ToolRouter
    notifier: Notifier
    turns: TurnLedger


@dataclass(frozen=True)
class RunReport:
    """What a run did, for `POST /skills/{id}/run` and the tests."""

    skill_id: int
    name: str
    status: str
    summary: str

    def as_json(self) -> dict[str, Any]:
        return {
            "success": self.status != "error",
            "skillId": self.skill_id,
            "name": self.name,
            "status": self.status,
            "summary": self.summary,
        }


class SkillScheduler:
    def __init__(
        self, hub: SchedulerHost, halt: HaltState, settings: OrchestratorSettings, *, clock: Clock = utc_now
    ) -> None:
        self.hub = hub
        self.halt = halt
        self.settings = settings
        self.clock = clock
        self.run_loop = True
        """False: `start` seeds and syncs but runs no background loops (tests drive `tick` themselves)."""
        self.default_tz = settings.timezone_name
        self._skills: dict[int, dict[str, Any]] = {}
        self._loaded_at: float | None = None
        self._stale = True
        self._busy: set[int] = set()
        self._limiter = anyio.CapacityLimiter(settings.skill_concurrency)
        self._tasks: anyio.abc.TaskGroup | None = None
        self._scope: anyio.CancelScope | None = None
        self.installer = SkillInstaller(
            hub, settings.skills_dir, clock=clock, default_tz=self.default_tz, on_change=self.invalidate
        )
        self._problems: dict[int, str] = {}
        self._next_look: dict[int, tuple[tuple[str, ...], datetime | None]] = {}
        self.started = False

    # -- life cycle -------------------------------------------------------------------------------------------

    @property
    def available(self) -> bool:
        """Skills live in Memorizer: without its tools there is nothing to schedule."""
        return self.hub.router.resolve(LIST_TOOL) is not None

    async def start(self, tasks: anyio.abc.TaskGroup) -> None:
        if not self.available:
            log.warning("skill scheduler not started: the memory MCP is not available")
            return
        self.started = True
        if self.run_loop:
            # Seeding runs in the background: the hub is ready for chat and tools before the skills are installed.
            tasks.start_soon(self._serve, name="skill-scheduler")
        else:
            await self._install()
        log.info("skill scheduler started", extra={"timezone": self.default_tz})

    async def _install(self) -> None:
        try:
            await self.installer.seed()
            await self.installer.sync_files()
        except Exception:  # the hub serves chat and tools even when the skills cannot be installed
            log.exception("skill seeding or file sync failed at start")

    async def _serve(self) -> None:
        # Own scope and task group: `stop` ends the ticks, the file watch and any run in flight together.
        with anyio.CancelScope() as scope:
            self._scope = scope
            await self._install()
            async with anyio.create_task_group() as runs:
                self._tasks = runs
                runs.start_soon(self._watch_files)
                await self._loop()

    def stop(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    async def _loop(self) -> None:
        while True:
            # Wake just after the next wall-clock second: a skill due at 09:00:00 runs by 09:00:00.0x.
            await anyio.sleep(1.0 - (time.time() % 1.0) + 0.01)
            try:
                await self.tick()
            except Exception:  # one bad tick must not end scheduling
                log.exception("skill scheduler tick failed")

    async def _watch_files(self) -> None:
        while True:
            await anyio.sleep(self.settings.skill_files_poll_seconds)
            try:
                if self.installer.files_changed():
                    await self.installer.sync_files()
            except Exception:
                log.exception("skill file sync failed")

    # -- the cache --------------------------------------------------------------------------------------------

    def invalidate(self) -> None:
        """Re-read the skills on the next tick (a skill was written through the hub)."""
        self._stale = True

    async def refresh(self) -> bool:
        envelope = await self.hub.call(LIST_TOOL, {"agent_id": "*", "detail": "full"}, caller=SCHEDULER)
        data = envelope.get("data") if envelope.get("success") else None
        if not isinstance(data, Mapping):
            log.warning("skills not listed; keeping the last list", extra={"error": envelope.get("error")})
            return False
        self._skills = {int(skill["id"]): dict(skill) for skill in data.get("skills") or []}
        self._loaded_at = time.monotonic()
        self._stale = False
        await self.auto_enable()
        return True

    async def _refresh_if_needed(self) -> None:
        age = None if self._loaded_at is None else time.monotonic() - self._loaded_at
        if self._stale or age is None or age >= self.settings.skill_refresh_seconds:
            await self.refresh()

    def skills(self) -> list[dict[str, Any]]:
        return list(self._skills.values())

    # -- ticks ------------------------------------------------------------------------------------------------

    async def tick(self, *, wait: bool = False) -> list[Due]:
        """Run what is due now. `wait=True` awaits the runs (tests, benchmarks); otherwise they run in the background."""
        await self._refresh_if_needed()
        if self.halt.halted("scheduler"):
            return []
        now = self.clock()
        problems: dict[int, str] = {}
        due = due_skills(
            self._skills.values(),
            now,
            default_tz=self.default_tz,
            busy=self._busy,
            problems=problems,
            memo=self._next_look,
        )
        for skill_id, problem in problems.items():
            if self._problems.get(skill_id) != problem:
                log.warning("skill cannot be scheduled", extra={"skill_id": skill_id, "reason": problem})
        self._problems = problems
        if not due:
            return due
        for item in due:
            self._busy.add(int(item.skill["id"]))
        if wait or self._tasks is None:
            async with anyio.create_task_group() as group:
                for item in due:
                    group.start_soon(self._handle, item, now)
        else:
            for item in due:
                self._tasks.start_soon(self._handle, item, now)
        return due

    async def _handle(self, item: Due, now: datetime) -> RunReport:
        """One run, in a trace of its own: its pre-flight, tool calls (or agent turn) and bookkeeping join it."""
        skill = item.skill
        with traced():
            started = time.perf_counter()
            try:
                async with self._limiter:
                    if item.decision.action == "missed":
                        outcome = missed_outcome(skill, item.decision, now=now)
                    else:
                        outcome = await self.execute(skill, now)
                    await self.record(skill, outcome)
            finally:
                self._busy.discard(int(skill["id"]))
            trace_event("skill_run", skill=skill.get("id"), status=outcome.status, ms=elapsed_ms(started))
        return RunReport(int(skill["id"]), str(skill.get("name")), outcome.status, outcome.summary)

    async def run_now(self, skill_id: int) -> RunReport | None:
        """Run one skill at once, whatever its schedule or enabled state (`annabelle skills run`)."""
        await self.refresh()
        skill = self._skills.get(skill_id)
        if skill is None:
            return None
        now = self.clock()
        decision = RunDecision("run", now, None, "run on request")
        self._busy.add(skill_id)
        return await self._handle(Due(skill, decision), now)

    # -- running one skill ------------------------------------------------------------------------------------

    async def execute(self, skill: Mapping[str, Any], now: datetime) -> Outcome:
        """Run `skill` in its tier and say how it went; never raises."""
        try:
            check = preflight_for(skill, now)
            if check is not None:
                envelope = await self.hub.call(check.tool, dict(check.arguments), caller=SCHEDULER)
                reason = preflight_says_skip(check, envelope)
                if reason is not None:
                    return run_outcome(skill, now=now, success=True, summary=reason, skipped=True)
            plan = skill.get("execution_plan")
            if isinstance(plan, list) and plan:
                return await self._direct(skill, plan, now)
            return await self._agent(skill, now)
        except Exception as exc:
            log.exception("skill run failed", extra={"skill_id": skill.get("id")})
            return run_outcome(skill, now=now, success=False, error=f"The run crashed: {exc}")

    async def _direct(self, skill: Mapping[str, Any], plan: list[Any], now: datetime) -> Outcome:
        """The direct tier: the plan's tool calls in order through the hub (Guardian included), zero LLM tokens.

        The calls are the skill's agent's: its allowedTools/deniedTools apply, as they would to the agent itself."""
        caller = self._owner_of(skill)
        if caller is None:
            error = f"The skill belongs to the agent '{skill.get('agent_id')}', which is not in agents.json."
            return run_outcome(skill, now=now, success=False, error=error)
        calls = direct_calls([step for step in plan if isinstance(step, Mapping)], self.hub.notifier.default_chat_id)
        results: list[str] = []
        for number, (tool, args) in enumerate(calls, start=1):
            envelope = await self.hub.call(tool, args, caller=caller)
            if not envelope.get("success"):
                error = f"Step {number} ({tool}) failed: {envelope.get('error') or 'no reason given'}"
                return run_outcome(skill, now=now, success=False, error=error)
            results.append(f"{tool}: {clip(envelope.get('data'), _RESULT_CHARS)}")
        summary = "; ".join(results) or "No steps."
        # A plan that messages the user has already told them; a second notification would repeat it.
        announced = any(tool in _SEND_TOOLS for tool, _ in calls)
        outcome = run_outcome(skill, now=now, success=True, summary=summary)
        return Outcome(
            outcome.updates, None if announced else outcome.notify, outcome.kind, outcome.status, outcome.summary
        )

    def _owner_of(self, skill: Mapping[str, Any]) -> Caller | None:
        """The caller a direct-tier skill acts as: its agent in a turn of its own (the master token's powers when
        no agents run). A stored skill was written by the owner, or approved by them when a tainted turn wrote it,
        so its run starts clean."""
        agents = self.hub.agents
        if agents is None:
            return agent_caller(None)
        runtime = agents.agents.get(str(skill.get("agent_id") or DEFAULT_AGENT_ID))
        if runtime is None:
            return None
        turn = self.hub.turns.mint(runtime.definition.agentId, said=skill_words(skill))
        return agent_caller(runtime.definition, turn)

    async def _agent(self, skill: Mapping[str, Any], now: datetime) -> Outcome:
        """The agent tier: the skill's agent runs the instructions with only its required tools (if any)."""
        agents = self.hub.agents
        if agents is None:
            return run_outcome(skill, now=now, success=False, error="No agent manager is running in the hub.")
        if self.halt.halted("thinker"):
            return run_outcome(skill, now=now, success=True, skipped=True, summary=self.halt.notice("thinker"))
        agent_id = str(skill.get("agent_id") or DEFAULT_AGENT_ID)
        try:
            request = ExecuteSkillRequest(
                skillId=skill.get("id"),
                skillName=skill.get("name"),
                instructions=str(skill.get("instructions") or ""),
                maxSteps=min(max(int(skill.get("max_steps") or 10), 1), MAX_SKILL_STEPS),
                requiredTools=skill_tools(skill) or None,
                chatId=self.hub.notifier.default_chat_id,
                maxTokensPerRun=skill.get("max_tokens_per_run") or None,
                dailyTokens=skill.get("daily_tokens") or None,
                turnId=self.hub.turns.mint(agent_id, said=skill_words(skill)).id,
            )
        except ValidationError as exc:
            return run_outcome(skill, now=now, success=False, error=f"The skill cannot run: {describe_validation(exc)}")
        try:
            answer = await agents.execute_skill(agent_id, request)
        except Exception as exc:  # AgentError, unknown agent, an unreachable Thinker
            return run_outcome(skill, now=now, success=False, error=f"Agent '{agent_id}': {exc}")
        if answer.paused:
            why = answer.error or f"The agent '{agent_id}' is paused by its cost controls."
            return run_outcome(skill, now=now, success=True, skipped=True, summary=f"Skipped: {why}")
        if answer.errorCode == "BUDGET_EXCEEDED":
            # A skip, not a failure: the owner hears of the budget once per window (the agent manager), not at
            # every run the schedule fires until the limit resets.
            return run_outcome(skill, now=now, success=True, skipped=True, summary=f"Skipped: {answer.error}")
        summary = answer.summary or answer.response
        if not answer.success:
            return run_outcome(skill, now=now, success=False, error=answer.error or summary)
        return run_outcome(skill, now=now, success=True, summary=summary)

    async def record(self, skill: Mapping[str, Any], outcome: Outcome) -> None:
        """Write the outcome on the skill (so it survives a restart), update the cache, and notify."""
        skill_id = int(skill["id"])
        args = {"skill_id": skill_id, "agent_id": str(skill.get("agent_id") or DEFAULT_AGENT_ID), **outcome.updates}
        envelope = await self.hub.call(UPDATE_TOOL, args, caller=BOOKKEEPING)
        if not envelope.get("success"):
            log.error("skill run not recorded", extra={"skill_id": skill_id, "error": envelope.get("error")})
        cached = self._skills.get(skill_id)
        if cached is not None:
            cached.update(outcome.updates)
        log.info("skill ran", extra={"skill_id": skill_id, "status": outcome.status, "summary": outcome.summary})
        if outcome.notify:
            await self.hub.notifier.notify(outcome.notify, kind=outcome.kind)

    # -- auto-enable ----------------------------------------------------------------------------------------

    async def auto_enable(self) -> list[int]:
        """Enable the skills that waited for tools now routable (never one-shots, never ones the user disabled)."""
        enabled: list[int] = []
        candidates = auto_enable_candidates(self._skills.values(), routable_tools(self.hub))
        for skill in candidates:
            skill_id = int(skill["id"])
            changes = {"enabled": True, "last_error": ""}
            args = {"skill_id": skill_id, "agent_id": skill.get("agent_id") or DEFAULT_AGENT_ID, **changes}
            if (await self.hub.call(UPDATE_TOOL, args, caller=BOOKKEEPING)).get("success"):
                self._skills[skill_id].update(changes)
                enabled.append(skill_id)
                log.info("skill enabled: its tools are available", extra={"skill_id": skill_id})
        return enabled

    # -- what /cron, GET /skills and the CLI show ---------------------------------------------------------------

    def describe(self, skill: Mapping[str, Any]) -> dict[str, Any]:
        """A skill with its next run and backoff state, as GET /skills and /cron show it."""
        now = self.clock()
        moment, reason = next_runs(skill, now, default_tz=self.default_tz)
        backoff = skill.get("backoff_until")
        until = parse_timestamp(backoff)
        return {
            **skill,
            "next_run_at": moment.isoformat() if moment is not None else None,
            "next_run_reason": reason,
            "backing_off": until is not None and until > now and bool(skill.get("consecutive_failures")),
            "running": skill.get("id") in self._busy,
        }

    async def listing(self) -> list[dict[str, Any]]:
        await self.refresh()
        return [self.describe(skill) for skill in sorted(self._skills.values(), key=lambda s: int(s["id"]))]
