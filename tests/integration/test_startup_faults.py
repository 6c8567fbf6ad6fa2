"""Start-up and configuration faults as a user meets them: each is one sentence (and a non-zero exit when it is
fatal), read through the hub's process, its HTTP API or the CLI. A busy port stops the hub before anything is
spawned; while an MCP is still coming up `/health` says `starting` and the API says to retry; an HTTP external
MCP that cannot be reached shows its cause; the CLI keeps one line per tool and refuses an unknown `--mcp`."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.hub_process import REPO_ROOT, free_port, launch_hub, stop_process_group

pytestmark = pytest.mark.slow

ANNABELLE = str(Path(sys.executable).parent / "annabelle")
TOKEN = "startup-faults-token-0123456789abcdef"


def ended(process: subprocess.Popen[bytes], log_path: Path, timeout: float = 60) -> tuple[int, str]:
    """The exit code and output of a hub expected to stop by itself; whatever it left behind is stopped."""
    try:
        code = process.wait(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    return code, log_path.read_text(errors="replace")


def ready_mcps(home: Path) -> int:
    """How many times the hub logged an MCP ready (its log file may not exist yet)."""
    log_file = home / "logs" / "orchestrator.log"
    return log_file.read_text(errors="replace").count('"msg": "mcp ready"') if log_file.exists() else 0


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_a_busy_hub_port_stops_start_up_with_one_sentence_naming_orchestrator_port(
    tmp_path: Path, busy_port: int
) -> None:
    process, log_path, _ = launch_hub(tmp_path, tmp_path / "home", ["echo_mcp"], {"ORCHESTRATOR_PORT": str(busy_port)})
    code, output = ended(process, log_path)
    sentence = (
        f"annabelle: port {busy_port} on 127.0.0.1 is in use (another hub?); stop that process or set "
        "ORCHESTRATOR_PORT to a free port."
    )
    assert code == 1 and sentence in output.splitlines(), output
    assert "Errno" not in output and "Traceback" not in output
    assert ready_mcps(tmp_path / "home") == 0  # checked before any MCP was spawned


def test_a_busy_thinker_port_from_thinker_port_with_the_shipped_agents_json_is_named(
    tmp_path: Path, busy_port: int
) -> None:
    env = {"AGENTS_CONFIG": str(REPO_ROOT / "agents.json"), "THINKER_PORT": str(busy_port)}
    process, log_path, _ = launch_hub(tmp_path, tmp_path / "home", ["echo_mcp"], env)
    code, output = ended(process, log_path)
    sentence = (
        f"annabelle: port {busy_port} for the agent 'annabelle' is in use; stop that process or change THINKER_PORT."
    )
    assert code == 1 and sentence in output.splitlines(), output
    assert "Errno" not in output and "Traceback" not in output


def wait_for(condition: Callable[[], bool], log_path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, log_path.read_text(errors="replace")
        time.sleep(0.05)


def health(url: str) -> str | None:
    try:
        return str(httpx.get(f"{url}/health", timeout=1).json()["status"])
    except httpx.HTTPError:
        return None


def cli(url: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANNABELLE_HOME": str(home), "ORCHESTRATOR_URL": url, "ANNABELLE_TOKEN": TOKEN}
    return subprocess.run([ANNABELLE, *args], capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=60)


def log_entries(home: Path) -> list[dict[str, Any]]:
    lines = (home / "logs" / "orchestrator.log").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_a_hub_coming_up_says_starting_then_names_the_cause_of_a_failed_http_mcp_and_the_cli_stays_readable(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    held = {  # an external MCP that starts only once the test opens the gate: the hub is "starting" until then
        "command": "sh",
        "args": [
            "-c",
            f'while [ ! -e "{gate}" ]; do sleep 0.05; done; exec "{sys.executable}" -m tests.mcps.external_mcp',
        ],
        "cwd": str(REPO_ROOT),
        "env": {"EXTRA_TOOLS": "1"},
        "guardianScan": {"input": False, "output": False},
    }
    down = {"url": f"http://127.0.0.1:{free_port()}/mcp", "guardianScan": {"input": False, "output": False}}
    config = tmp_path / "external-mcps.json"
    config.write_text(json.dumps({"mcpServers": {"held": held, "down": down}}))
    home = tmp_path / "home"
    env = {
        "ANNABELLE_TOKEN": TOKEN,
        "EXTERNAL_MCPS_CONFIG": str(config),
        "EXTERNAL_MCPS_POLL_SECONDS": "0.1",
        "EXTERNAL_MCPS_DEBOUNCE_SECONDS": "0.1",
        "DIAGNOSE_INTERVAL_MINUTES": "0",
    }
    process, log_path, port = launch_hub(tmp_path, home, ["echo_mcp"], env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: health(url) is not None, log_path)
        assert health(url) == "starting"
        waiting = httpx.get(f"{url}/tools/list", headers={"X-Annabelle-Token": TOKEN}, timeout=5)
        assert waiting.status_code == 503 and "Retry-After" in waiting.headers
        assert waiting.json()["error"].startswith("The hub is still starting (")
        assert waiting.json()["error"].endswith("MCP servers ready); retry in a moment.")

        gate.touch()
        wait_for(lambda: health(url) == "ok", log_path)
        assert ready_mcps(home) > 0
        with httpx.Client(base_url=url, headers={"X-Annabelle-Token": TOKEN}, timeout=30) as client:
            status = client.get("/status").json()
            listing = client.get("/tools/list").json()

        # The HTTP MCP's failure is its cause, not the task group that wrapped it.
        error = status["mcps"]["down"]["lastError"]
        assert error.startswith(f"{down['url']} could not be reached or answered wrongly (ConnectError: "), error
        assert "ExceptionGroup" not in error and "TaskGroup" not in error and "\n" not in error

        # /status counts what /tools/list lists, per MCP and in all.
        assert status["toolCount"] == len(listing["tools"])
        for name, mcp in listing["mcps"].items():
            assert status["mcps"][name]["toolCount"] == mcp["toolCount"], name

        shown = cli(url, home, "tools", "list", "--mcp", "held")
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        assert len(lines) == listing["mcps"]["held"]["toolCount"] + 1 and lines[-1].endswith(" tools")
        assert all(line.startswith("held_") for line in lines[:-1]), shown.stdout
        assert any("Upper-case the text. Spaces and punctuation" in line for line in lines), shown.stdout

        unknown = cli(url, home, "tools", "list", "--mcp", "nosuch")
        assert unknown.returncode == 1 and unknown.stdout == ""
        assert unknown.stderr.strip().startswith("No MCP server named 'nosuch'; the hub has: ")
        assert len(unknown.stderr.strip().splitlines()) == 1

        # With no chat to send it to, an owner's notification is logged at INFO: it is no warning for the doctor.
        config.write_text(json.dumps({"mcpServers": {"held": held}}))
        wait_for(lambda: any(e.get("kind") == "mcp_change" for e in log_entries(home)), log_path)
        told = [e for e in log_entries(home) if e.get("kind") == "mcp_change"]
        assert {e["level"] for e in told} == {"INFO"}, told
    finally:
        stop_process_group(process)
