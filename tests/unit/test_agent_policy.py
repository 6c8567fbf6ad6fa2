from __future__ import annotations

import pytest

from orchestrator.policy import resolve_agent, tool_allowed
from shared.agents import AgentDefinition, Binding


def agent(agent_id: str = "a", **fields: object) -> AgentDefinition:
    return AgentDefinition.model_validate({"agentId": agent_id, **fields})


@pytest.mark.parametrize(
    ("allowed", "denied", "tool", "expected"),
    [
        ([], [], "filer_delete_file", True),
        (["filer_*", "get_status"], [], "filer_read_file", True),
        (["filer_*", "get_status"], [], "memory_store_fact", False),
        ([], ["gmail_send_*"], "gmail_send_email", False),
        ([], ["gmail_send_*"], "gmail_list_emails", True),
        (["gmail_*"], ["gmail_send_*"], "gmail_send_email", False),
    ],
)
def test_an_agent_may_call_what_its_globs_allow_minus_what_they_deny(
    allowed: list[str], denied: list[str], tool: str, expected: bool
) -> None:
    assert tool_allowed(agent(allowedTools=allowed, deniedTools=denied), tool) is expected


def test_the_master_token_may_call_everything() -> None:
    assert tool_allowed(None, "filer_delete_file")


AGENTS = [agent("work"), agent("home"), agent("off", enabled=False)]


@pytest.mark.parametrize(
    ("bindings", "channel", "chat", "expected"),
    [
        ([], "http", "x", "work"),
        ([Binding(channel="telegram", chatId="42", agentId="home")], "telegram", "42", "home"),
        ([Binding(channel="telegram", chatId="42", agentId="home")], "telegram", "7", "work"),
        (
            [
                Binding(channel="telegram", chatId="*", agentId="home"),
                Binding(channel="telegram", chatId="7", agentId="work"),
            ],
            "telegram",
            "7",
            "work",
        ),
        ([Binding(channel="*", agentId="home")], "http", "x", "home"),
        ([Binding(channel="http", agentId="off")], "http", "x", "work"),
    ],
)
def test_bindings_resolve_exact_then_any_chat_then_any_channel_then_the_first_agent(
    bindings: list[Binding], channel: str, chat: str, expected: str
) -> None:
    assert resolve_agent(bindings, AGENTS, channel, chat) == expected


def test_with_every_agent_disabled_resolution_says_so() -> None:
    with pytest.raises(LookupError, match="disabled"):
        resolve_agent([], [agent("x", enabled=False)], "http", "1")
