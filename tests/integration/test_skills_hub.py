"""Skills through the real hub (in process) with the real Memorizer and echo MCPs, a fake LLM and a fake clock:
creation through the hook, the direct tier with zero LLM requests, backoff that survives a hub restart, SKILL.md
sync, seeds, and the /skills endpoints."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from orchestrator import cli
from orchestrator.app import create_app
from orchestrator.settings import OrchestratorSettings
from orchestrator.skills.scheduler import SkillScheduler
from shared.settings import load_settings
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.skills_hub import FakeClock
from tests.hub_process import fake_llm_agent_env, package_dir, start_hub, wait_until_serving

pytestmark = pytest.mark.slow


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, llm: FakeOpenAI) -> Path:
    root = tmp_path / "mcps"
    root.mkdir()
    for name in ("memorizer_mcp", "echo_mcp"):
        (root / name).symlink_to(package_dir(name), target_is_directory=True)
    for key, value in {
        **fake_llm_agent_env(tmp_path, llm.api_base),
        "ANNABELLE_MCPS_ROOT": str(root),
        "GUARDIAN_FAIL_MODE": "open",
        "ANNABELLE_TIMEZONE": "UTC",
    }.items():
        monkeypatch.setenv(key, value)
    llm.reset()
    return tmp_path


class Hub:
    """The app under test with its scheduler's clock in the test's hands."""

    def __init__(self, client: TestClient, clock: FakeClock) -> None:
        self.client = client
        self.clock = clock

    @property
    def scheduler(self) -> SkillScheduler:
        return self.client.app.state.skills  # type: ignore[attr-defined,no-any-return]

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.client.post("/tools/call", json={"name": name, "arguments": arguments}).json()  # type: ignore[no-any-return]

    def tick(self) -> list[Any]:
        return self.client.portal.call(functools.partial(self.scheduler.tick, wait=True))  # type: ignore[union-attr]

    def skill(self, skill_id: int) -> dict[str, Any]:
        envelope = self.call("memory_get_skill", {"skill_id": skill_id})
        assert envelope["success"], envelope
        return envelope["data"]["skill"]  # type: ignore[no-any-return]


@contextmanager
def running_hub(clock: FakeClock) -> Iterator[Hub]:
    app = create_app(load_settings(OrchestratorSettings))
    app.state.skills.clock = clock
    app.state.skills.run_loop = False
    with TestClient(app) as client:
        wait_until_serving(client)
        client.headers["X-Annabelle-Token"] = (
            (Path(app.state.hub.settings.annabelle_home) / "annabelle.token").read_text().strip()
        )
        yield Hub(client, clock)


def real_now() -> datetime:
    # Memorizer stamps created_at with the real clock, so the fake clock starts there.
    return datetime.now(UTC).replace(microsecond=0)


def test_a_direct_skill_fires_through_the_hub_with_no_llm_request(env: Path, llm: FakeOpenAI) -> None:
    clock = FakeClock(real_now())
    with running_hub(clock) as hub:
        stored = hub.call(
            "memory_store_skill",
            {
                "name": "Echo every minute",
                "cronExpression": "* * * * *",
                "execution_plan": [{"tool": "echo_echo", "params": {"text": "tick"}}],
            },
        )
        assert stored["success"], stored
        assert any("trigger_config" in warning for warning in stored["data"]["warnings"])
        skill_id = stored["data"]["skill_id"]
        # From the real time of storing (a slow start may have crossed a minute since the clock was made).
        clock.now = (real_now() + timedelta(minutes=1)).replace(second=0)
        fired = hub.tick()
        assert [due.skill["id"] for due in fired] == [skill_id]
        record = hub.skill(skill_id)
        assert record["last_run_status"] == "success" and "tick" in record["last_run_summary"]
        assert record["trigger_type"] == "cron" and record["trigger_config"]["schedule"] == "* * * * *"
    assert llm.requests == []


def test_the_hook_refuses_unknown_tools_and_bad_schedules_and_stores_nothing(env: Path) -> None:
    with running_hub(FakeClock(real_now())) as hub:
        unknown = hub.call(
            "memory_store_skill",
            {"name": "Bad", "instructions": "x", "required_tools": ["echo_ecko"], "interval_minutes": 5},
        )
        assert unknown["errorCode"] == "INVALID_ARGUMENTS" and "echo_echo" in unknown["error"]
        never = hub.call("memory_store_skill", {"name": "Never", "instructions": "x", "schedule": "0 0 31 2 *"})
        assert never["errorCode"] == "INVALID_ARGUMENTS" and "never fires" in never["error"]
        names = [s["name"] for s in hub.call("memory_list_skills", {})["data"]["skills"]]
        assert "Bad" not in names and "Never" not in names


def test_a_reminder_said_in_plain_fields_is_stored_as_cron_and_moved_by_its_days_alone(env: Path) -> None:
    with running_hub(FakeClock(real_now())) as hub:
        stored = hub.call(
            "memory_store_skill",
            {
                "name": "Standup",
                "trigger_type": "cron",
                "instructions": "Remind me to check the standup notes.",
                "trigger_config": {"every": "weekday", "time": "8.15"},
            },
        )
        assert stored["success"], stored
        skill_id = stored["data"]["skill_id"]
        assert hub.skill(skill_id)["trigger_config"]["schedule"] == "15 8 * * 1-5"
        # The answer says what was stored in words, with its next runs, for the model to repeat to the owner.
        assert stored["data"]["runs"].startswith("At 08:15, Monday through Friday (")
        assert "; next " in stored["data"]["runs"]
        moved = hub.call("memory_update_skill", {"skill_id": skill_id, "trigger_config": {"every": "sunday"}})
        assert moved["success"], moved
        assert hub.skill(skill_id)["trigger_config"]["schedule"] == "15 8 * * 0"
        assert moved["data"]["runs"].startswith("At 08:15, only on Sunday (")
        unclear = hub.call(
            "memory_store_skill", {"name": "Vague", "instructions": "x", "trigger_config": {"every": "fortnight"}}
        )
        assert unclear["errorCode"] == "INVALID_ARGUMENTS" and "weekday" in unclear["error"]


def test_backoff_and_auto_disable_survive_a_hub_restart(env: Path) -> None:
    clock = FakeClock(real_now())
    plan = [{"toolName": "echo_sleep", "parameters": {"seconds": 100}}]  # refused by the tool's schema: fails
    with running_hub(clock) as hub:
        skill_id = hub.call("memory_store_skill", {"name": "Flaky", "interval_minutes": 1, "execution_plan": plan})[
            "data"
        ]["skill_id"]
        for _ in range(2):
            clock.advance(minutes=2)
            hub.tick()
        assert hub.skill(skill_id)["consecutive_failures"] == 2
    with running_hub(clock) as hub:  # a new hub process state: only Memorizer remembers
        record = hub.skill(skill_id)
        assert record["consecutive_failures"] == 2 and record["backoff_until"] is not None
        clock.advance(minutes=2)
        assert hub.tick() == []  # still inside the 5-minute backoff
        for _ in range(3):
            clock.advance(minutes=61)
            hub.tick()
        record = hub.skill(skill_id)
        assert record["consecutive_failures"] == 5 and record["enabled"] is False
        enabled = hub.client.post(f"/skills/{skill_id}/enable").json()
        assert enabled["success"] is True
        record = hub.skill(skill_id)
        assert record["enabled"] is True and record["consecutive_failures"] == 0


def test_seeds_are_installed_and_skill_files_sync_on_change(env: Path) -> None:
    home = Path(load_settings(OrchestratorSettings).annabelle_home)
    folder = home / "skills" / "echoer"
    folder.mkdir(parents=True)
    text = (
        '---\nname: echoer\ndescription: Echoes\nmetadata:\n  trigger_config:\n    schedule: "{}"\n'
        "  execution_plan:\n    - {{toolName: echo_echo, parameters: {{text: file}}}}\n---\nEcho.\n"
    )
    (folder / "SKILL.md").write_text(text.format("0 9 * * *"))
    with running_hub(FakeClock(real_now())) as hub:
        skills = {s["name"]: s for s in hub.call("memory_list_skills", {})["data"]["skills"]}
        assert {"email-triage", "Morning Briefing", "echoer"} <= set(skills)
        assert skills["Morning Briefing"]["enabled"] is False  # gmail is not running here
        assert skills["echoer"]["trigger_config"]["source"] == "file:echoer"
        (folder / "SKILL.md").write_text(text.format("15 10 * * *"))
        hub.client.portal.call(hub.scheduler.installer.sync_files)  # type: ignore[union-attr]
        assert hub.skill(skills["echoer"]["id"])["trigger_config"]["schedule"] == "15 10 * * *"
        (folder / "SKILL.md").unlink()
        hub.client.portal.call(hub.scheduler.installer.sync_files)  # type: ignore[union-attr]
        assert hub.skill(skills["echoer"]["id"])["enabled"] is False
        listing = hub.client.get("/skills").json()
        assert listing["success"] and all("next_run_at" in s for s in listing["skills"])


def test_an_agent_skill_is_offered_only_its_required_tools(env: Path, llm: FakeOpenAI) -> None:
    # A real hub process: the Thinker it starts reaches the hub's tools over HTTP.
    llm.reply(Reply.tool("echo_echo", {"text": "sandboxed"}), "Echoed sandboxed.")
    (env / "work").mkdir()
    with start_hub(env / "work", env / "hub-home", ["memorizer_mcp", "echo_mcp"]) as hub:
        stored = hub.call(
            "memory_store_skill",
            {
                "name": "Sandboxed",
                "instructions": "Echo 'sandboxed'.",
                "required_tools": "echo_echo",
                "trigger_type": "manual",
                "notify_on_completion": "false",
            },
        )
        assert stored["success"], stored
        skill_id = stored["data"]["skill_id"]
        with hub.client() as client:
            ran = client.post(f"/skills/{skill_id}/run", timeout=120).json()
        # The same hub from the terminal: `annabelle skills list|disable`.
        cli_env = {"ORCHESTRATOR_URL": hub.url, "ANNABELLE_TOKEN": hub.token}
        listed = CliRunner().invoke(cli.app, ["skills", "list"], env=cli_env)
        assert listed.exit_code == 0 and f"#{skill_id} Sandboxed @annabelle — manual — last success" in listed.output
        disabled = CliRunner().invoke(cli.app, ["skills", "disable", str(skill_id)], env=cli_env)
        assert disabled.exit_code == 0 and "Sandboxed: disabled" in disabled.output
        assert hub.call("memory_get_skill", {"skill_id": skill_id})["data"]["skill"]["enabled"] is False
    assert ran["success"] is True and ran["status"] == "success" and ran["summary"] == "Echoed sandboxed.", ran
    assert llm.requests[0].tool_names == ["echo_echo"]
