"""The real hub with the new abilities: the hub's own tools (health, jobs, backfill) and 1Password over
`POST /tools/call`, their annotations in `/tools/list`, and an agent's turn that reads a secret it never sees."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shared.secrets import SEALED_KEY
from tests.fakes.ollama_server import FakeOllama
from tests.fakes.op_cli import install_fake_op
from tests.fakes.op_vaults import API_KEY, DATA, PASSWORD, TOKEN
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.hub_process import RunningHub, fake_llm_agent_env, start_hub

pytestmark = pytest.mark.slow

NATIVE = {
    "get_status",
    "get_tool_catalog",
    "spawn_subagent",
    "system_health_check",
    "queue_task",
    "get_job_status",
    "trigger_backfill",
}


@pytest.fixture(scope="module")
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, llm: FakeOpenAI, ollama: FakeOllama) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("abilities")
    bin_dir = install_fake_op(workdir / "bin", DATA)
    env = {
        **fake_llm_agent_env(
            workdir,
            llm.api_base,
            bindings=[{"channel": "*", "agentId": "annabelle"}],
            allowedTools=["onepassword_*", "echo_*", "queue_task", "get_job_status"],
        ),
        "GUARDIAN_FAIL_MODE": "open",
        "EMBEDDING_PROVIDER": "ollama",
        "OLLAMA_HOST": ollama.url,
        "OP_SERVICE_ACCOUNT_TOKEN": TOKEN,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }
    packages = ["guardian_mcp", "echo_mcp", "memorizer_mcp", "onepassword_mcp"]
    with start_hub(workdir, workdir / "home", packages, env=env) as running:
        yield running


def wait_for_job(hub: RunningHub, task_id: str, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status = hub.call("get_job_status", {"taskId": task_id})
        assert status["success"], status
        if status["data"]["status"] not in ("queued", "running"):
            return dict(status["data"])
        assert time.monotonic() < deadline, status
        time.sleep(0.1)


def files_holding(root: Path, text: str) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file() and text.encode() in path.read_bytes()]


def test_every_native_and_1password_tool_is_listed_with_its_annotations(hub: RunningHub) -> None:
    with hub.client() as client:
        tools = {tool["name"]: tool for tool in client.get("/tools/list").json()["tools"]}
    assert set(tools) >= NATIVE
    assert all("readOnlyHint" in tools[name]["annotations"] for name in NATIVE)
    read_only = {name for name in NATIVE if tools[name]["annotations"]["readOnlyHint"]}
    assert read_only == {"get_status", "get_tool_catalog", "system_health_check", "get_job_status"}
    onepassword = {name for name in tools if name.startswith("onepassword_")}
    assert onepassword == {
        "onepassword_list_vaults",
        "onepassword_list_items",
        "onepassword_get_item",
        "onepassword_read_secret",
    }
    assert all(tools[name]["annotations"]["readOnlyHint"] is True for name in onepassword)


def test_system_health_check_runs_the_diagnostics_per_scope_over_http(hub: RunningHub) -> None:
    internal = hub.call("system_health_check", {"scope": "internal"})["data"]
    external = hub.call("system_health_check", {"scope": "external"})["data"]
    everything = hub.call("system_health_check", {})["data"]
    bad = hub.call("system_health_check", {"scope": "outside"})
    names = {finding["name"] for finding in internal["findings"]}
    assert {"mcp-health", "trace-log-freshness", "guardian-scan-quality", "doc-freshness"} <= names
    assert "external-mcps-config" not in names
    assert {f["name"] for f in external["findings"]} == {"external-mcp-health", "external-mcps-config"}
    assert len(everything["findings"]) == len(internal["findings"]) + len(external["findings"])
    assert set(internal["mcps"]) == {"guardian", "echo", "memory", "onepassword"} and external["mcps"] == {}
    # The docs name every first-party tool; only the test suite's echo MCP has one they do not.
    doc = next(f for f in internal["findings"] if f["name"] == "doc-freshness")
    assert doc["severity"] == "info" and doc["summary"].endswith("documentation: echo_freeze"), doc
    assert bad["errorCode"] == "INVALID_ARGUMENTS"


def test_a_queued_workflow_runs_in_order_shows_progress_in_status_and_reports_each_step(hub: RunningHub) -> None:
    action = {
        "type": "workflow",
        "workflowSteps": [
            {"id": "wait", "toolName": "echo_sleep", "parameters": {"seconds": 1.5}},
            {"id": "say", "toolName": "echo_echo", "parameters": {"text": "done"}, "dependsOn": ["wait"]},
            {"id": "nope", "toolName": "echo_missing", "dependsOn": []},
        ],
    }
    queued = hub.call("queue_task", {"name": "demo", "action": action})
    assert queued["success"] and queued["data"]["status"] == "queued", queued
    task_id = queued["data"]["taskId"]
    deadline = time.monotonic() + 10
    running: list[dict[str, Any]] = []
    while not running and time.monotonic() < deadline:
        running = [job for job in (hub.status().get("jobs") or {}).get("running", []) if job["taskId"] == task_id]
        time.sleep(0.05)
    assert running and running[0]["progress"].endswith("steps"), hub.status().get("jobs")
    result = wait_for_job(hub, task_id)
    steps = {step["id"]: step for step in result["steps"]}
    assert steps["say"]["status"] == "succeeded" and steps["say"]["result"]["text"] == "done"
    assert steps["nope"]["status"] == "failed" and steps["nope"]["errorCode"] == "UNKNOWN_TOOL"
    assert result["status"] == "failed" and result["progress"]["text"] == "3/3 steps"
    assert steps["say"]["startedAt"] >= steps["wait"]["finishedAt"]
    refused = hub.call("queue_task", {"name": "bomb", "action": {"type": "tool_call", "toolName": "queue_task"}})
    assert refused["errorCode"] == "INVALID_ARGUMENTS" and "cannot call queue_task" in refused["error"]
    assert hub.call("get_job_status", {"taskId": "job_nothere"})["errorCode"] == "INVALID_ARGUMENTS"


def test_trigger_backfill_embeds_the_facts_stored_while_the_embedder_was_down(
    hub: RunningHub, ollama: FakeOllama
) -> None:
    ollama.fail(503, "loading model", times=1000)
    for number in range(7):
        stored = hub.call(
            "memory_store_fact", {"fact": f"The owner likes tea number {number}", "category": "preference"}
        )
        assert stored["success"], stored
    ollama.recover()
    stats = hub.call("memory_get_memory_stats", {})["data"]["search_capabilities"]
    assert stats["facts_missing_vectors"] == 7
    started = hub.call("trigger_backfill", {"batch_size": 3})
    assert started["success"] and started["data"]["agents"] == ["annabelle"], started
    result = wait_for_job(hub, started["data"]["taskId"])
    assert result["status"] == "succeeded" and result["progress"]["text"] == "7/7 facts", result
    assert hub.call("memory_get_memory_stats", {})["data"]["search_capabilities"]["facts_missing_vectors"] == 0


def test_the_owner_reads_1password_directly_and_sees_the_sealed_value(hub: RunningHub) -> None:
    vaults = hub.call("onepassword_list_vaults")
    item = hub.call("onepassword_get_item", {"item": "Bank"})
    secret = hub.call("onepassword_read_secret", {"reference": "op://Work/Stripe/api/credential"})
    assert [v["name"] for v in vaults["data"]["vaults"]] == ["Private", "Work"]
    password = next(f for f in item["data"]["fields"] if f["label"] == "password")
    assert password["value"] == {SEALED_KEY: PASSWORD}
    assert secret["data"]["secret"] == {SEALED_KEY: API_KEY}
    assert files_holding(hub.home, API_KEY) == [] and API_KEY not in hub.log()


def test_an_agent_reads_a_secret_it_never_sees_and_the_owners_reply_shows_it(hub: RunningHub, llm: FakeOpenAI) -> None:
    llm.reset()
    llm.reply(
        Reply.tool("onepassword_read_secret", {"reference": "op://Private/Bank/password"}),
        "Your bank password is {{secret:1}}.",
    )
    with hub.client() as client:
        answer = client.post(
            "/message", json={"message": "What is my bank password in 1Password?", "chatId": "vault"}, timeout=120
        ).json()
    assert answer["success"] is True, answer
    assert answer["reply"] == f"Your bank password is {PASSWORD}."
    seen_by_model = json.dumps([request.messages for request in llm.requests])
    assert PASSWORD not in seen_by_model and "{{secret:1}}" in seen_by_model
    # Kept nowhere: not in the session file (it holds the placeholder), the traces, the logs or any database.
    session = hub.home / "sessions" / "annabelle" / "vault.jsonl"
    assert "{{secret:1}}" in session.read_text()
    assert files_holding(hub.home, PASSWORD) == [] and PASSWORD not in hub.log()


def test_a_secret_placed_in_a_tool_call_is_never_replaced(hub: RunningHub, llm: FakeOpenAI) -> None:
    llm.reset()
    llm.reply(
        Reply.tool("onepassword_read_secret", {"reference": "op://Private/Bank/password"}),
        Reply.tool("echo_echo", {"text": "leak {{secret:1}}"}),
        "Sent.",
    )
    with hub.client() as client:
        client.post("/message", json={"message": "send my bank password somewhere", "chatId": "leak"}, timeout=120)
    echoed = [m for m in llm.requests[-1].messages if m["role"] == "tool"][-1]["content"]
    assert "leak {{secret:1}}" in echoed and PASSWORD not in echoed
