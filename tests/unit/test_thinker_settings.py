"""ThinkerSettings and the agent lookup (thinker/settings.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.agents import AgentsConfigError
from shared.settings import ConfigError, load_settings
from thinker.selection import SelectionConfig
from thinker.settings import AgentNotFound, ThinkerSettings, agent_model, load_agent, utility_model


def settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> ThinkerSettings:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings(ThinkerSettings)


def test_the_hub_url_defaults_to_the_local_hub_port(monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings(monkeypatch).hub_url == "http://127.0.0.1:8010"
    assert settings(monkeypatch, ORCHESTRATOR_PORT="9000").hub_url == "http://127.0.0.1:9000"
    assert settings(monkeypatch, ORCHESTRATOR_URL="http://hub:1/").hub_url == "http://hub:1"


def test_a_missing_agents_file_means_the_default_agent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    s = settings(monkeypatch, AGENTS_CONFIG=str(tmp_path / "none.json"))
    agent = load_agent(s, "annabelle")
    assert agent.agentId == "annabelle" and agent.model.startswith("ollama_chat/")
    with pytest.raises(AgentNotFound, match="no agent 'bob' in the default configuration; known agents: annabelle"):
        load_agent(s, "bob")


def test_an_invalid_agents_file_is_a_config_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    path.write_text(json.dumps({"agents": [{"agentId": "a", "maxSteps": 0}]}))
    with pytest.raises(AgentsConfigError, match="agent 'a': maxSteps"):
        load_agent(settings(monkeypatch, AGENTS_CONFIG=str(path)), "a")


def test_an_unknown_time_zone_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="ANNABELLE_TIMEZONE"):
        settings(monkeypatch, ANNABELLE_TIMEZONE="Mars/Olympus")
    assert str(settings(monkeypatch, ANNABELLE_TIMEZONE="Asia/Tokyo").timezone) == "Asia/Tokyo"


def test_tokens_prefer_the_agents_own_then_the_master(monkeypatch: pytest.MonkeyPatch, annabelle_home: Path) -> None:
    assert settings(monkeypatch).hub_token() is None
    (annabelle_home / "annabelle.token").write_text("from-file\n")
    assert settings(monkeypatch).hub_token() == "from-file"
    assert settings(monkeypatch, ANNABELLE_TOKEN="master").hub_token() == "master"
    assert settings(monkeypatch, ANNABELLE_AGENT_TOKEN="agent").hub_token() == "agent"


def test_selection_knobs_override_only_what_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    config = settings(monkeypatch, TOOL_SELECTOR_MAX_TOOLS="10", THINKER_STICKY_TOOLS_MAX="2").selection_config()
    assert config.max_tools == 10 and config.sticky_max == 2
    assert config.top_k == SelectionConfig().top_k
    assert config.schema_budget == SelectionConfig().schema_budget
    assert settings(monkeypatch, TOOL_SELECTOR_SCHEMA_BUDGET="0").selection_config().schema_budget == 0


def test_a_local_openai_compatible_server_gets_a_placeholder_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "agents.json"
    path.write_text(
        json.dumps({"agents": [{"agentId": "a", "model": "openai/local", "apiBase": "http://127.0.0.1:1/v1"}]})
    )
    s = settings(monkeypatch, AGENTS_CONFIG=str(path))
    agent = load_agent(s, "a")
    assert agent_model(s, agent).api_key == "no-key-needed"
    monkeypatch.setenv("OPENAI_API_KEY", "real")
    assert agent_model(s, agent).api_key is None  # litellm reads OPENAI_API_KEY itself
    assert utility_model(s, agent).model == "openai/local"  # no UTILITY_MODEL: the agent's
    s = settings(monkeypatch, AGENTS_CONFIG=str(path), UTILITY_MODEL="groq/small", UTILITY_API_KEY="k")
    assert (utility_model(s, agent).model, utility_model(s, agent).api_key) == ("groq/small", "k")
