"""Slash commands through the real hub (`POST /message`): answers without any LLM request, the kill switch, and
a halt that survives a restart of the hub. The fake LLM records every request it gets."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow

PACKAGES = ["guardian_mcp", "memorizer_mcp", "echo_mcp"]


def hub_env(workdir: Path, llm: FakeOpenAI) -> dict[str, str]:
    return fake_llm_agent_env(workdir, llm.api_base)


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("slash")
    with start_hub(workdir, workdir / "home", PACKAGES, env=hub_env(workdir, llm)) as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_llm(llm: FakeOpenAI) -> None:
    llm.reset()


def send(hub: RunningHub, text: str, chat_id: str = "slash") -> dict[str, Any]:
    with hub.client() as client:
        response = client.post("/message", json={"message": text, "chatId": chat_id}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def command(hub: RunningHub, text: str) -> str:
    answer = send(hub, text)
    assert answer["success"] is True and answer["command"] is True, answer
    return str(answer["reply"])


def test_every_read_only_command_answers_without_an_llm_request(hub: RunningHub, llm: FakeOpenAI) -> None:
    help_text = command(hub, "/help")
    assert "/status [summary]" in help_text and "Memory: " in help_text and "Echo: " in help_text
    status = command(hub, "/STATUS")
    assert "MCPs (3/3 up)" in status and "Halted: none" in status and "Guardian: available" in status
    summary = command(hub, "/status summary")
    assert "assembled without an LLM" in summary and "Memory: 0 facts" in summary and "Skills: " in summary
    assert "warning(s)/error(s)" in command(hub, "/logs 5") or "No warnings" in command(hub, "/logs 5")
    security = command(hub, "/security")
    assert "Guardian: available" in security and "Last 24 h:" in security
    # The shipped skills are seeded in the background at start (24: 17 playbooks, 7 scheduled), most waiting
    # for their tools.
    deadline = time.monotonic() + 30
    while not (cron := command(hub, "/cron")).startswith("Skills: 24 (") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert cron.startswith("Skills: 24 ("), cron
    diagnose = command(hub, "/diagnose")
    assert diagnose.startswith("Diagnose: ") and "mcp-health" in diagnose
    assert command(hub, "/delete today").startswith("/delete only applies to Telegram")
    assert command(hub, "/logs lots").startswith("'lots' is not a positive number.")
    assert llm.requests == []


def test_an_unknown_slash_word_goes_to_the_agent(hub: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply("That path is a file.")
    answer = send(hub, "/etc/hosts — what is it?", chat_id="path")
    assert answer["success"] is True and answer["reply"] == "That path is a file." and "command" not in answer, answer
    assert len(llm.requests) == 1


def test_clear_forgets_the_chat_session(hub: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply("Noted.")
    assert send(hub, "remember this chat", chat_id="forget")["reply"] == "Noted."
    session = hub.home / "sessions" / "annabelle" / "forget.jsonl"
    assert session.exists()
    calls = len(llm.requests)
    answer = send(hub, "/clear", chat_id="forget")
    assert answer["command"] is True and "cleared" in answer["reply"] and not session.exists()
    assert len(llm.requests) == calls


def test_kill_thinker_then_a_message_answers_halted_without_the_llm(hub: RunningHub, llm: FakeOpenAI) -> None:
    killed = command(hub, "/kill thinker testing the switch")
    assert killed.startswith("Halted: thinker.") and "halted: thinker since" in killed
    answer = send(hub, "are you there?")
    assert answer["success"] is False and answer["halted"] is True
    assert "testing the switch" in answer["error"] and "/resume thinker" in answer["error"]
    assert command(hub, "/help").startswith("Commands")  # commands still work while halted
    assert llm.requests == []
    assert command(hub, "/resume thinker").startswith("Resumed: thinker.")
    llm.reply("Here.")
    assert send(hub, "are you there?")["reply"] == "Here."


def test_post_kill_and_resume(hub: RunningHub) -> None:
    with hub.client() as client:
        killed = client.post("/kill", json={"target": "scheduler", "reason": "maintenance"}).json()
        assert killed["success"] is True and killed["message"] == "scheduler halted"
        assert killed["halted"]["targets"] == ["scheduler"] and killed["halted"]["reason"] == "maintenance"
        unknown = client.post("/kill", json={"target": "telegram"})
        assert unknown.status_code == 422
        assert "'all', 'thinker', 'channel' or 'scheduler'" in unknown.json()["error"]
        missing = client.post("/resume", json={})
        assert missing.status_code == 422 and "target" in missing.json()["error"]
        assert client.post("/resume", content=b"").status_code == 400
        resumed = client.post("/resume", json={"target": "all"}).json()
        assert resumed == {"success": True, "message": "all resumed", "halted": resumed["halted"]}
        assert resumed["halted"]["halted"] is False


def test_the_halt_survives_a_restart_of_the_hub(tmp_path: Path, llm: FakeOpenAI) -> None:
    env = hub_env(tmp_path, llm)
    home = tmp_path / "home"
    with start_hub(tmp_path, home, ["echo_mcp"], env=env) as first:
        assert command(first, "/kill all going away").startswith("Halted: thinker, channel, scheduler.")
    assert json.loads((home / "data" / "halt.json").read_text())["targets"]["thinker"]["reason"] == "going away"
    with start_hub(tmp_path, home, ["echo_mcp"], env=env) as second:
        assert "Halted: thinker, channel, scheduler since" in command(second, "/status")
        assert send(second, "hello")["halted"] is True
        assert llm.requests == []
        command(second, "/resume all")
        llm.reply("Back again.")
        assert send(second, "hello")["reply"] == "Back again."
