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
