"""agents.json mistakes end in one sentence naming the agent, the field and the fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shared.agents import AgentsConfigError, load_agents_config


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            {"agents": [{"agentId": "work", "model": "llama3"}]},
            "agent 'work': model: model 'llama3' has no provider prefix; write provider/model, e.g. groq/",
        ),
        (
            {"agents": [{"agentId": "work", "model": "openai/x", "apiBase": "localhost:1234/v1"}]},
            "agent 'work': apiBase: apiBase must be an http:// or https:// URL with a host",
        ),
        ({"agents": [{"agentId": "far", "url": "ftp://thinker"}]}, "agent 'far': url: url must be an http://"),
        (
            {"agents": [{"agentId": "a"}], "bindings": [{"channel": "Tele gram", "agentId": "a"}]},
            "bindings.0.channel: channel 'Tele gram' is not a channel name",
        ),
        (
            {"agents": [{"agentId": "a", "maxOutputTokens": 10}]},
            "agent 'a': maxOutputTokens: Input should be greater than or equal to 64",
        ),
        (
            {"agents": [{"agentId": "a", "port": 8100}, {"agentId": "b", "port": 8100}]},
            "agents must not share a port; repeated: 8100",
        ),
    ],
)
def test_an_invalid_agents_file_says_what_to_fix(tmp_path: Path, raw: dict[str, Any], expected: str) -> None:
    path = tmp_path / "agents.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(AgentsConfigError) as caught:
        load_agents_config(path)
    assert expected in str(caught.value) and "Value error" not in str(caught.value)


def test_valid_urls_are_kept_without_a_trailing_slash_and_wildcard_channels_pass(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    agents = [
        {"agentId": "a", "model": "openai/m", "apiBase": "http://127.0.0.1:1234/v1/"},
        {"agentId": "b", "url": "https://thinker.example:8006/"},
    ]
    bindings = [{"channel": "*", "agentId": "a"}, {"channel": "telegram", "chatId": "42", "agentId": "b"}]
    path.write_text(json.dumps({"agents": agents, "bindings": bindings}))
    config = load_agents_config(path)
    assert (
        config.agents[0].apiBase == "http://127.0.0.1:1234/v1"
        and config.agents[1].url == "https://thinker.example:8006"
    )


ORIGINAL_FILE = {
    "agents": [
        {
            "agentId": "hexa-puffs",
            "enabled": True,
            "port": 8006,
            "llmProvider": "groq",
            "model": "meta-llama/llama-4-maverick-17b-128e-instruct",
            "systemPrompt": "",
            "allowedTools": [],
            "deniedTools": [],
            "temperature": 0.6,
            "maxSteps": 8,
            "idleTimeoutMinutes": 30,
            "costControls": {
                "enabled": True,
                "shortWindowMinutes": 2,
                "spikeMultiplier": 3.0,
                "hardCapTokensPerHour": 250000,
                "minimumBaselineTokens": 1000,
                "notifyChannel": "telegram",
                "notifyChatId": "12345",
            },
        },
        {"agentId": "local", "port": 8007, "llmProvider": "ollama", "model": "qwen2.5:7b", "systemPrompt": ""},
        {"agentId": "studio", "port": 8008, "llmProvider": "lmstudio", "model": "qwen3-8b", "systemPrompt": ""},
    ],
    "bindings": [{"channel": "telegram", "chatId": "*", "agentId": "hexa-puffs"}],
}


def test_the_original_systems_agents_file_is_read_with_its_provider_folded_into_the_model(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    path.write_text(json.dumps(ORIGINAL_FILE))
    config = load_agents_config(path)
    groq, local, studio = config.agents
    assert groq.model == "groq/meta-llama/llama-4-maverick-17b-128e-instruct"
    assert groq.costControls.notifyChatId == "12345"
    assert local.model == "ollama_chat/qwen2.5:7b" and local.apiBase is None
    assert studio.model == "openai/qwen3-8b" and studio.apiBase == "http://127.0.0.1:1234/v1"
    notes = config.compatibility_notes
    assert len(notes) == 3 and all("llmProvider" in note for note in notes)


@pytest.mark.parametrize(
    ("entry", "model", "api_base"),
    [
        ({"llmProvider": "groq", "model": "groq/llama-3.3-70b-versatile"}, "groq/llama-3.3-70b-versatile", None),
        ({"llmProvider": "ollama", "model": "ollama/qwen2.5:7b"}, "ollama/qwen2.5:7b", None),
        (
            {"llmProvider": "LMStudio", "model": "x", "apiBase": "http://10.0.0.2:1234/v1"},
            "openai/x",
            "http://10.0.0.2:1234/v1",
        ),
    ],
)
def test_a_model_that_already_names_its_provider_is_kept_and_an_own_api_base_wins(
    tmp_path: Path, entry: dict[str, Any], model: str, api_base: str | None
) -> None:
    path = tmp_path / "agents.json"
    path.write_text(json.dumps({"agents": [{"agentId": "a", **entry}]}))
    (agent,) = load_agents_config(path).agents
    assert (agent.model, agent.apiBase) == (model, api_base)


def test_a_notify_channel_other_than_telegram_is_ignored_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    raw = {"agents": [{"agentId": "a", "model": "groq/x", "costControls": {"notifyChannel": "slack"}}]}
    path.write_text(json.dumps(raw))
    config = load_agents_config(path)
    (note,) = config.compatibility_notes
    assert "notifyChannel 'slack' ignored" in note


def test_an_unknown_original_provider_and_a_misspelt_key_are_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    path.write_text(json.dumps({"agents": [{"agentId": "a", "llmProvider": "azure", "model": "x"}]}))
    with pytest.raises(AgentsConfigError, match="llmProvider 'azure' is not one of the original's providers"):
        load_agents_config(path)
    path.write_text(json.dumps({"agents": [{"agentId": "a", "model": "groq/x", "temprature": 0.2}]}))
    with pytest.raises(AgentsConfigError, match="temprature"):
        load_agents_config(path)
