"""Declare MCP tools from typed functions; every result becomes an envelope the caller can read.

    server = EnvelopeServer("filer")

    @envelope_tool(server)
    def read_file(path: Annotated[str, Field(description="Relative to the workspace")]) -> FileContent:
        '''Read a text file from the workspace.'''
        ...

The signature is the input schema and the docstring the description (the SDK derives both). What the
function returns becomes `{"success": true, "data": ...}`; a `ToolFailure` it raises becomes
`{"success": false, "error": ..., "errorCode": ...}` with `isError` set; anything else is logged with its
traceback on the server and reaches the caller as one sentence, never a stack trace.

How a call with bad input is answered (MCP 2025-11-25, "Error Handling" of the tools page):
- arguments that do not fit the tool's schema are a *tool execution error*, so a model can read it and retry:
  `isError: true` with the envelope `{"success": false, "errorCode": "INVALID_ARGUMENTS", "error": "..."}`,
  one bounded sentence (see `shared.validation`), never pydantic's raw text;
- an argument the tool does not declare is rejected the same way, naming at most a few of them (the one rule
  for unknown arguments, shared with the hub's own tools);
- a tool name the server does not have is a *protocol error*: JSON-RPC `-32602` "Unknown tool: <name>";
- a line on stdin that is not JSON-RPC is answered `-32700` / `-32600` (see `shared.mcp_stdio`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_origin

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ValidationError

from shared.envelope import Envelope, ErrorCode, fail, ok
from shared.logs import configure_logging
from shared.mcp_stdio import serve_stdio
from shared.settings import CommonSettings, ConfigError, load_settings
from shared.text import shorten
from shared.validation import MAX_NAME_CHARS, describe_problems, unknown_names_message

log = logging.getLogger(__name__)

FnT = TypeVar("FnT", bound=Callable[..., Any])
ServiceT = TypeVar("ServiceT")
LifespanT = TypeVar("LifespanT")
SettingsT = TypeVar("SettingsT", bound=CommonSettings)


class ToolFailure(Exception):
    """A failure the caller should read: the message is shown as is, with `code` as the errorCode."""

    code: ErrorCode = ErrorCode.TOOL_ERROR

    def __init__(self, message: str, *, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


@dataclass(frozen=True)
class Untrusted:
    """A tool's result holding content nobody vouches for (memory written from a stranger's mail, say): returned
    instead of the plain value, its envelope says `untrusted`, so the hub taints the turn that reads it and the
    Thinker shows it to the model as data."""

    data: Any


class InvalidArguments(ToolFailure):
    code = ErrorCode.INVALID_ARGUMENTS


class NotAllowed(ToolFailure):
    code = ErrorCode.NOT_ALLOWED


class NotFound(ToolFailure):
    code = ErrorCode.NOT_FOUND


@dataclass(frozen=True)
class ServerState(Generic[ServiceT]):
    """What an MCP server's lifespan hands to every tool: its ready service, or the sentence saying why there is
    none. A server with a configuration problem still starts and lists its tools; each call then answers with
    `problem`, so the user learns what to fix from the first call instead of from a dead process."""

    service: ServiceT | None
    problem: str | None = None

    def require(self) -> ServiceT:
        if self.service is None:
            raise ToolFailure(self.problem or "This MCP server is not configured; its log says why.")
        return self.service


def configured_lifespan(
    settings_class: type[SettingsT], *, name: str, display: str
) -> Callable[
    [Callable[[SettingsT], AsyncIterator[ServerState[ServiceT]]]],
    Callable[[MCPServer[Any]], AbstractAsyncContextManager[ServerState[ServiceT]]],
]:
    """Make an MCP server's lifespan from `body(settings)`, an async generator yielding its `ServerState`.

    Settings that do not load do not stop the server: it starts, lists its tools and answers every call with
    "<display> cannot work until its configuration is fixed: ...", logged once as "<name> cannot start"
    (on the logger of the module that defines `body`)."""

    def decorate(
        body: Callable[[SettingsT], AsyncIterator[ServerState[ServiceT]]],
    ) -> Callable[[MCPServer[Any]], AbstractAsyncContextManager[ServerState[ServiceT]]]:
        serve = asynccontextmanager(body)
        server_log = logging.getLogger(body.__module__)

        @asynccontextmanager
        async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[ServerState[ServiceT]]:
            try:
                settings = load_settings(settings_class)
            except ConfigError as exc:
                server_log.error("%s cannot start: %s", name, exc)
                yield ServerState(None, f"{display} cannot work until its configuration is fixed: {exc}")
                return
            async with serve(settings) as state:
                yield state

        return lifespan

    return decorate


@asynccontextmanager
async def background_task(work: Coroutine[Any, Any, None], name: str) -> AsyncIterator[asyncio.Task[None]]:
    """Run `work` beside a server's lifespan (a poller, an idle reaper): cancelled, and waited for, when it ends."""
    task = asyncio.create_task(work, name=name)
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def effects(
    *, read_only: bool, destructive: bool = False, idempotent: bool = False, open_world: bool = False
) -> ToolAnnotations:
    """A tool's MCP annotations (the standard's `readOnlyHint`, `destructiveHint`, `idempotentHint`,
    `openWorldHint`): what calling it can change. The hub's side-effect policy reads them, so every tool of ours
    says them explicitly instead of leaving the spec's defaults (which assume the worst) to speak for it.

    `read_only`: changes nothing anywhere; `destructive`: may delete or overwrite what was there; `idempotent`:
    the same call twice changes nothing more; `open_world`: reaches beyond this machine (web, mail, chat)."""
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive and not read_only,
        idempotent_hint=idempotent or read_only,
        open_world_hint=open_world,
    )


READ_ONLY = effects(read_only=True)
"""Reads local state only (the workspace, memory, the scan log)."""
READ_ONLY_OPEN_WORLD = effects(read_only=True, open_world=True)
"""Reads from beyond this machine (web search, mailbox, calendar) and changes nothing."""
LOCAL_WRITE = effects(read_only=False)
"""Adds to local state (a new file, fact, record) without overwriting anything."""
LOCAL_OVERWRITE = effects(read_only=False, destructive=True)
"""Changes or deletes local state that was there (a file's content, a fact, a skill)."""
REMOTE_WRITE = effects(read_only=False, open_world=True)
"""Acts beyond this machine: sends a message or mail, creates an event others see, changes a mailbox."""
REMOTE_OVERWRITE = effects(read_only=False, destructive=True, open_world=True)
"""Deletes or changes something beyond this machine (a mail, an event, a message)."""


def to_jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    return value


def envelope_result(envelope: dict[str, Any]) -> CallToolResult:
    text = json.dumps(envelope, ensure_ascii=False, default=str)
    # A file name that is not valid UTF-8 arrives as lone surrogates; sent as is they would break the UTF-8
    # JSON-RPC stream (and the hub's response after it), so they become '?' here.
    text = text.encode("utf-8", "replace").decode("utf-8")
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=not envelope["success"])


def describe_validation(exc: ValidationError) -> str:
    """Invalid arguments in one bounded sentence (unknown names gathered, at most a few quoted)."""
    return describe_problems(exc)


class EnvelopeServer(MCPServer[LifespanT]):
    """An `MCPServer` for tools registered with `envelope_tool`: bad arguments (unknown ones included) come back
    as `INVALID_ARGUMENTS` envelopes, an unknown tool as JSON-RPC `-32602`, and on stdio a line that is not
    JSON-RPC is answered per JSON-RPC 2.0 (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._accepted: dict[str, frozenset[str]] = {}

    def add_envelope_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: str,
        description: str,
        annotations: ToolAnnotations | None,
        accepted: frozenset[str],
    ) -> None:
        """Register `fn` as tool `name`, which takes exactly the arguments named in `accepted`."""
        self.add_tool(fn, name=name, description=description, annotations=annotations)
        self._accepted[name] = accepted

    def service(self: EnvelopeServer[ServerState[ServiceT]], ctx: Context[ServerState[ServiceT], Any]) -> ServiceT:
        """The ready service behind the tool being called; a `ToolFailure` saying why when there is none."""
        return ctx.request_context.lifespan_context.require()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[LifespanT, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        accepted = self._accepted.get(name)
        if accepted is None:
            if name not in {tool.name for tool in await self.list_tools()}:
                raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {shorten(name, MAX_NAME_CHARS)}")
            return await super().call_tool(name, arguments, context)
        unknown = [key for key in arguments if key not in accepted]
        if unknown:
            log.info("tool rejected unknown arguments", extra={"tool": name, "count": len(unknown)})
            message = unknown_names_message(unknown, accepted=accepted)
            return envelope_result(fail(ErrorCode.INVALID_ARGUMENTS, message))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            log.info("tool rejected arguments", extra={"tool": name, "count": exc.__cause__.error_count()})
            return envelope_result(fail(ErrorCode.INVALID_ARGUMENTS, describe_validation(exc.__cause__)))

    async def run_stdio_async(self) -> None:
        server = self._lowlevel_server
        await serve_stdio(server, server.create_initialization_options())


def _is_context(annotation: Any) -> bool:
    origin = get_origin(annotation) or annotation
    return isinstance(origin, type) and issubclass(origin, Context)


def envelope_tool(
    server: EnvelopeServer[Any], *, name: str | None = None, annotations: ToolAnnotations | None = None
) -> Callable[[FnT], FnT]:
    """Register `fn` on `server` as a tool whose outcome is always an envelope; `annotations` say what calling
    it can change (build them with `effects`, or use `READ_ONLY` / `READ_ONLY_OPEN_WORLD`)."""

    def decorate(fn: FnT) -> FnT:
        tool_name = name or fn.__name__
        signature = inspect.signature(fn, eval_str=True)
        is_async = inspect.iscoroutinefunction(fn)

        @functools.wraps(fn)
        async def run(*args: Any, **kwargs: Any) -> CallToolResult:
            try:
                if is_async:
                    result = await fn(*args, **kwargs)
                else:
                    # Blocking work (disk, subprocess) runs off the loop so pings and other calls keep flowing.
                    result = await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
            except ToolFailure as failure:
                return envelope_result(fail(failure.code, str(failure)))
            except ValidationError as exc:
                return envelope_result(fail(ErrorCode.INVALID_ARGUMENTS, describe_validation(exc)))
            except Exception as exc:
                log.exception("tool crashed", extra={"tool": tool_name})
                message = f"{tool_name} failed unexpectedly ({type(exc).__name__}); the server log has details."
                return envelope_result(fail(ErrorCode.TOOL_ERROR, message))
            if isinstance(result, Untrusted):
                return envelope_result(Envelope(success=True, data=to_jsonable(result.data), untrusted=True).to_dict())
            return envelope_result(ok(to_jsonable(result)))

        run.__signature__ = signature.replace(return_annotation=CallToolResult)  # type: ignore[attr-defined]
        accepted = frozenset(
            parameter.name for parameter in signature.parameters.values() if not _is_context(parameter.annotation)
        )
        server.add_envelope_tool(
            run,
            name=tool_name,
            description=inspect.cleandoc(fn.__doc__ or tool_name),
            annotations=annotations,
            accepted=accepted,
        )
        return fn

    return decorate


def run_stdio_server(server: MCPServer[Any], service: str) -> None:
    """Entry point of every `python -m <package>`: logging to file and stderr, then JSON-RPC on stdio."""
    try:
        settings = load_settings(CommonSettings)
    except ConfigError as exc:
        raise SystemExit(f"{service}: {exc}") from None
    configure_logging(service, settings.logs_dir, settings.log_level)
    log.info("mcp server starting", extra={"mcp": service})
    server.run("stdio")
