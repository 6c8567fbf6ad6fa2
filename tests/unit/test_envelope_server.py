"""`EnvelopeServer`: bad arguments are envelopes a model can act on, unknown tools are protocol errors."""

from __future__ import annotations

import importlib
import json
from typing import Annotated, Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from pydantic import Field

from shared.mcp_tools import READ_ONLY, EnvelopeServer, envelope_tool

FIRST_PARTY = ["filer_mcp", "gmail_mcp", "guardian_mcp", "memorizer_mcp", "searcher_mcp", "telegram_mcp", "codexec_mcp"]

server: EnvelopeServer[None] = EnvelopeServer("test")


@envelope_tool(server, annotations=READ_ONLY)
async def greet(name: Annotated[str, Field(max_length=50)], times: int = 1) -> str:
    """Greet someone."""
    return f"hello {name}" * times


async def envelope_of(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert result.is_error == (not envelope["success"])
    return envelope


async def test_a_call_with_an_unknown_argument_is_refused_naming_it_and_what_is_accepted() -> None:
    async with Client(server) as client:
        envelope = await envelope_of(client, "greet", {"name": "Ann", "colour": "red"})
    assert envelope == {
        "success": False,
        "error": "Unknown argument: 'colour'. Accepted: name, times.",
        "errorCode": "INVALID_ARGUMENTS",
    }


async def test_twenty_thousand_unknown_arguments_get_an_answer_of_the_usual_size() -> None:
    arguments: dict[str, Any] = {"name": "Ann", **{f"{'k' * 200}{index}": index for index in range(20_000)}}
    async with Client(server) as client:
        envelope = await envelope_of(client, "greet", arguments)
    assert envelope["errorCode"] == "INVALID_ARGUMENTS"
    assert "and 19,995 more" in envelope["error"] and len(envelope["error"]) < 400


async def test_a_wrong_type_is_one_sentence_without_pydantic_text() -> None:
    async with Client(server) as client:
        envelope = await envelope_of(client, "greet", {"name": 5})
        missing = await envelope_of(client, "greet", {})
    assert envelope["error"] == "Invalid arguments: name: Input should be a valid string"
    assert missing["error"] == "Invalid arguments: name: Field required"


async def test_a_good_call_still_answers_with_data() -> None:
    async with Client(server) as client:
        assert await envelope_of(client, "greet", {"name": "Ann", "times": 2}) == {
            "success": True,
            "data": "hello Annhello Ann",
        }


async def test_an_unknown_tool_is_a_json_rpc_invalid_params_error_with_a_bounded_name() -> None:
    async with Client(server) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("nosuch" + "x" * 10_000, {})
    assert caught.value.error.code == INVALID_PARAMS
    assert caught.value.error.message.startswith("Unknown tool: nosuch") and len(caught.value.error.message) < 60


@pytest.mark.parametrize("package", FIRST_PARTY)
async def test_every_first_party_tool_rejects_an_argument_it_does_not_declare(package: str) -> None:
    mcp_server = importlib.import_module(f"{package}.server").server
    assert isinstance(mcp_server, EnvelopeServer)
    async with Client(mcp_server) as client:
        tools = (await client.list_tools()).tools
        for tool in tools:
            envelope = await envelope_of(client, tool.name, {"zz_not_an_argument": 1})
            assert envelope["errorCode"] == "INVALID_ARGUMENTS", (tool.name, envelope)
            assert "'zz_not_an_argument'" in envelope["error"], (tool.name, envelope)
            declared = ", ".join(sorted(tool.input_schema.get("properties", {}))) or "none"
            assert envelope["error"].endswith(f"Accepted: {declared}."), (tool.name, envelope)
    assert tools
