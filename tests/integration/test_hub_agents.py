"""Agents in the hub: per-agent tokens limited to the agent's tools, the agent list, agents.json errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from orchestrator.app import create_app
from orchestrator.settings import OrchestratorSettings
from shared.settings import load_settings
from tests.hub_process import TEST_MCPS, launch_hub, wait_until_serving

AGENTS = {
    "agents": [
        {"agentId": "narrow", "port": 18999, "allowedTools": ["echo_*", "get_status"], "deniedTools": ["echo_sleep"]},
        {"agentId": "wide", "port": 18998},
    ]
}


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    config = tmp_path / "agents.json"
    config.write_text(json.dumps(AGENTS))
    monkeypatch.setenv("AGENTS_CONFIG", str(config))
    monkeypatch.setenv("ANNABELLE_MCPS_ROOT", str(TEST_MCPS))
    app = create_app(load_settings(OrchestratorSettings))
    with TestClient(app) as test_client:
        wait_until_serving(test_client)
        test_client.headers["X-Annabelle-Token"] = (
            (Path(app.state.hub.settings.annabelle_home) / "annabelle.token").read_text().strip()
        )
        yield test_client


def agent_token(client: TestClient, agent_id: str) -> dict[str, str]:
    return {"X-Annabelle-Token": client.app.state.agents.agents[agent_id].token}  # type: ignore[attr-defined]


def test_an_agent_token_lists_only_the_tools_the_agent_may_use(client: TestClient) -> None:
    names = {tool["name"] for tool in client.get("/tools/list", headers=agent_token(client, "narrow")).json()["tools"]}
    assert names == {"echo_echo", "echo_crash", "echo_freeze", "get_status"}
    everything = {tool["name"] for tool in client.get("/tools/list").json()["tools"]}
    assert {"echo_sleep", "get_tool_catalog"} <= everything


def test_an_agent_token_cannot_call_a_denied_tool_and_the_tool_never_runs(client: TestClient) -> None:
    denied = client.post(
        "/tools/call", json={"name": "echo_sleep", "arguments": {"seconds": 0}}, headers=agent_token(client, "narrow")
    ).json()
    assert denied["errorCode"] == "NOT_ALLOWED" and "narrow" in denied["error"]
    outside = client.post(
        "/tools/call", json={"name": "get_tool_catalog"}, headers=agent_token(client, "narrow")
    ).json()
    assert outside["errorCode"] == "NOT_ALLOWED"
    allowed = client.post(
        "/tools/call", json={"name": "echo_echo", "arguments": {"text": "hi"}}, headers=agent_token(client, "narrow")
    ).json()
    assert allowed["success"] is True


def test_an_agent_without_limits_may_call_everything(client: TestClient) -> None:
    envelope = client.post("/tools/call", json={"name": "get_tool_catalog"}, headers=agent_token(client, "wide")).json()
    assert envelope["success"] is True


def test_agent_tokens_open_only_the_tool_endpoints(client: TestClient) -> None:
    for path in ("/status", "/agents"):
        assert client.get(path, headers=agent_token(client, "wide")).status_code == 401
    assert client.post("/message", json={"message": "hi"}, headers=agent_token(client, "wide")).status_code == 401


def test_the_agent_list_shows_each_agent_stopped_until_first_use(client: TestClient) -> None:
    agents = {agent["agentId"]: agent for agent in client.get("/agents").json()["agents"]}
    assert agents["narrow"]["state"] == "stopped" and agents["narrow"]["url"] == "http://127.0.0.1:18999"
    assert "token" not in json.dumps(agents)


def test_unknown_agents_and_bad_bodies_get_clear_answers(client: TestClient) -> None:
    unknown = client.post("/agents/ghost/execute-skill", json={"instructions": "x"}).json()
    assert unknown["success"] is False and "ghost" in unknown["error"] and "narrow" in unknown["error"]
    assert client.post("/agents/narrow/execute-skill", json={"maxSteps": 3}).status_code == 422
    assert client.post("/message", json={"message": ""}).status_code == 422


def test_an_invalid_agents_file_stops_the_hub_with_a_sentence_naming_the_agent(tmp_path: Path) -> None:
    config = tmp_path / "agents.json"
    config.write_text(json.dumps({"agents": [{"agentId": "work", "temperature": 9}]}))
    process, log_path, _ = launch_hub(tmp_path, tmp_path / "home", [], env={"AGENTS_CONFIG": str(config)})
    assert process.wait(timeout=30) != 0
    log = log_path.read_text()
    assert "agent 'work': temperature" in log and "Traceback" not in log
