"""`python -m thinker` as a real process: the hub's launch contract, start-up errors, `--help`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import REPO_ROOT, RunningHub, free_port, start_hub, stop_process_group

pytest_plugins = ["tests.fakes.fixtures"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("thinker-process-hub")
    with start_hub(workdir, workdir / "home", ["echo_mcp"]) as running:
        yield running


def run_thinker(args: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "thinker", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def base_env(home: Path) -> dict[str, str]:
    return {**os.environ, "ANNABELLE_HOME": str(home), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def test_help_explains_the_command_and_its_configuration(annabelle_home: Path) -> None:
    result = run_thinker(["--help"], base_env(annabelle_home))
    assert result.returncode == 0
    for text in ("--agent-id", "AGENTS_CONFIG", "ORCHESTRATOR_URL", "ANNABELLE_AGENT_TOKEN", "THINKER_PORT"):
        assert text in result.stdout


def test_an_unknown_agent_fails_with_one_sentence_and_exit_code_2(annabelle_home: Path, tmp_path: Path) -> None:
    config = tmp_path / "agents.json"
    config.write_text(json.dumps({"agents": [{"agentId": "annabelle"}, {"agentId": "work"}]}))
    env = {**base_env(annabelle_home), "AGENTS_CONFIG": str(config), "ANNABELLE_AGENT_TOKEN": "t"}
    result = run_thinker(["--agent-id", "nobody"], env)
    assert result.returncode == 2
    assert result.stderr.strip() == f"thinker: There is no agent 'nobody' in {config}; known agents: annabelle, work."


def test_an_invalid_agents_file_fails_naming_the_field(annabelle_home: Path, tmp_path: Path) -> None:
    config = tmp_path / "agents.json"
    config.write_text(json.dumps({"agents": [{"agentId": "annabelle", "temperature": 7}]}))
    env = {**base_env(annabelle_home), "AGENTS_CONFIG": str(config), "ANNABELLE_AGENT_TOKEN": "t"}
    result = run_thinker([], env)
    assert result.returncode == 2 and "agent 'annabelle': temperature" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_setting_fails_naming_the_variable(annabelle_home: Path) -> None:
    env = {**base_env(annabelle_home), "ANNABELLE_TIMEZONE": "Mars/Olympus", "ANNABELLE_AGENT_TOKEN": "t"}
    result = run_thinker([], env)
    assert result.returncode == 2 and "ANNABELLE_TIMEZONE" in result.stderr and "Traceback" not in result.stderr


def test_no_token_at_all_fails_with_the_fix(annabelle_home: Path, tmp_path: Path) -> None:
    env = base_env(annabelle_home)
    env.pop("ANNABELLE_AGENT_TOKEN", None)
    result = run_thinker([], {**env, "AGENTS_CONFIG": str(tmp_path / "missing.json")})
    assert result.returncode == 2 and "ANNABELLE_AGENT_TOKEN" in result.stderr


def test_the_launched_process_serves_a_turn_through_the_hub(
    hub: RunningHub, fake_llm: FakeOpenAI, annabelle_home: Path, tmp_path: Path
) -> None:
    port = free_port()
    config = tmp_path / "agents.json"
    agent = {"agentId": "annabelle", "port": port, "model": "openai/fake", "apiBase": fake_llm.api_base}
    config.write_text(json.dumps({"agents": [agent]}))
    env = {
        **base_env(annabelle_home),
        "AGENTS_CONFIG": str(config),
        "ORCHESTRATOR_URL": hub.url,
        "ANNABELLE_AGENT_TOKEN": hub.token,
        "OPENAI_API_KEY": "test",
        "EMBEDDING_PROVIDER": "none",
    }
    log_path = tmp_path / "thinker.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "thinker", "--agent-id", "annabelle"],
            cwd=REPO_ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        statuses = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, log_path.read_text()
            try:
                response = httpx.get(f"{url}/health", timeout=1)
            except httpx.HTTPError:
                time.sleep(0.05)
                continue
            statuses.append(response.status_code)
            if response.status_code == 200:
                break
            assert response.json()["status"] == "initializing"
            time.sleep(0.05)
        assert statuses and statuses[-1] == 200, log_path.read_text()
        fake_llm.reply(Reply.tool("echo_echo", {"text": "ping"}), "pong")
        body = {"id": "1", "chatId": "p", "senderId": "u", "text": "echo ping", "date": "2026-01-01", "channel": "http"}
        headers = {"X-Annabelle-Token": hub.token}
        # /health is ready before litellm is loaded: the first message waits for that (seconds on a busy machine).
        answer = httpx.post(f"{url}/process-message", json=body, headers=headers, timeout=120).json()
        assert answer == {"success": True, "response": "pong", "toolsUsed": ["echo_echo"], "totalSteps": 2}
        assert httpx.post(f"{url}/process-message", json=body, timeout=5).status_code == 401
        assert (annabelle_home / "agents" / "annabelle" / "instructions.md").exists()
        assert (annabelle_home / "sessions" / "annabelle" / "p.jsonl").exists()
    finally:
        stop_process_group(process)
    assert process.returncode == 0, log_path.read_text()
    # uvicorn's records pass litellm's secret filter, which marks them; the mark is not a field of ours.
    logged = (annabelle_home / "logs" / "thinker.log").read_text()
    assert "Shutting down" in logged and "litellm_redacted" not in logged
