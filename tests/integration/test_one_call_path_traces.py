"""Every tool call takes `Hub.call`: an HTTP caller's, a slash command's and a scheduled skill's each leave exactly
one `tool_call` trace event per call, naming who called (through the real hub and real MCP processes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hub_process import RunningHub, start_hub

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("call-path")
    env = {"EMBEDDING_PROVIDER": "none", "UTILITY_MODEL": "off", "GUARDIAN_CLASSIFIER": "off"}
    with start_hub(workdir, workdir / "home", ["guardian_mcp", "echo_mcp", "memorizer_mcp"], env=env) as running:
        yield running


def events(home: Path) -> list[dict[str, Any]]:
    path = home / "logs" / "traces.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def tool_calls(home: Path, trace_id: str) -> list[dict[str, Any]]:
    return [e for e in events(home) if e["trace_id"] == trace_id and e["event"] == "tool_call"]


def test_an_http_call_is_one_event_made_by_the_owner(hub: RunningHub) -> None:
    with hub.client() as client:
        answer = client.post(
            "/tools/call", json={"name": "echo_echo", "arguments": {"text": "hi"}}, headers={"X-Trace-Id": "tc-http"}
        ).json()
    assert answer["success"]
    [event] = tool_calls(hub.home, "tc-http")
    assert (event["name"], event["caller"], event["mcp"], event["success"]) == ("echo_echo", "owner", "echo", True)


def test_a_slash_commands_calls_are_one_event_each_made_by_the_command(hub: RunningHub) -> None:
    with hub.client() as client:
        answer = client.post("/message", json={"message": "/cron"}, headers={"X-Trace-Id": "tc-command"}).json()
    assert answer["success"] and answer["command"]
    calls = tool_calls(hub.home, "tc-command")
    assert [(e["name"], e["caller"]) for e in calls] == [("memory_list_skills", "system:/cron")]


def test_a_scheduled_skills_calls_and_its_bookkeeping_share_one_trace_one_event_each(hub: RunningHub) -> None:
    stored = hub.call(
        "memory_store_skill",
        {
            "name": "Echo once",
            "trigger_type": "manual",
            "instructions": "Say hi.",
            "execution_plan": [{"toolName": "echo_echo", "parameters": {"text": "hi"}}],
        },
    )
    assert stored["success"], stored
    skill_id = stored["data"]["skill_id"]
    with hub.client() as client:
        report = client.post(f"/skills/{skill_id}/run").json()
    assert report["status"] == "success", report
    [run] = [e for e in events(hub.home) if e["event"] == "skill_run" and e["skill"] == skill_id]
    calls = tool_calls(hub.home, run["trace_id"])
    by_name = {e["name"]: e for e in calls}
    assert len(calls) == len(by_name) == 2, calls  # the plan's one step, and the run record
    assert by_name["echo_echo"]["caller"] == "agent:annabelle"
    record = by_name["memory_update_skill"]
    assert record["caller"] == "system:skill bookkeeping" and record["scanned"] is False
    assert "false positive would lose a run record" in record["unscanned"]
