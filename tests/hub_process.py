"""Run the real hub (`python -m orchestrator`) as a child process for integration tests.

The hub discovers MCP packages from a temporary MCPs root in which the test links the packages it wants:
first-party ones from the repository and test ones from `tests/mcps/`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from orchestrator.agents.runtime import free_port

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST_MCPS = REPO_ROOT / "tests" / "mcps"


def package_dir(name: str) -> Path:
    """A first-party package (`filer_mcp`) or a test one (`echo_mcp`)."""
    for base in (REPO_ROOT, TEST_MCPS):
        if (base / name / "manifest.json").exists():
            return base / name
    raise LookupError(f"no MCP package named {name}")


@dataclass
class RunningHub:
    url: str
    token: str
    home: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    def client(self, **kwargs: Any) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"X-Annabelle-Token": self.token}, **{"timeout": 30, **kwargs})

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        with self.client() as client:
            response = client.post("/tools/call", json={"name": name, "arguments": arguments or {}})
        assert response.status_code == 200, response.text
        return response.json()

    def status(self) -> dict[str, Any]:
        with self.client() as client:
            return client.get("/status").json()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def __enter__(self) -> RunningHub:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> int:
        return stop_process_group(self.process)


def stop_process_group(process: subprocess.Popen[Any], grace: float = 15) -> int:
    """Ctrl-C for a hub or Thinker started in its own process group, as a user stops it; SIGKILL to the whole
    group if it has not exited after `grace` seconds (so no child outlives a test). Returns the exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)
    return process.returncode


def launch_hub(
    workdir: Path, home: Path, packages: Iterable[str], env: Mapping[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], Path, int]:
    """Start the hub without waiting for it; returns (process, log path, port)."""
    root = workdir / "mcps-root"
    root.mkdir(exist_ok=True)
    for name in packages:
        link = root / name
        if not link.exists():
            link.symlink_to(package_dir(name), target_is_directory=True)
    port = free_port()
    child_env = {
        **os.environ,
        "ANNABELLE_HOME": str(home),
        "ANNABELLE_MCPS_ROOT": str(root),
        "ORCHESTRATOR_PORT": str(port),
        "MCP_RESTART_BASE_SECONDS": "0.2",
        "LOG_LEVEL": "INFO",
        **(env or {}),
    }
    log_path = workdir / f"hub-{port}.stderr.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "orchestrator"],
            cwd=REPO_ROOT,
            env=child_env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return process, log_path, port


def start_hub(
    workdir: Path, home: Path, packages: Iterable[str], env: Mapping[str, str] | None = None, timeout: float = 60
) -> RunningHub:
    """Start the hub and wait until `/health` says it is ready."""
    process, log_path, port = launch_hub(workdir, home, packages, env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"hub exited with {process.returncode}:\n{log_path.read_text(errors='replace')}")
        try:
            if httpx.get(f"{url}/health", timeout=1).json().get("status") == "ok":
                token = (env or {}).get("ANNABELLE_TOKEN") or (home / "annabelle.token").read_text().strip()
                return RunningHub(url, token, home, process, log_path)
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    raise RuntimeError(f"hub not ready within {timeout} s:\n{log_path.read_text(errors='replace')}")


def wait_until_serving(client: httpx.Client, timeout: float = 60) -> None:
    """Wait for an in-process hub (a `TestClient`) to say `/health` ok: it serves while its MCPs start."""
    deadline = time.monotonic() + timeout
    while client.get("/health").json().get("status") != "ok":
        if time.monotonic() > deadline:
            raise RuntimeError(f"the hub did not finish starting within {timeout} s")
        time.sleep(0.05)


def fake_llm_agent_env(
    workdir: Path, api_base: str, *, bindings: list[dict[str, str]] | None = None, **agent: Any
) -> dict[str, str]:
    """The one way tests run an agent: an agents.json with one agent `annabelle` on the fake LLM at `api_base`
    (extra fields override), and the environment a hub needs to run it offline. Background model work (fact
    extraction, compaction, memory synthesis) is off, so the fake LLM sees only what a test scripts."""
    config = workdir / "agents.json"
    definition = {"agentId": "annabelle", "port": free_port(), "model": "openai/fake", "apiBase": api_base, **agent}
    config.write_text(json.dumps({"agents": [definition], **({"bindings": bindings} if bindings else {})}))
    return {
        "AGENTS_CONFIG": str(config),
        "EMBEDDING_PROVIDER": "none",
        "OPENAI_API_KEY": "test",
        "UTILITY_MODEL": "off",
        "FACT_EXTRACTION_ENABLED": "false",
        "THINKER_FACT_EXTRACTION_ENABLED": "false",
    }
