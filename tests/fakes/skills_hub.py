"""A hub for skill-scheduler unit tests: an in-memory skill store that answers like Memorizer, scripted tools,
recorded notifications and agent runs, and a clock the test moves.

    hub = SkillsHub(tools={"echo_echo": {"text": "hi"}})
    scheduler = make_scheduler(hub, tmp_path, clock)
    hub.add_skill(name="Ping", trigger_config={"interval_minutes": 1}, execution_plan=[...])
    await scheduler.tick(wait=True)
    assert hub.skill(1)["last_run_status"] == "success"
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from orchestrator.callers import Caller
from orchestrator.halt import HaltState
from orchestrator.settings import OrchestratorSettings
from orchestrator.skills.scheduler import SkillScheduler
from orchestrator.turns import TurnLedger
from shared.agents import AgentsConfig
from shared.contracts.thinker_api import ExecuteSkillRequest, SkillAnswer
from shared.envelope import ErrorCode, fail, ok
from shared.settings import load_settings

Script = Any | Callable[[dict[str, Any]], Any]


class FakeClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@dataclass
class FakeNotifier:
    default_chat_id: str | None = "4242"
    sent: list[tuple[str, str]] = field(default_factory=list)

    async def notify(self, text: str, *, chat_id: str | None = None, kind: str = "info") -> bool:
        self.sent.append((kind, text))
        return True


@dataclass
class FakeAgents:
    answer: Script = field(default_factory=lambda: {"success": True, "summary": "Done by the agent."})
    bodies: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    agents: dict[str, object] = field(
        default_factory=lambda: {"annabelle": SimpleNamespace(definition=AgentsConfig.default().agents[0])}
    )

    async def execute_skill(self, agent_id: str, request: ExecuteSkillRequest) -> SkillAnswer:
        body = request.model_dump(exclude_none=True)
        self.bodies.append((agent_id, body))
        value = self.answer(body) if callable(self.answer) else self.answer
        return SkillAnswer.model_validate(value)


class _Router:
    def __init__(self, hub: SkillsHub) -> None:
        self.hub = hub

    def resolve(self, name: str, *, privileged: bool = False) -> SimpleNamespace | None:
        return SimpleNamespace(mcp=name.split("_", 1)[0], tool=name) if name in self.hub.routable() else None


_SKILL_TOOLS = ("memory_list_skills", "memory_get_skill", "memory_store_skill", "memory_update_skill")


class SkillsHub:
    """Just what the scheduler uses of `Hub`: call, tool_listing, router.resolve, notifier, agents."""

    def __init__(self, tools: dict[str, Script] | None = None, *, memory: bool = True) -> None:
        self.tools: dict[str, Script] = dict(tools or {})
        self.memory = memory
        self.store: dict[int, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.callers: list[tuple[str, Caller]] = []
        self.notifier = FakeNotifier()
        self.agents: FakeAgents | None = FakeAgents()
        self.router = _Router(self)
        self.turns = TurnLedger()
        self.skills: SkillScheduler | None = None

    def routable(self) -> set[str]:
        return set(self.tools) | (set(_SKILL_TOOLS) if self.memory else set())

    def tool_listing(self) -> list[dict[str, Any]]:
        return [{"name": name} for name in sorted(self.routable())]

    # -- the skill store ----------------------------------------------------------------------------------------

    def add_skill(self, created_at: datetime | None = None, **fields: Any) -> int:
        skill_id = next(self._ids)
        record: dict[str, Any] = {
            "id": skill_id,
            "agent_id": "annabelle",
            "description": None,
            "enabled": True,
            "trigger_type": "cron",
            "trigger_config": None,
            "instructions": "Do it.",
            "required_tools": [],
            "execution_plan": None,
            "max_steps": 10,
            "notify_on_completion": True,
            "last_run_at": None,
            "last_run_status": None,
            "last_run_summary": None,
            "consecutive_failures": 0,
            "backoff_until": None,
            "last_error": None,
            "created_at": (created_at or datetime(2026, 3, 2, 8, 59, tzinfo=UTC)).strftime("%Y-%m-%d %H:%M:%S"),
        }
        record.update(fields)
        self.store[skill_id] = record
        return skill_id

    def skill(self, skill_id: int) -> dict[str, Any]:
        return self.store[skill_id]

    def tool_calls(self, name: str) -> list[dict[str, Any]]:
        return [args for called, args in self.calls if called == name]

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
        self.calls.append((name, dict(arguments)))
        self.callers.append((name, caller))
        if self.memory and name in _SKILL_TOOLS:
            return self._memory(name, arguments)
        if name not in self.tools:
            return fail(ErrorCode.UNKNOWN_TOOL, f"Unknown tool: {name}.")
        script = self.tools[name]
        value = script(arguments) if callable(script) else script
        if isinstance(value, dict) and isinstance(value.get("success"), bool):
            return value
        return ok(value)

    def _memory(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "memory_list_skills":
            agent = args.get("agent_id", "annabelle")
            rows = [dict(s) for s in self.store.values() if agent == "*" or s["agent_id"] == agent]
            return ok({"skills": rows, "total_count": len(rows)})
        if name == "memory_store_skill":
            for skill in self.store.values():
                if skill["name"] == args["name"] and skill["agent_id"] == args.get("agent_id", "annabelle"):
                    return ok({"skill_id": skill["id"], "already_existed": True})
            return ok({"skill_id": self.add_skill(**args)})
        skill_id = int(args["skill_id"])
        if skill_id not in self.store:
            return fail(ErrorCode.TOOL_ERROR, f"Skill {skill_id} does not exist.")
        if name == "memory_get_skill":
            return ok({"skill": dict(self.store[skill_id])})
        changes = {k: v for k, v in args.items() if k not in ("skill_id", "agent_id") and v is not None}
        for key in ("last_run_at", "backoff_until"):
            if key in changes:  # stored like Memorizer: UTC seconds
                moment = datetime.fromisoformat(str(changes[key])).astimezone(UTC)
                changes[key] = moment.strftime("%Y-%m-%d %H:%M:%S")
        self.store[skill_id].update(changes)
        return ok({"updated_fields": list(changes)})


def make_scheduler(hub: SkillsHub, home: Path, clock: FakeClock, **settings: Any) -> SkillScheduler:
    config = load_settings(OrchestratorSettings, annabelle_home=home, annabelle_timezone="UTC", **settings)
    scheduler = SkillScheduler(hub, HaltState(home / "data" / "halt.json"), config, clock=clock)  # type: ignore[arg-type]
    scheduler.run_loop = False
    hub.skills = scheduler
    return scheduler
