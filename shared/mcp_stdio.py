"""Serve an MCP server on stdin/stdout, answering lines that are not JSON-RPC messages as JSON-RPC 2.0 says.

The SDK's stdio transport hands a line it cannot decode to the session as an exception, and the session drops
it: a client that sent garbage waits for an answer that never comes. Here every such line is answered at once:

- not JSON (or not UTF-8, which the transport reads as U+FFFD and so is not JSON either): `-32700` Parse error,
  `"id": null`;
- JSON, but not a JSON-RPC 2.0 request, notification or response (an array, a missing `method`, `params` that
  are not an object, …): `-32600` Invalid Request, with the request's `id` when it has a usable one.

Neither answer quotes the input, so its size does not depend on what was sent. Everything that is a message
goes on to the server untouched, and the SDK's claim on the process's stdin and stdout (stray prints go to
stderr, not onto the wire) is kept.

When stdin and stdout are pipes or sockets (always, under the hub or an MCP client) they are read and written on
the event loop (`shared.stdio_pipes`) rather than by the SDK's transport, which hops to a worker thread for every
line read, every write and every flush.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.models import InitializationOptions
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

from shared import stdio_pipes

log = logging.getLogger(__name__)

PARSE_ERROR_MESSAGE = "Parse error: the line is not valid JSON."
INVALID_REQUEST_MESSAGE = "Invalid Request: not a JSON-RPC 2.0 request, notification or response."


def _request_id(exc: ValidationError) -> str | int | None:
    """The `id` of the object that failed to decode, when it has one of a valid type (JSON-RPC's rule: a string
    or a number; `null` when it cannot be determined)."""
    for error in exc.errors():
        candidate = error.get("input")
        if isinstance(candidate, dict):
            value = candidate.get("id")
            if isinstance(value, str | int) and not isinstance(value, bool):
                return value
    return None


def rejection(exc: Exception) -> JSONRPCError:
    """The JSON-RPC error answering a line the transport could not decode into a message."""
    if isinstance(exc, ValidationError):
        if any(error.get("type") == "json_invalid" for error in exc.errors()):
            return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=PARSE_ERROR_MESSAGE))
        return JSONRPCError(
            jsonrpc="2.0", id=_request_id(exc), error=ErrorData(code=INVALID_REQUEST, message=INVALID_REQUEST_MESSAGE)
        )
    return JSONRPCError(jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message=PARSE_ERROR_MESSAGE))


@asynccontextmanager
async def _stdio() -> AsyncIterator[tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]]:
    """(messages from the client or undecodable lines, messages to it) on stdin and stdout."""
    transport = stdio_pipes.pipe_stdio() if stdio_pipes.usable() else stdio_server()
    async with transport as streams:
        yield streams


async def serve_stdio(server: Server[Any], options: InitializationOptions) -> None:
    """Run `server` on this process's stdin/stdout until the client closes stdin."""
    async with _stdio() as (from_client, to_client):
        messages, server_input = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with messages:
                async for item in from_client:
                    if not isinstance(item, Exception):
                        await messages.send(item)
                        continue
                    answer = rejection(item)
                    log.info("undecodable line answered", extra={"code": answer.error.code})
                    try:
                        await to_client.send(SessionMessage(answer))
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return  # the session is over; nobody is left to answer

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            await server.run(server_input, to_client, options)
            group.cancel_scope.cancel()
