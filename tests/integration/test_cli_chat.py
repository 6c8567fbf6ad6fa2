"""`annabelle chat` as a real process against a real hub and the fake LLM: piped lines, slash commands, --reset,
/exit, and a clear sentence when no hub is running."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.hub_process import REPO_ROOT, RunningHub, fake_llm_agent_env, free_port, start_hub

pytestmark = pytest.mark.slow

ANNABELLE = str(Path(sys.executable).parent / "annabelle")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("cli-chat")
    env = fake_llm_agent_env(workdir, llm.api_base)
    with start_hub(workdir, workdir / "home", ["echo_mcp"], env=env) as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_llm(llm: FakeOpenAI) -> None:
    llm.reset()


def chat(hub_url: str, home: Path, stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANNABELLE_HOME": str(home), "ORCHESTRATOR_URL": hub_url}
    return subprocess.run(
        [ANNABELLE, "chat", *args], input=stdin, capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=120
    )


def test_piped_lines_are_messages_and_slash_commands_work(hub: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply("Hello from the fake model.")
    result = chat(hub.url, hub.home, "/help\n\nhello there\n/exit\nnever sent\n")
    assert result.returncode == 0, result.stderr
    assert "Commands (no LLM involved):" in result.stdout
    assert result.stdout.rstrip().endswith("Hello from the fake model.")
    assert len(llm.requests) == 1 and llm.requests[0].messages[-1]["content"] == "hello there"
    assert "thinking" not in result.stdout + result.stderr and "Traceback" not in result.stderr


def test_reset_clears_the_chat_session_first(hub: RunningHub, llm: FakeOpenAI) -> None:
    llm.reply("First.")
    assert chat(hub.url, hub.home, "remember me\n", "--chat-id", "reset-me").returncode == 0
    session = hub.home / "sessions" / "annabelle" / "reset-me.jsonl"
    assert session.exists()
    result = chat(hub.url, hub.home, "/status\n", "--chat-id", "reset-me", "--reset")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Cleared:") and "MCPs (1/1 up)" in result.stdout
    assert not session.exists()
    assert len(llm.requests) == 1


def test_a_halted_answer_is_shown_and_the_exit_code_says_so(hub: RunningHub, llm: FakeOpenAI) -> None:
    result = chat(hub.url, hub.home, "/kill thinker\nhi\n/resume thinker\n")
    assert result.returncode == 1
    assert "Annabelle's thinker is halted" in result.stdout and "Resumed: thinker." in result.stdout
    assert llm.requests == []


def test_without_a_hub_the_chat_says_how_to_start_one(annabelle_home: Path) -> None:
    home = annabelle_home
    (home / "annabelle.token").write_text("t\n")
    result = chat(f"http://127.0.0.1:{free_port()}", home, "hello\n")
    assert result.returncode == 1
    assert "The hub is not running at http://127.0.0.1:" in result.stderr and "annabelle up" in result.stderr
    assert "Traceback" not in result.stderr
