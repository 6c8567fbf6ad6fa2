"""`annabelle mcp`: the running hub as a stdio MCP server, for Claude Desktop, an IDE or any MCP client.

It lists the hub's tools (`GET /tools/list`, read afresh on every listing so hot-reloaded external MCPs show up)
plus a `chat` tool that talks to the assistant (`POST /message`), and forwards every call to `POST /tools/call`.
So a call through this bridge gets the hub's routing, Guardian scanning and agent policy like any other. What
the original's Connector did, over the hub's real API (its `/chat` pointed at a port nothing listened on).

The bridge is a thin client: it holds no state and needs the hub running. A missing hub or token does not stop
it from starting (an MCP client usually starts it at login, maybe before the hub); each call then answers with
the sentence saying what to do. Nothing is ever printed on stdout, which carries the JSON-RPC stream.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

from shared import mcp_stdio
from shared.hub_client import HubClient, HubError
from shared.secrets import mask_sealed

log = logging.getLogger(__name__)

CHAT_TOOL_NAME = "chat"
DEFAULT_CHAT_ID = "mcp"
# A tool call may take up to its MCP's timeout (600 s at most); a chat turn runs several LLM and tool steps.
TOOL_CALL_TIMEOUT_SECONDS = 630.0
CHAT_TIMEOUT_SECONDS = 630.0
LIST_TIMEOUT_SECONDS = 15.0

CHAT_TOOL = Tool(
    name=CHAT_TOOL_NAME,
    description=(
        "Talk to Annabelle, the user's personal assistant: it remembers facts about the user, reads mail and the "
        "calendar, searches the web and works with files, using its own tools. Send one message; get its reply."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "message": {"type": "string", "minLength": 1, "description": "What to say to the assistant."},
            "chat_id": {
                "type": "string",
                "description": f"Conversation id, to keep separate threads (default {DEFAULT_CHAT_ID!r}).",
            },
        },
        "required": ["message"],
    },
)


TokenSource = Callable[[], str | None]
NO_TOKEN = (
    "No Annabelle token: set ANNABELLE_TOKEN in this MCP server's env, or start the hub once "
    "(it creates $ANNABELLE_HOME/annabelle.token)."
)


def _text(text: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def envelope_result(envelope: dict[str, Any]) -> CallToolResult:
    """The hub's envelope as an MCP result: the data as text (JSON unless it is a string), or the error sentence.

    Sealed secrets (1Password) are masked: the bridge's client is another application's model."""
    if envelope.get("success"):
        data = mask_sealed(envelope.get("data"))
        return _text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=2))
    code = envelope.get("errorCode")
    error = envelope.get("error") or "The tool failed without saying why."
    return _text(f"{error} ({code})" if code else error, error=True)


def chat_result(answer: dict[str, Any]) -> CallToolResult:
    """`POST /message`'s answer as an MCP result: the reply (with a pause notice beside it), or why there is none."""
    if answer.get("success"):
        reply = str(answer.get("reply") or "")
        notice = answer.get("notice")
        return _text(f"{reply}\n\n({notice})" if notice else reply)
    return _text(str(answer.get("error") or "The assistant could not answer."), error=True)


def tool_of(listing: dict[str, Any]) -> Tool:
    return Tool(name=listing["name"], description=listing.get("description"), input_schema=listing["inputSchema"])


def build_server(hub: HubClient, token: TokenSource, version: str = "") -> Server[Any]:
    """A low-level MCP server whose tools are the hub's tools plus `chat` (the hub's list is dynamic).

    `token` is asked on every request (a token file the hub creates after the bridge started is picked up)."""

    async def request(method: str, path: str, body: dict[str, Any] | None, seconds: float) -> Any:
        if token() is None:
            raise HubError(NO_TOKEN)
        return await hub.request(method, path, body, seconds=seconds)

    async def list_tools(_: ServerRequestContext[Any], __: PaginatedRequestParams | None) -> ListToolsResult:
        try:
            listing = await request("GET", "/tools/list", None, LIST_TIMEOUT_SECONDS)
        except HubError as exc:
            # Still list `chat`: calling it tells the user what is wrong, which an empty list would not.
            log.warning("hub tools unavailable", extra={"reason": str(exc)})
            return ListToolsResult(tools=[CHAT_TOOL])
        tools = [tool_of(tool) for tool in listing.get("tools", []) if tool.get("name") != CHAT_TOOL_NAME]
        return ListToolsResult(tools=[CHAT_TOOL, *tools])

    async def call_tool(_: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        arguments = params.arguments or {}
        try:
            if params.name == CHAT_TOOL_NAME:
                message = arguments.get("message")
                if not isinstance(message, str) or not message.strip():
                    return _text("chat needs a non-empty 'message'.", error=True)
                chat_id = arguments.get("chat_id") or DEFAULT_CHAT_ID
                body = {"message": message, "chatId": str(chat_id)}
                return chat_result(await request("POST", "/message", body, CHAT_TIMEOUT_SECONDS))
            body = {"name": params.name, "arguments": arguments}
            return envelope_result(await request("POST", "/tools/call", body, TOOL_CALL_TIMEOUT_SECONDS))
        except HubError as exc:
            return _text(str(exc), error=True)

    return Server(
        "annabelle",
        version=version,
        instructions="Annabelle's tools through its hub (Guardian-scanned), and `chat` to talk to the assistant.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(hub: HubClient, token: TokenSource, version: str = "") -> None:
    server = build_server(hub, token, version)
    try:
        await mcp_stdio.serve_stdio(server, server.create_initialization_options())
    finally:
        await hub.aclose()


def run_bridge(url: str, token: TokenSource, version: str = "") -> None:
    """Serve on stdin/stdout until the client closes the stream."""
    log.info("mcp bridge starting", extra={"hub": url})
    anyio.run(serve_stdio, HubClient(url, token), token, version)
