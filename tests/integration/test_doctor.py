"""`annabelle doctor` as a real process against a real hub with a deliberately broken configuration: every
problem is named with its fix, the exit code is 1; with the hub stopped the configuration checks still run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.hub_process import REPO_ROOT, free_port, start_hub

pytestmark = pytest.mark.slow

ANNABELLE = str(Path(sys.executable).parent / "annabelle")


def doctor(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ANNABELLE, "doctor"], capture_output=True, text=True, cwd=REPO_ROOT, env={**os.environ, **env}, timeout=120
    )


def test_doctor_names_each_problem_of_a_broken_configuration(tmp_path: Path) -> None:
    home = tmp_path / "home"
    agents = tmp_path / "agents.json"
    agents.write_text(json.dumps({"agents": [{"agentId": "annabelle", "model": "groq/llama-3.3-70b-versatile"}]}))
    externals = tmp_path / "external-mcps.json"
    externals.write_text(json.dumps({"mcpServers": {"weather": {"command": "x", "env": {"K": "${NO_SUCH_KEY}"}}}}))
    env = {
        "ANNABELLE_HOME": str(home),
        "AGENTS_CONFIG": str(agents),
        "EXTERNAL_MCPS_CONFIG": str(externals),
        "TELEGRAM_BOT_TOKEN": "123:abc",
        "GMAIL_MCP_ENABLED": "false",
        "OLLAMA_HOST": f"http://127.0.0.1:{free_port()}",
        "DIAGNOSE_INTERVAL_MINUTES": "0",
    }
    with start_hub(tmp_path, home, ["guardian_mcp", "echo_mcp"], env=env) as hub:
        (home / "annabelle.token").chmod(0o644)
        with hub.client() as client:
            answer = client.get("/diagnose").json()
        assert answer["critical"] is True
        names = {row["name"]: row for row in answer["findings"]}
        assert names["mcp-health"]["severity"] == "ok" and names["guardian-availability"]["severity"] == "ok"
        assert httpx.get(f"{hub.url}/diagnose").status_code == 401

        result = doctor({**env, "ORCHESTRATOR_URL": hub.url})
        assert result.returncode == 1, result.stdout + result.stderr
        out = result.stdout
        assert out.startswith(f"Annabelle doctor (hub at {hub.url}):")
        assert "[!!] provider-keys: annabelle uses groq/llama-3.3-70b-versatile but GROQ_API_KEY is not set" in out
        assert "fix: Set GROQ_API_KEY in .env" in out
        assert f"[!!] token-permissions: readable by other users: {home / 'annabelle.token'}" in out
        assert f"fix: chmod 600 {home / 'annabelle.token'}" in out
        assert "[!]  external-mcps-config: 1 external MCP problem(s)" in out and "NO_SUCH_KEY" in out
        assert "[!]  telegram-pairing: TELEGRAM_BOT_TOKEN is set but no chat is allowed or paired" in out
        assert "[ok] mcp-health: every MCP is up" in out and "Traceback" not in result.stderr

    result = doctor({**env, "ORCHESTRATOR_URL": hub.url})
    assert result.returncode == 1
    out = result.stdout
    assert out.startswith("Annabelle doctor (configuration only, the hub did not answer):")
    assert f"[!!] hub: the hub is not running at {hub.url}" in out and "annabelle up" in out
    assert "[!!] provider-keys:" in out and "[!!] token-permissions:" in out
    assert "mcp-health" not in out  # a check that needs the hub is not pretended


def test_a_healthy_configuration_exits_zero(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {
        "ANNABELLE_HOME": str(home),
        "AGENTS_CONFIG": str(tmp_path / "agents.json"),
        "EXTERNAL_MCPS_CONFIG": str(tmp_path / "none.json"),
        "GMAIL_MCP_ENABLED": "false",
        "DIAGNOSE_INTERVAL_MINUTES": "0",
        "GROQ_API_KEY": "set-but-never-used",  # the hub judges its own environment
    }
    (tmp_path / "agents.json").write_text(
        json.dumps({"agents": [{"agentId": "annabelle", "model": "groq/llama-3.3-70b-versatile"}]})
    )
    with start_hub(tmp_path, home, ["guardian_mcp", "echo_mcp"], env=env) as hub:
        result = doctor({**env, "ORCHESTRATOR_URL": hub.url})
    assert "[!!]" not in result.stdout, result.stdout
    assert result.returncode == 0
