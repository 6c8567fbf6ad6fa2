"""The skill scheduler over a fake hub and a fake clock: which skills run, what is written back, what is said."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from orchestrator.skills.runs import WAITING_FOR_TOOLS
from orchestrator.skills.scheduler import SkillScheduler
from orchestrator.skills.seeds import SCHEDULED
from shared.contracts.thinker_api import ExecuteSkillRequest, SkillAnswer
from shared.envelope import ErrorCode, fail
from tests.fakes.skills_hub import FakeAgents, FakeClock, SkillsHub, make_scheduler

START = datetime(2026, 3, 2, 8, 59, 59, tzinfo=UTC)
ECHO_PLAN = [{"id": "step1", "toolName": "echo_echo", "parameters": {"text": "hi"}}]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def hub() -> SkillsHub:
    return SkillsHub(tools={"echo_echo": lambda args: {"text": args.get("text")}})


@pytest.fixture
def scheduler(hub: SkillsHub, tmp_path: Path, clock: FakeClock) -> SkillScheduler:
    return make_scheduler(hub, tmp_path, clock)


async def test_a_cron_skill_fires_in_the_second_its_minute_starts_and_not_before(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    skill = hub.add_skill(name="Nine", trigger_config={"schedule": "0 9 * * *"}, execution_plan=ECHO_PLAN)
    assert await scheduler.tick(wait=True) == []
    clock.advance(seconds=1)  # 09:00:00
    fired = await scheduler.tick(wait=True)
    assert [due.skill["id"] for due in fired] == [skill]
    record = hub.skill(skill)
    assert record["last_run_status"] == "success" and record["last_run_at"] == "2026-03-02 09:00:00"
    assert "hi" in record["last_run_summary"]
    assert hub.tool_calls("echo_echo") == [{"text": "hi"}]
    clock.advance(seconds=30)
    assert await scheduler.tick(wait=True) == []  # once per slot


async def test_the_direct_tier_maps_old_names_and_gives_telegram_the_owners_chat(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    hub.tools["telegram_send_message"] = {"message_id": 1}
    plan = [{"toolName": "send_telegram", "parameters": {"message": "Stretch!", "chat_id": "x" * 40}}]
    hub.add_skill(name="Stretch", trigger_config={"interval_minutes": 1}, execution_plan=plan)
    clock.advance(minutes=1)
    await scheduler.tick(wait=True)
    assert hub.tool_calls("telegram_send_message") == [{"message": "Stretch!", "chat_id": "4242"}]
    assert hub.agents is not None and hub.agents.bodies == []  # no LLM
    assert hub.notifier.sent == []  # the plan messaged the user itself


async def test_the_agent_tier_gets_the_required_tools_as_its_sandbox_and_the_owners_chat(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    skill = hub.add_skill(
        name="Digest", trigger_config={"schedule": "0 9 * * *"}, required_tools=["echo_echo"], max_steps=4
    )
    clock.advance(seconds=1)
    await scheduler.tick(wait=True)
    assert hub.agents is not None
    assert len(hub.agents.bodies) == 1
    turn_id = hub.agents.bodies[0][1].pop("turnId")  # the run's own turn, minted by the hub
    assert isinstance(turn_id, str) and turn_id
    assert hub.agents.bodies == [
        (
            "annabelle",
            {
                "skillId": skill,
                "skillName": "Digest",
                "instructions": "Do it.",
                "maxSteps": 4,
                "noTools": False,
                "requiredTools": ["echo_echo"],
                "chatId": "4242",
            },
        )
    ]
    assert hub.notifier.sent == [("skill_result", "Digest: Done by the agent.")]
    assert hub.skill(skill)["last_run_summary"] == "Done by the agent."


@pytest.mark.parametrize("reply", ["Nothing new.", "No meeting soon."])
async def test_a_trivial_result_is_recorded_but_not_sent(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock, reply: str
) -> None:
    assert hub.agents is not None
    hub.agents.answer = {"success": True, "summary": reply}
    skill = hub.add_skill(name="Quiet", trigger_config={"interval_minutes": 1})
    clock.advance(minutes=1)
    await scheduler.tick(wait=True)
    assert hub.skill(skill)["last_run_summary"] == reply and hub.notifier.sent == []


async def test_failures_back_off_1_5_15_60_minutes_then_disable_with_one_notification(
    hub: SkillsHub, tmp_path: Path, clock: FakeClock
) -> None:
    hub.tools["echo_echo"] = fail(ErrorCode.TOOL_ERROR, "The echo broke.")
    skill = hub.add_skill(name="Flaky", trigger_config={"interval_minutes": 1}, execution_plan=ECHO_PLAN)
    waits = []
    for failure in range(1, 6):
        # A fresh scheduler each time: everything it needs is on the record (a restart forgets nothing).
        scheduler = make_scheduler(hub, tmp_path, clock)
        before = len(hub.tool_calls("echo_echo"))
        while len(hub.tool_calls("echo_echo")) == before:
            clock.advance(seconds=30)
            await scheduler.tick(wait=True)
        record = hub.skill(skill)
        assert record["consecutive_failures"] == failure and record["last_error"].endswith("The echo broke.")
        if failure < 5:
            until = datetime.fromisoformat(record["backoff_until"]).replace(tzinfo=UTC)
            waits.append(round((until - clock.now).total_seconds() / 60))
    assert waits == [1, 5, 15, 60]
    assert hub.skill(skill)["enabled"] is False
    assert len(hub.notifier.sent) == 1
    kind, text = hub.notifier.sent[0]
    assert kind == "skill_failure" and "Flaky" in text and "5 failures" in text and "enable" in text


async def test_a_success_resets_the_failure_count(hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock) -> None:
    skill = hub.add_skill(
        name="Recovering",
        trigger_config={"interval_minutes": 1},
        execution_plan=ECHO_PLAN,
        consecutive_failures=3,
        backoff_until="2026-03-02 09:00:00",
        last_error="The echo broke.",
    )
    clock.advance(minutes=2)
    await scheduler.tick(wait=True)
    record = hub.skill(skill)
    assert record["consecutive_failures"] == 0 and record["last_error"] == ""


async def test_a_day_of_downtime_gives_one_record_not_a_storm(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    every_minute = hub.add_skill(
        name="Minutely",
        trigger_config={"schedule": "* * * * *"},
        execution_plan=ECHO_PLAN,
        last_run_at="2026-03-01 08:59:00",
    )
    daily = hub.add_skill(
        name="Daily 7",
        trigger_config={"schedule": "0 7 * * *"},
        execution_plan=ECHO_PLAN,
        last_run_at="2026-03-01 07:00:00",
    )
    await scheduler.tick(wait=True)  # 24 h after the last runs
    assert len(hub.tool_calls("echo_echo")) == 1  # the minutely skill runs once (its slot is within the grace)
    assert hub.skill(every_minute)["last_run_status"] == "success"
    assert hub.skill(daily)["last_run_status"] == "missed"  # 07:00 is two hours gone: recorded, not run
    for _ in range(5):
        await scheduler.tick(wait=True)
    assert len(hub.tool_calls("echo_echo")) == 1


async def test_a_one_shot_fires_once_and_is_disabled(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    skill = hub.add_skill(name="Once", trigger_config={"at": "2026-03-02T09:00:00+00:00"}, execution_plan=ECHO_PLAN)
    clock.advance(seconds=1)
    await scheduler.tick(wait=True)
    assert hub.skill(skill)["enabled"] is False and hub.skill(skill)["last_run_status"] == "success"
    clock.advance(days=1)
    await scheduler.tick(wait=True)
    assert len(hub.tool_calls("echo_echo")) == 1


async def test_a_halted_scheduler_runs_nothing_until_resumed(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    hub.add_skill(name="Nine", trigger_config={"schedule": "0 9 * * *"}, execution_plan=ECHO_PLAN)
    scheduler.halt.halt("scheduler", "test")
    clock.advance(seconds=1)
    assert await scheduler.tick(wait=True) == []
    scheduler.halt.resume("scheduler")
    assert len(await scheduler.tick(wait=True)) == 1


async def test_no_more_than_the_concurrency_limit_run_at_once(hub: SkillsHub, tmp_path: Path, clock: FakeClock) -> None:
    running = 0
    peak = 0

    class SlowAgents(FakeAgents):
        async def execute_skill(self, agent_id: str, request: ExecuteSkillRequest) -> SkillAnswer:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await anyio.sleep(0.01)
            running -= 1
            return SkillAnswer(success=True, summary="ok")

    hub.agents = SlowAgents()
    for number in range(8):
        hub.add_skill(name=f"S{number}", trigger_config={"schedule": "0 9 * * *"})
    scheduler = make_scheduler(hub, tmp_path, clock, skill_concurrency=3)
    clock.advance(seconds=1)
    assert len(await scheduler.tick(wait=True)) == 8
    assert peak == 3


async def test_an_email_skill_with_no_new_mail_is_skipped_without_the_agent(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    hub.tools["gmail_get_new_emails"] = {"emails": [], "count": 0}
    skill = hub.add_skill(
        name="Email Processor", trigger_config={"interval_minutes": 60}, required_tools=["gmail_get_new_emails"]
    )
    clock.advance(hours=1)
    await scheduler.tick(wait=True)
    assert hub.agents is not None and hub.agents.bodies == []
    assert hub.tool_calls("gmail_get_new_emails") == [{"clear": False}]
    assert hub.skill(skill)["last_run_status"] == "skipped" and hub.notifier.sent == []
    hub.tools["gmail_get_new_emails"] = {"emails": [{"id": "m1"}], "count": 1}
    clock.advance(hours=1)
    await scheduler.tick(wait=True)
    assert len(hub.agents.bodies) == 1


async def test_a_meeting_skill_checks_the_next_hour_and_skips_an_empty_one(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    hub.tools["gmail_list_events"] = {"events": [], "count": 0}
    hub.add_skill(
        name="Pre-meeting Prep", trigger_config={"interval_minutes": 15}, required_tools=["gmail_list_events"]
    )
    clock.advance(minutes=15)
    await scheduler.tick(wait=True)
    (window,) = hub.tool_calls("gmail_list_events")
    assert window["time_min"] == "2026-03-02T09:14:59+00:00" and window["time_max"] == "2026-03-02T10:14:59+00:00"
    assert hub.agents is not None and hub.agents.bodies == []


async def test_a_skill_waiting_for_tools_is_enabled_when_they_appear_but_not_one_the_user_disabled(
    hub: SkillsHub, scheduler: SkillScheduler
) -> None:
    waiting = hub.add_skill(
        name="Waiting", enabled=False, required_tools=["gmail_list_events"], last_error=f"{WAITING_FOR_TOOLS}: x."
    )
    by_hand = hub.add_skill(name="Off by hand", enabled=False, required_tools=["gmail_list_events"])
    one_shot = hub.add_skill(
        name="Once",
        enabled=False,
        trigger_config={"at": "2026-03-03T09:00:00+00:00"},
        required_tools=["gmail_list_events"],
        last_error=f"{WAITING_FOR_TOOLS}: x.",
    )
    await scheduler.refresh()
    assert hub.skill(waiting)["enabled"] is False
    hub.tools["gmail_list_events"] = {"events": []}
    await scheduler.refresh()
    assert hub.skill(waiting)["enabled"] is True and hub.skill(waiting)["last_error"] == ""
    assert hub.skill(by_hand)["enabled"] is False and hub.skill(one_shot)["enabled"] is False


async def test_seeding_stores_the_shipped_skills_once_with_missing_tools_marked_as_waiting(
    hub: SkillsHub, scheduler: SkillScheduler
) -> None:
    await scheduler.installer.seed()
    names = {skill["name"]: skill for skill in hub.store.values()}
    assert len(names) == 24
    digest = names["Morning Briefing"]
    assert digest["enabled"] is False and digest["last_error"].startswith(WAITING_FOR_TOOLS)
    await scheduler.installer.seed()
    assert len(hub.store) == 24 and not hub.tool_calls("memory_store_skill")[24:]


async def test_without_the_memory_mcp_the_scheduler_does_not_start(tmp_path: Path, clock: FakeClock) -> None:
    hub = SkillsHub(memory=False)
    scheduler = make_scheduler(hub, tmp_path, clock)
    async with anyio.create_task_group() as tasks:
        await scheduler.start(tasks)
    assert scheduler.started is False and hub.calls == []


SKILL_MD = """---
name: {name}
description: A test skill
metadata:
  required_tools: [echo_echo]
  trigger_config:
    schedule: "{schedule}"
---
Echo something.
"""


async def test_skill_files_are_added_changed_and_deleted_in_the_store(
    hub: SkillsHub, scheduler: SkillScheduler, tmp_path: Path
) -> None:
    folder = tmp_path / "skills" / "echoer"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD.format(name="echoer", schedule="0 9 * * *"))
    await scheduler.installer.sync_files()
    (stored,) = hub.store.values()
    assert stored["trigger_config"]["schedule"] == "0 9 * * *" and stored["trigger_config"]["source"] == "file:echoer"
    assert stored["enabled"] is True
    (folder / "SKILL.md").write_text(SKILL_MD.format(name="echoer", schedule="30 7 * * *"))
    assert scheduler.installer.files_changed()
    await scheduler.installer.sync_files()
    assert stored["trigger_config"]["schedule"] == "30 7 * * *"
    (folder / "SKILL.md").unlink()
    await scheduler.installer.sync_files()
    assert stored["enabled"] is False and stored["last_error"].startswith("SKILL.md removed")
    assert len(hub.store) == 1


async def test_cron_shows_the_next_run_and_a_backoff(hub: SkillsHub, scheduler: SkillScheduler) -> None:
    from orchestrator.commands.cron import format_skills

    hub.add_skill(name="Nine", trigger_config={"schedule": "0 9 * * *"})
    hub.add_skill(
        name="Flaky",
        trigger_config={"interval_minutes": 1},
        last_run_at="2026-03-02 08:59:00",
        consecutive_failures=2,
        backoff_until="2026-03-02 09:04:00",
    )
    text = format_skills(await scheduler.listing())
    assert "Nine @annabelle — cron 0 9 * * * — never run, next 2026-03-02 09:00 UTC" in text
    assert "2 failure(s) in a row, backing off until 2026-03-02 09:04, next 2026-03-02 09:04 UTC" in text


def test_remembering_when_to_look_again_changes_no_decision() -> None:
    from datetime import timedelta

    from orchestrator.skills.runs import due_skills

    skills: list[dict[str, Any]] = [
        {"id": 1, "enabled": True, "trigger_type": "cron", "trigger_config": {"schedule": "*/7 * * * *"}},
        {"id": 2, "enabled": True, "trigger_type": "cron", "trigger_config": {"interval_minutes": 45}},
        {
            "id": 3,
            "enabled": True,
            "trigger_type": "cron",
            "trigger_config": {"schedule": "30 2 * * *", "timezone": "Europe/Berlin"},
        },
        {"id": 4, "enabled": True, "trigger_type": "cron", "trigger_config": {"at": "2026-03-29T01:30:00+00:00"}},
    ]
    for skill in skills:
        skill["created_at"] = "2026-03-28 00:00:00"
    memo: dict[int, Any] = {}
    now = datetime(2026, 3, 28, 0, 0, 30, tzinfo=UTC)
    fired: list[tuple[int, datetime]] = []
    for _ in range(2 * 24 * 60):  # two days (one of them a DST change in Berlin), a tick a minute
        now += timedelta(minutes=1)
        plain = due_skills(skills, now, default_tz="UTC")
        remembered = due_skills(skills, now, default_tz="UTC", memo=memo)
        assert [d.skill["id"] for d in plain] == [d.skill["id"] for d in remembered]
        for due in remembered:
            due.skill["last_run_at"] = now.strftime("%Y-%m-%d %H:%M:%S")
            fired.append((int(due.skill["id"]), now))
    counts = {skill_id: sum(1 for i, _ in fired if i == skill_id) for skill_id in (1, 2, 3, 4)}
    assert counts[3] == 2 and counts[4] == 1 and counts[2] == 64


async def test_a_briefing_that_also_reads_the_calendar_runs_on_a_day_without_new_mail(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    hub.tools["gmail_get_new_emails"] = {"emails": [], "count": 0}
    hub.add_skill(
        name="My briefing",
        trigger_config={"interval_minutes": 60},
        required_tools=["gmail_list_events", "gmail_get_new_emails", "memory_list_facts"],
    )
    clock.advance(hours=1)
    await scheduler.tick(wait=True)
    assert hub.tool_calls("gmail_get_new_emails") == []
    assert hub.agents is not None and len(hub.agents.bodies) == 1


async def test_the_shipped_morning_briefing_runs_without_the_new_mail_queue(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    hub.tools["gmail_get_new_emails"] = fail(ErrorCode.TOOL_ERROR, "The new-mail queue is not set up.")
    briefing = next(seed for seed in SCHEDULED if seed.name == "Morning Briefing")
    skill = hub.add_skill(
        name=briefing.name, trigger_config={"interval_minutes": 60}, required_tools=list(briefing.required_tools)
    )
    clock.advance(hours=1)
    await scheduler.tick(wait=True)
    assert "gmail_get_new_emails" not in briefing.required_tools
    assert "gmail_get_new_emails" not in briefing.instructions
    assert hub.agents is not None and len(hub.agents.bodies) == 1
    assert hub.skill(skill)["last_run_status"] == "success"


async def test_a_skills_budgets_go_with_its_run_and_a_budget_stop_is_a_quiet_skip(
    hub: SkillsHub, scheduler: SkillScheduler, clock: FakeClock
) -> None:
    assert hub.agents is not None
    stop = {"scope": "skill", "limit": "dailyTokens", "unit": "tokens", "window": "day", "limitValue": 5000}
    sentence = (
        "Stopped before calling the model: the daily budget of the skill 'Digest' (5,000 tokens) would be passed."
    )
    hub.agents.answer = {
        "success": False,
        "response": sentence,
        "error": sentence,
        "errorCode": "BUDGET_EXCEEDED",
        "budget": {**stop, "used": 4000, "estimate": 4500, "agentId": "annabelle", "skill": "Digest", "notify": True},
    }
    skill = hub.add_skill(
        name="Digest", trigger_config={"interval_minutes": 1}, max_tokens_per_run=2000, daily_tokens=5000
    )
    clock.advance(minutes=1)
    await scheduler.tick(wait=True)
    body = hub.agents.bodies[0][1]
    assert (body["maxTokensPerRun"], body["dailyTokens"]) == (2000, 5000)
    record = hub.skill(skill)
    assert record["last_run_status"] == "skipped" and record["last_run_summary"] == f"Skipped: {sentence}"
    assert record["consecutive_failures"] == 0
    assert hub.notifier.sent == []  # the owner hears of the budget once per window, from the agent manager
