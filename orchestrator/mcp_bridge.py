"""`annabelle mcp`: the running hub as a stdio MCP server, for Claude Desktop, an IDE or any MCP client.

It lists the hub's tools (`GET /tools/list`, read afresh on every listing so hot-reloaded external MCPs show up)
plus a `chat` tool that talks to the assistant (`POST /message`), and forwards every call to `POST /tools/call`.
So a call through this bridge gets the hub's routing, Guardian scanning and agent policy like any other. What
the original's Connector did, over the hub's real API (its `/chat` pointed at a port nothing listened on).

The tool list changes while the bridge runs (an external MCP added to or removed from `external-mcps.json`), so
the bridge declares `tools.listChanged` and reads the hub's list every `MCP_BRIDGE_POLL_SECONDS`: when it differs
from the last list the client was given, the client is told (`notifications/tools/list_changed` on a 2025-era
connection, a `tools_list_changed` event on the `subscriptions/listen` streams of a 2026-07-28 one).

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
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
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


def tools_of(listing: dict[str, Any]) -> list[Tool]:
    """What the client is offered: `chat`, then the hub's tools (a hub tool named `chat` is shadowed)."""
    return [CHAT_TOOL, *(tool_of(tool) for tool in listing.get("tools", []) if tool.get("name") != CHAT_TOOL_NAME)]


def fingerprint(tools: list[Tool]) -> tuple[str, ...]:
    """Equal for two lists a client cannot tell apart (names, descriptions, schemas, in order)."""
    return tuple(tool.model_dump_json(by_alias=True, exclude_none=True) for tool in tools)


class ToolListWatch:
    """Knows which tool list the client last saw, and tells the client when the hub's list differs from it.

    One bridge process serves one client. On a 2025-era connection the notification goes over the session that
    asked for the list (so a client that never listed is not told anything); on a 2026-07-28 connection it is
    published to the `subscriptions/listen` streams the client opened (the SDK drops a bare one there)."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._seen: tuple[str, ...] | None = None
        self._session: ServerSession | None = None

    def listed(self, tools: list[Tool], session: ServerSession | None) -> None:
        """The client was just given `tools`."""
        self._seen = fingerprint(tools)
        if session is not None:
            self._session = session

    async def compare(self, tools: list[Tool]) -> bool:
        """The hub now offers `tools`: tell the client when that is news to it. True when it was told."""
        current = fingerprint(tools)
        if self._seen is None or current == self._seen:
            self._seen = current  # the first look is the baseline: the client lists before it calls
            return False
        self._seen = current  # told once per change, whether or not it lists again
        log.info("hub tool list changed", extra={"tools": len(tools)})
        await self.bus.publish(ToolsListChanged())
        if self._session is not None:
            try:
                await self._session.send_tool_list_changed()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                self._session = None  # the client has gone; stdin closing ends the bridge
        return True


def build_server(
    hub: HubClient, token: TokenSource, version: str = "", watch: ToolListWatch | None = None
) -> Server[Any]:
    """A low-level MCP server whose tools are the hub's tools plus `chat` (the hub's list is dynamic).

    `token` is asked on every request (a token file the hub creates after the bridge started is picked up).
    `watch` learns every list the client is given, and serves the client's `subscriptions/listen` streams."""
    watch = watch or ToolListWatch()

    async def request(method: str, path: str, body: dict[str, Any] | None, seconds: float) -> Any:
        if token() is None:
            raise HubError(NO_TOKEN)
        return await hub.request(method, path, body, seconds=seconds)

    async def list_tools(ctx: ServerRequestContext[Any], __: PaginatedRequestParams | None) -> ListToolsResult:
        try:
            listing = await request("GET", "/tools/list", None, LIST_TIMEOUT_SECONDS)
        except HubError as exc:
            # Still list `chat`: calling it tells the user what is wrong, which an empty list would not.
            log.warning("hub tools unavailable", extra={"reason": str(exc)})
            listing = {}
        tools = tools_of(listing)
        watch.listed(tools, ctx.session)
        return ListToolsResult(tools=tools)

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
        on_subscriptions_listen=ListenHandler(watch.bus),
    )


async def watch_hub(hub: HubClient, token: TokenSource, watch: ToolListWatch, poll_seconds: float) -> None:
    """Read the hub's tool list every `poll_seconds` and let `watch` compare it with what the client has.

    A hub that cannot be read changes nothing: the client's calls say why, and the next good read compares. Nor
    does anything else one read runs into (a list it cannot make sense of, a notification that fails): it is logged
    and the next read tries again, because the bridge's process ends with this loop and its client would lose
    every tool, not just the news of a changed list."""
    while True:
        await anyio.sleep(poll_seconds)
        if token() is None:
            continue
        try:
            listing = await hub.request("GET", "/tools/list", None, seconds=LIST_TIMEOUT_SECONDS)
            await watch.compare(tools_of(listing))
        except HubError:
            continue
        except Exception:
            log.exception("reading the hub's tool list failed; trying again at the next poll")


async def serve_stdio(hub: HubClient, token: TokenSource, version: str = "", poll_seconds: float = 5.0) -> None:
    watch = ToolListWatch()
    server = build_server(hub, token, version, watch)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(watch_hub, hub, token, watch, poll_seconds)
            await mcp_stdio.serve_stdio(server, options)
            group.cancel_scope.cancel()
    finally:
        await hub.aclose()


def run_bridge(url: str, token: TokenSource, version: str = "", poll_seconds: float = 5.0) -> None:
    """Serve on stdin/stdout until the client closes the stream."""
    log.info("mcp bridge starting", extra={"hub": url})
    anyio.run(serve_stdio, HubClient(url, token), token, version, poll_seconds)
