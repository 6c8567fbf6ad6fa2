"""The 1Password MCP in-process against a fake `op` on PATH that behaves like the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from onepassword_mcp.server import server
from shared.secrets import SEALED_KEY
from tests.fakes.op_cli import CALLS_FILE, install_fake_op
from tests.fakes.op_vaults import API_KEY, CARD, DATA, PASSWORD, TOKEN


@pytest.fixture
def fake_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = install_fake_op(tmp_path / "bin", DATA)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ANNABELLE_ENV_FILE", str(tmp_path / "no.env"))
    monkeypatch.setenv("OP_SERVICE_ACCOUNT_TOKEN", TOKEN)
    return folder


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return envelope


async def test_the_four_tools_are_read_only_and_list_vaults_and_items(fake_op: Path) -> None:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        vaults = await call(client, "list_vaults")
        logins = await call(client, "list_items", vault="Private", categories=["login", "Credit card"])
    assert set(tools) == {"list_vaults", "list_items", "get_item", "read_secret"}
    assert all(tool.annotations and tool.annotations.read_only_hint for tool in tools.values())
    assert [v["name"] for v in vaults["data"]["vaults"]] == ["Private", "Work"]
    assert [i["title"] for i in logins["data"]["items"]] == ["Bank", "Visa"]
    assert logins["data"]["items"][0]["urls"] == ["https://bank.example"]
    assert PASSWORD not in json.dumps(logins)


async def test_get_item_seals_passwords_cards_and_notes_and_keeps_usernames_and_references(fake_op: Path) -> None:
    async with Client(server) as client:
        bank = (await call(client, "get_item", item="Bank"))["data"]
        card = (await call(client, "get_item", item="i2card", vault="Private"))["data"]
    fields = {field["label"]: field for field in bank["fields"]}
    assert fields["username"]["value"] == "ann@example.com" and fields["username"]["sensitive"] is False
    assert fields["password"]["value"] == {SEALED_KEY: PASSWORD} and fields["password"]["sensitive"] is True
    assert fields["notesPlain"]["value"] == {SEALED_KEY: "PIN is 0000"}
    assert fields["password"]["reference"] == "op://Private/Bank/password"
    assert {field["label"]: field["value"] for field in card["fields"]}["number"] == {SEALED_KEY: CARD}


async def test_read_secret_returns_the_value_sealed(fake_op: Path) -> None:
    async with Client(server) as client:
        read = await call(client, "read_secret", reference="op://Work/Stripe/api/credential")
    assert read["data"] == {
        "reference": "op://Work/Stripe/api/credential",
        "secret": {SEALED_KEY: API_KEY},
        "characters": len(API_KEY),
    }
    # The fake logs each call's arguments without the reference: the secret was never an argument either.
    assert API_KEY not in (fake_op / CALLS_FILE).read_text()


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("list_items", {"vault": "Nope"}, '1Password: "Nope" isn\'t a vault in this account'),
        ("get_item", {"item": "Router"}, 'More than one item matches "Router"'),
        ("get_item", {"item": "Router", "vault": "Work"}, None),
        ("read_secret", {"reference": "op://Private/Bank/pin"}, '"pin" isn\'t a field in the "Bank" item'),
        ("read_secret", {"reference": "https://evil.example/x"}, "reference must look like op://vault/item/field"),
        ("get_item", {"item": "--account=evil"}, "item cannot start with '-'"),
        ("list_items", {"vault": "Private", "categories": ["Spaceship"]}, "'Spaceship' is not a 1Password category"),
    ],
)
async def test_op_failures_and_bad_arguments_are_one_sentence(
    fake_op: Path, tool: str, arguments: dict[str, Any], expected: str | None
) -> None:
    async with Client(server) as client:
        envelope = await call(client, tool, **arguments)
    if expected is None:
        assert envelope["success"] is True
        return
    assert envelope["success"] is False and expected in envelope["error"]
    assert "\n" not in envelope["error"] and "[ERROR]" not in envelope["error"]


async def test_without_a_token_or_with_a_wrong_one_the_answer_says_what_to_set(
    fake_op: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OP_SERVICE_ACCOUNT_TOKEN")
    async with Client(server) as client:
        missing = await call(client, "list_vaults")
    monkeypatch.setenv("OP_SERVICE_ACCOUNT_TOKEN", "ops_wrong")
    async with Client(server) as client:
        wrong = await call(client, "list_vaults")
    assert "set OP_SERVICE_ACCOUNT_TOKEN" in missing["error"]
    assert "refused the service account token" in wrong["error"] and "ops_wrong" not in wrong["error"]


async def test_op_missing_is_named_with_how_to_install_it(
    fake_op: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ONEPASSWORD_CLI", str(tmp_path / "no-op-here"))
    async with Client(server) as client:
        envelope = await call(client, "list_vaults")
    assert "is not installed" in envelope["error"] and "ONEPASSWORD_CLI" in envelope["error"]


async def test_a_signed_in_op_session_without_a_service_token_still_reports_not_configured(
    fake_op: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # op's own answer when nothing authenticates it, reached with a session variable set but no token.
    monkeypatch.delenv("OP_SERVICE_ACCOUNT_TOKEN")
    monkeypatch.setenv("OP_CONNECT_TOKEN", "connect")
    async with Client(server) as client:
        envelope = await call(client, "list_vaults")
    assert "1Password is not configured" in envelope["error"]
