"""`MCP_WARM_UP`: once the hub serves, it makes each MCP's declared warm-up call (manifest `warmUp`) through
`Hub.call`: Guardian scans one sentence, the Memorizer searches an agent nobody has. A warm-up that fails is a log
line; the hub serves all the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.hub_process import TEST_MCPS, RunningHub, start_hub
from tests.stack import wait_for

pytestmark = pytest.mark.slow

TIMEOUT = 120.0
# Guardian builds its tokeniser in one call that holds its GIL: on a saturated machine that outlasts the default
# health probe timeout and the hub restarts it mid-warm-up (docs/benchmarks.md). These tests are not about probes.
PATIENT_PROBE = {"MCP_HEALTH_TIMEOUT_SECONDS": "60"}


def log_records(hub: RunningHub) -> list[dict[str, object]]:
    records = []
    for line in (hub.home / "logs" / "orchestrator.log").read_text().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def warm_up_records(hub: RunningHub) -> list[dict[str, object]]:
    return [record for record in log_records(hub) if str(record.get("msg", "")).startswith("mcp warm")]


def test_guardian_then_the_memorizer_warm_up_after_the_hub_is_ready(tmp_path: Path) -> None:
    env = {"MCP_WARM_UP": "true", **PATIENT_PROBE}
    with start_hub(tmp_path, tmp_path / "home", ["guardian_mcp", "memorizer_mcp"], env=env) as hub:
        warmed = wait_for(lambda: len(found := warm_up_records(hub)) >= 2 and found, TIMEOUT, "two warm-ups")
        assert [(record["msg"], record["mcp"]) for record in warmed] == [
            ("mcp warmed up", "guardian"),
            ("mcp warmed up", "memory"),
        ]
        messages = [record.get("msg") for record in log_records(hub)]
        assert messages.index("hub ready") < messages.index("mcp warmed up")
        # Guardian really read the sentence with its model: one audit entry, from the warm-up.
        audit = [json.loads(line) for line in (hub.home / "logs" / "guardian-audit.jsonl").read_text().splitlines()]
        assert [entry["source"] for entry in audit] == ["warm-up"]
        # The Memorizer's search was a read: the agent it searched has nothing, before or after.
        stats = hub.call("memory_get_memory_stats", {"agent_id": "warm-up"})
        assert stats["success"] and stats["data"]["fact_count"] == 0
        # Nothing new for an agent to see or call.
        with hub.client() as client:
            names = {tool["name"] for tool in client.get("/tools/list").json()["tools"]}
        assert not any("warm" in name for name in names)


def test_a_failed_warm_up_is_a_log_line_and_the_hub_serves(tmp_path: Path) -> None:
    unopenable = tmp_path / "a-folder-not-a-database"
    unopenable.mkdir()
    env = {"MCP_WARM_UP": "true", "MEMORY_DB_PATH": str(unopenable), **PATIENT_PROBE}
    with start_hub(tmp_path, tmp_path / "home", ["guardian_mcp", "memorizer_mcp"], env=env) as hub:
        warmed = wait_for(lambda: len(found := warm_up_records(hub)) >= 2 and found, TIMEOUT, "two warm-ups")
        assert warmed[0]["msg"] == "mcp warmed up" and warmed[0]["mcp"] == "guardian"
        assert warmed[1]["msg"] == "mcp warm-up failed" and warmed[1]["mcp"] == "memory"
        assert "cannot be opened" in str(warmed[1]["error"])
        with hub.client() as client:
            assert client.get("/health").json()["status"] == "ok"
        assert hub.status()["mcps"]["memory"]["available"]


def test_a_warm_up_that_could_change_something_is_refused(tmp_path: Path) -> None:
    """Only a tool annotated read-only is called: echo's `crash` (a write) declared as its warm-up is not made."""
    package = tmp_path / "mcps-root" / "echo_mcp"
    shutil.copytree(TEST_MCPS / "echo_mcp", package)
    manifest = json.loads((package / "manifest.json").read_text())
    (package / "manifest.json").write_text(json.dumps({**manifest, "warmUp": {"tool": "crash"}}))
    with start_hub(tmp_path, tmp_path / "home", ["echo_mcp"], env={"MCP_WARM_UP": "true"}) as hub:
        refused = wait_for(lambda: warm_up_records(hub), TIMEOUT, "the warm-up's log line")
        assert refused == [
            {**refused[0], "msg": "mcp warm-up refused", "tool": "echo_crash", "reason": "the tool is not read-only"}
        ]
        echo = hub.status()["mcps"]["echo"]
        assert echo["state"] == "ready" and echo["restarts"] == 0
