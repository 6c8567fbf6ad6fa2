"""MCPs that cannot work unconfigured (a manifest's `needs`): not started with the others, their shipped tools
listed, started by the first call (which names the setting) or once the setting appears."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from onepassword_mcp.cli import NOT_CONFIGURED
from telegram_mcp.server import NO_TOKEN
from tests.fakes.op_cli import install_fake_op
from tests.fakes.op_vaults import DATA, TOKEN
from tests.hub_process import REPO_ROOT, RunningHub, start_hub

pytestmark = pytest.mark.slow


def shipped_names(package: str) -> set[str]:
    tools = json.loads((REPO_ROOT / package / "tools.json").read_text())
    prefix = json.loads((REPO_ROOT / package / "manifest.json").read_text())["mcpName"]
    return {f"{prefix}_{tool['name']}" for tool in tools}


def wait_for(running: RunningHub, mcp: str, state: str, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        described = running.status()["mcps"][mcp]
        if described["state"] == state:
            return described
        if time.monotonic() > deadline:
            raise AssertionError(f"{mcp} is {described} after {timeout} s:\n{running.log()[-3000:]}")
        time.sleep(0.1)


def test_an_unconfigured_mcp_is_not_started_its_tools_are_listed_and_the_first_call_starts_it(
    tmp_path: Path,
) -> None:
    with start_hub(tmp_path, tmp_path / "home", ["telegram_mcp", "filer_mcp"]) as running:
        status = running.status()
        telegram = status["mcps"]["telegram"]
        assert telegram["state"] == "not started" and telegram["pid"] is None and not telegram["available"]
        assert telegram["notStarted"] == "not configured: set TELEGRAM_BOT_TOKEN"
        assert status["mcps"]["filer"]["state"] == "ready"
        with running.client() as client:
            listing = client.get("/tools/list").json()
        names = {tool["name"] for tool in listing["tools"]}
        public = {name for name in shipped_names("telegram_mcp") if not name.startswith("telegram_intake_")}
        assert public <= names
        assert telegram["toolCount"] == len(public) == listing["mcps"]["telegram"]["toolCount"]
        assert listing["mcps"]["telegram"]["notStarted"] == telegram["notStarted"]

        # Two calls at once: one start, and each gets the MCP's own sentence naming the setting.
        arguments = {"chat_id": "1", "message": "hello"}
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda _: running.call("telegram_send_message", arguments), range(2)))
        for answer in answers:
            assert answer["success"] is False and answer["error"] == NO_TOKEN, answer

        telegram = running.status()["mcps"]["telegram"]
        assert telegram["state"] == "ready" and telegram["pid"] is not None and telegram["notStarted"] is None
        assert telegram["restarts"] == 0
        os.kill(telegram["pid"], 0)  # a live process


def test_a_configured_mcp_starts_with_the_others(tmp_path: Path) -> None:
    with start_hub(
        tmp_path, tmp_path / "home", ["onepassword_mcp"], env={"OP_SERVICE_ACCOUNT_TOKEN": "ops_test"}
    ) as running:
        onepassword = running.status()["mcps"]["onepassword"]
        assert onepassword["state"] == "ready" and onepassword["pid"] is not None
        assert onepassword["notStarted"] is None


def test_an_mcp_left_for_first_use_starts_once_its_client_file_appears(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with start_hub(tmp_path, home, ["gmail_mcp"], env={"MCP_HEALTH_INTERVAL_SECONDS": "0.3"}) as running:
        gmail = running.status()["mcps"]["gmail"]
        assert gmail["state"] == "not started" and "GMAIL_CREDENTIALS_PATH" in gmail["notStarted"]
        (home / "gmail").mkdir(parents=True, exist_ok=True)
        (home / "gmail" / "credentials.json").write_text("{}")
        gmail = wait_for(running, "gmail", "ready")
        assert gmail["pid"] is not None and gmail["notStarted"] is None


def test_an_mcp_left_for_first_use_starts_once_its_variable_appears_in_the_env_file(tmp_path: Path) -> None:
    env_file = Path(os.environ["ANNABELLE_ENV_FILE"])
    with start_hub(
        tmp_path, tmp_path / "home", ["onepassword_mcp"], env={"MCP_HEALTH_INTERVAL_SECONDS": "0.3"}
    ) as running:
        assert running.status()["mcps"]["onepassword"]["state"] == "not started"
        env_file.write_text("OP_SERVICE_ACCOUNT_TOKEN=ops_test\n")
        assert wait_for(running, "onepassword", "ready")["pid"] is not None


def test_the_not_configured_sentences_say_where_to_put_the_token_and_that_no_restart_is_needed() -> None:
    for sentence, variable in ((NO_TOKEN, "TELEGRAM_BOT_TOKEN"), (NOT_CONFIGURED, "OP_SERVICE_ACCOUNT_TOKEN")):
        assert f"set {variable}" in sentence and "in .env" in sentence and "no restart needed" in sentence
        assert "restart the" not in sentence


def test_an_mcp_a_call_started_without_its_token_is_restarted_with_it_once_it_appears_in_the_env_file(
    tmp_path: Path,
) -> None:
    """The sentence is true: put the token in .env and the same hub serves the MCP with it, no restart asked for."""
    env_file = Path(os.environ["ANNABELLE_ENV_FILE"])
    fake_op = install_fake_op(tmp_path / "bin", DATA)
    env = {"MCP_HEALTH_INTERVAL_SECONDS": "0.3", "PATH": f"{fake_op}{os.pathsep}{os.environ['PATH']}"}
    with start_hub(tmp_path, tmp_path / "home", ["onepassword_mcp"], env=env) as running:
        answer = running.call("onepassword_list_vaults")
        assert answer["success"] is False and answer["error"] == NOT_CONFIGURED, answer
        unconfigured = wait_for(running, "onepassword", "ready")

        env_file.write_text(f"OP_SERVICE_ACCOUNT_TOKEN={TOKEN}\n")
        deadline = time.monotonic() + 30
        while (described := running.status()["mcps"]["onepassword"])["pid"] in (unconfigured["pid"], None) or (
            described["state"] != "ready"
        ):
            assert time.monotonic() < deadline, described
            time.sleep(0.1)
        assert described["restarts"] == 0  # replaced on purpose, not a crash
        vaults = running.call("onepassword_list_vaults")
        assert vaults["success"], vaults
        assert [vault["name"] for vault in vaults["data"]["vaults"]] == ["Private", "Work"]
    assert "mcp restarting with a new setting" in running.log()


def test_an_mcp_that_failed_to_start_on_first_use_starts_again_once_its_setting_appears(tmp_path: Path) -> None:
    """A test MCP that exits at once without NEEDY_TOKEN: the first call starts it and it fails ("failed", not
    retried); the owner adds the token to .env and the same hub starts it again, with no restart of the hub."""
    env_file = Path(os.environ["ANNABELLE_ENV_FILE"])
    with start_hub(tmp_path, tmp_path / "home", ["needy_mcp"], env={"MCP_HEALTH_INTERVAL_SECONDS": "0.3"}) as running:
        assert running.status()["mcps"]["needy"]["notStarted"] == "not configured: set NEEDY_TOKEN"
        answer = running.call("needy_ping")
        assert answer["success"] is False and answer["errorCode"] == "MCP_UNAVAILABLE", answer
        assert "process exited with code 3" in wait_for(running, "needy", "failed")["lastError"]

        env_file.write_text("NEEDY_TOKEN=yes\n")
        assert wait_for(running, "needy", "ready")["pid"] is not None
        assert running.call("needy_ping")["data"] == "pong"
    assert "mcp starting again with a new setting" in running.log()


def test_the_shipped_tool_lists_match_their_live_servers() -> None:
    """`python -m orchestrator.shipped_tools --check`: a tool changed without regenerating the file fails here."""
    checked = subprocess.run(
        [sys.executable, "-m", "orchestrator.shipped_tools", "--check"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stderr[-3000:]
    assert "every shipped tool list matches its server" in checked.stdout
