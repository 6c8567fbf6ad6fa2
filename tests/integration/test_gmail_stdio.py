"""Gmail as a real process: `python -m gmail_mcp` spoken to over stdio, as the hub spawns it."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.fakes.google_server import FakeGoogle

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
GMAIL_VARIABLES = ("GMAIL_CREDENTIALS_PATH", "GMAIL_TOKEN_PATH", "GOOGLE_API_BASE", "GMAIL_POLLING_ENABLED")


def server_parameters(home: Path, tmp_path: Path, **extra: str) -> StdioServerParameters:
    env = {key: value for key, value in os.environ.items() if key not in GMAIL_VARIABLES}
    env.update({"ANNABELLE_HOME": str(home), "ANNABELLE_ENV_FILE": str(tmp_path / "no.env"), **extra})
    return StdioServerParameters(command=sys.executable, args=["-m", "gmail_mcp"], env=env, cwd=str(REPO_ROOT))


def envelope(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def test_the_spawned_server_without_credentials_lists_thirty_tools_and_says_what_to_do(
    annabelle_home: Path, tmp_path: Path
) -> None:
    async with Client(server_parameters(annabelle_home, tmp_path)) as client:
        tools = (await client.list_tools()).tools
        answer = envelope(await client.call_tool("list_events", {}))
    assert len(tools) == 30
    assert answer["success"] is False
    assert answer["error"] == (
        f"Gmail is not set up: put your OAuth client file at {annabelle_home / 'gmail' / 'credentials.json'} "
        "(GMAIL_CREDENTIALS_PATH) and run `annabelle setup gmail`."
    )
    log_lines = (annabelle_home / "logs" / "gmail.log").read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["msg"] == "gmail ready" for line in log_lines)


async def test_the_spawned_server_sends_mail_through_the_fake_google(annabelle_home: Path, tmp_path: Path) -> None:
    with FakeGoogle() as google:
        gmail_dir = annabelle_home / "gmail"
        gmail_dir.mkdir()
        (gmail_dir / "credentials.json").write_text(json.dumps(google.client_file()), encoding="utf-8")
        token = {"access_token": "access-1", "refresh_token": "refresh-1", "expires_at": time.time() + 3600}
        (gmail_dir / "token.json").write_text(json.dumps(token), encoding="utf-8")
        google.expire_token()
        async with Client(server_parameters(annabelle_home, tmp_path, GOOGLE_API_BASE=google.url)) as client:
            sent = envelope(
                await client.call_tool("send_email", {"to": "ann@example.com", "subject": "Hi", "body": "Hello"})
            )
    assert sent["success"] is True, sent
    assert google.refreshes == 1
    assert google.messages[sent["data"]["id"]].mime["Subject"] == "Hi"
