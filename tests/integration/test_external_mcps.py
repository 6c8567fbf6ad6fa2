"""External MCPs with the real hub: a stdio server from the test suite is added, edited and removed while the hub
runs; broken entries are reported and skipped; the start-up diff and every change reach the owner's notifications
(with no channel configured: the log)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.hub_process import REPO_ROOT, RunningHub, free_port, start_hub

pytestmark = pytest.mark.slow

FAST_RELOAD = {"EXTERNAL_MCPS_POLL_SECONDS": "0.1", "EXTERNAL_MCPS_DEBOUNCE_SECONDS": "0.1"}


def suite_server(**entry: Any) -> dict[str, Any]:
    """An entry running tests/mcps/external_mcp (unscanned: these hubs run without Guardian)."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcps.external_mcp"],
        "cwd": str(REPO_ROOT),
        "guardianScan": {"input": False, "output": False},
        **entry,
    }


def write_config(path: Path, servers: dict[str, Any]) -> None:
    # Written whole then renamed, as editors do; the hub must never read half a file either way.
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps({"mcpServers": servers}))
    partial.replace(path)


def tool_names(hub: RunningHub) -> set[str]:
    with hub.client() as client:
        return {tool["name"] for tool in client.get("/tools/list").json()["tools"]}


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    except OSError:
        return False
    return True


def wait_for(condition: Callable[[], bool], hub: RunningHub, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, hub.log()
        time.sleep(0.05)


def notifications(hub: RunningHub) -> list[str]:
    """Notifications the hub logged (no Telegram configured, so each goes to the log only)."""
    log_file = hub.home / "logs" / "orchestrator.log"
    entries = [json.loads(line) for line in log_file.read_text().splitlines() if line.strip()]
    return [entry["text"] for entry in entries if entry.get("kind") == "mcp_change"]


def start(tmp_path: Path, config: Path, **env: str) -> RunningHub:
    return start_hub(
        tmp_path, tmp_path / "home", ["echo_mcp"], env={"EXTERNAL_MCPS_CONFIG": str(config), **FAST_RELOAD, **env}
    )


def test_an_external_server_is_added_edited_and_removed_while_the_hub_runs(tmp_path: Path) -> None:
    config = tmp_path / "external-mcps.json"
    write_config(config, {})
    with start(tmp_path, config) as hub:
        assert not any(name.startswith("ext_") for name in tool_names(hub))

        write_config(config, {"ext": suite_server(env={"GREETING": "Hi"}, label="Ext", toolGroup="Testing")})
        wait_for(lambda: "ext_greet" in tool_names(hub), hub)
        # A plain str result: the SDK's structured form `{"result": ...}` becomes the envelope's data.
        # An external server is not vouched for: its result is marked untrusted (it taints the turn).
        assert hub.call("ext_greet", {"name": "Ann"}) == {
            "success": True,
            "data": {"result": "Hi, Ann!"},
            "untrusted": True,
        }
        with hub.client() as client:
            listing = client.get("/tools/list").json()
        greet = next(tool for tool in listing["tools"] if tool["name"] == "ext_greet")
        assert greet["description"].startswith("[Ext | Testing] Greet someone")
        assert listing["mcps"]["ext"]["external"] is True and listing["mcps"]["echo"]["external"] is False
        assert "ext_remove_item" not in tool_names(hub)  # destructive: hidden unless the entry allows it
        status = hub.status()["mcps"]["ext"]
        assert status["external"] is True and status["available"] and status["pid"]
        first_pid = status["pid"]

        # An edit (new env) restarts the server with its new configuration: new behaviour, new tool.
        write_config(config, {"ext": suite_server(env={"GREETING": "Howdy", "EXTRA_TOOLS": "1"})})
        wait_for(lambda: "ext_shout" in tool_names(hub), hub)
        assert hub.call("ext_greet", {"name": "Ann"})["data"] == {"result": "Howdy, Ann!"}
        assert hub.call("ext_shout", {"text": "hey"})["data"] == {"result": "HEY"}
        assert hub.status()["mcps"]["ext"]["pid"] != first_pid

        write_config(config, {})
        wait_for(lambda: not any(name.startswith("ext_") for name in tool_names(hub)), hub)
        assert hub.call("ext_greet", {"name": "Ann"})["errorCode"] == "UNKNOWN_TOOL"
        assert "ext" not in hub.status()["mcps"]
        assert hub.call("echo_echo", {"text": "still here"})["success"]

        wait_for(lambda: len(notifications(hub)) >= 3, hub)
        added, edited, removed = notifications(hub)[:3]
        assert added == "MCP servers changed: added ext (2 tools)."
        assert edited == "MCP servers changed: reconfigured ext (3 tools)."
        assert removed == "MCP servers changed: removed ext."


def test_broken_entries_are_reported_and_the_rest_still_load(tmp_path: Path) -> None:
    config = tmp_path / "external-mcps.json"
    write_config(
        config,
        {
            "ext": suite_server(),
            "broken": {"args": ["no command"]},
            "needsvar": suite_server(env={"KEY": "${EXTERNAL_TEST_UNSET_VARIABLE}"}),
            "echo": suite_server(),
            "crashes": {"command": sys.executable, "args": ["-c", "raise SystemExit(5)"]},
        },
    )
    with start(tmp_path, config) as hub:
        assert hub.call("ext_greet", {"name": "Bo"})["data"] == {"result": "Hello, Bo!"}
        status = hub.status()
        problems = " ".join(status["externalMcps"]["problems"])
        assert "server 'broken' is invalid (entry: Value error, a stdio server needs 'command'" in problems
        assert "${EXTERNAL_TEST_UNSET_VARIABLE}, which is not set" in problems
        assert "'echo' is already a first-party MCP" in problems
        assert status["mcps"]["crashes"]["state"] == "failed" and "code 5" in status["mcps"]["crashes"]["lastError"]
        assert hub.call("echo_echo", {"text": "first-party"})["success"]

        # A file that is not JSON (a save half done) changes nothing and is reported.
        config.write_text('{"mcpServers": {"ext": ')
        wait_for(lambda: "not valid JSON" in " ".join(hub.status()["externalMcps"]["problems"]), hub)
        assert hub.call("ext_greet", {"name": "Bo"})["success"]


def test_an_external_server_is_scanned_by_default_so_without_guardian_its_calls_are_blocked(tmp_path: Path) -> None:
    config = tmp_path / "external-mcps.json"
    write_config(config, {"ext": {k: v for k, v in suite_server().items() if k != "guardianScan"}})
    with start(tmp_path, config) as hub:
        envelope = hub.call("ext_greet", {"name": "Cy"})
        assert envelope["errorCode"] == "BLOCKED" and "GUARDIAN_FAIL_MODE=closed" in envelope["error"]


def test_a_start_with_other_servers_than_last_time_is_announced(tmp_path: Path) -> None:
    config = tmp_path / "external-mcps.json"
    write_config(config, {"first": suite_server()})
    with start(tmp_path, config) as hub:
        assert hub.call("first_greet", {"name": "Di"})["success"]
        assert notifications(hub) == []  # the first start has nothing to compare with
    write_config(config, {"second": suite_server()})
    with start(tmp_path, config) as hub:
        assert notifications(hub) == [
            "MCP servers changed since the last start: added second (2 tools); removed first."
        ]
    write_config(config, {"second": suite_server(env={"EXTERNAL_TEST_RUN": "3"})})
    with start(tmp_path, config) as hub:
        # Worded as a reload words it: a reconfigured server with its tool count.
        assert notifications(hub)[-1] == "MCP servers changed since the last start: reconfigured second (2 tools)."


def test_a_streamable_http_server_is_reached_with_its_headers_substituted(tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.mcps.external_mcp", "--http", str(port)],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        config = tmp_path / "external-mcps.json"
        entry = {
            "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"Authorization": "Bearer ${EXTERNAL_TEST_TOKEN}"},
            "guardianScan": {"input": False, "output": False},
        }
        write_config(config, {})
        with start(tmp_path, config, EXTERNAL_TEST_TOKEN="s3cret") as hub:
            # Added once the server listens (on a busy machine its start can take longer than the hub's).
            wait_for(lambda: listening(port), hub, timeout=60)
            write_config(config, {"remote": entry})
            wait_for(lambda: "remote_greet" in tool_names(hub), hub)
            assert hub.call("remote_greet", {"name": "Ed"})["data"] == {"result": "Hello, Ed!"}
            assert hub.call("remote_authorization")["data"] == {"result": "Bearer s3cret"}
            remote = hub.status()["mcps"]["remote"]
            assert remote["external"] is True and remote["available"] and remote["pid"] is None
    finally:
        server.terminate()
        server.wait(timeout=10)


def serve_sse(port: int) -> subprocess.Popen[bytes]:
    """The suite's external MCP over HTTP+SSE on 127.0.0.1:`port`, once it accepts connections."""
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.mcps.external_mcp", "--sse", str(port)],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            assert time.monotonic() < deadline and server.poll() is None, "the SSE test server did not start"
            time.sleep(0.05)


def test_an_sse_server_works_like_an_http_one(tmp_path: Path) -> None:
    port = free_port()
    server = serve_sse(port)
    try:
        config = tmp_path / "external-mcps.json"
        entry = {
            "type": "sse",
            "url": f"http://127.0.0.1:{port}/sse",
            "headers": {"Authorization": "Bearer ${EXTERNAL_TEST_TOKEN}"},
            "guardianScan": {"input": False, "output": False},
        }
        write_config(config, {})
        with start(tmp_path, config, EXTERNAL_TEST_TOKEN="s3cret") as hub:
            write_config(config, {"legacy": entry})
            wait_for(lambda: "legacy_greet" in tool_names(hub), hub)
            assert hub.call("legacy_greet", {"name": "Ed"})["data"] == {"result": "Hello, Ed!"}
            assert hub.call("legacy_authorization")["data"] == {"result": "Bearer s3cret"}
            legacy = hub.status()["mcps"]["legacy"]
            assert legacy["external"] is True and legacy["available"] and legacy["pid"] is None
            # The server goes away: the supervisor notices, and calls fail at once with a reason.
            server.terminate()
            server.wait(timeout=10)
            wait_for(lambda: not hub.status()["mcps"]["legacy"]["available"], hub)
            assert hub.call("legacy_greet", {"name": "Ed"})["errorCode"] == "MCP_UNAVAILABLE"
    finally:
        server.terminate()
        server.wait(timeout=10)
