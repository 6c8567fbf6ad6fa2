"""Declare MCP tools from typed functions; every result becomes an envelope the caller can read.

    server = create_server("filer")

    @envelope_tool(server)
    def read_file(path: Annotated[str, Field(description="Relative to the workspace")]) -> FileContent:
        '''Read a text file from the workspace.'''
        ...

The signature is the input schema and the docstring the description (the SDK derives both). What the
function returns becomes `{"success": true, "data": ...}`; a `ToolFailure` it raises becomes
`{"success": false, "error": ..., "errorCode": ...}` with `isError` set; anything else is logged with its
traceback on the server and reaches the caller as one sentence, never a stack trace.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import anyio.to_thread
from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ValidationError

from shared.envelope import ErrorCode, fail, ok
from shared.logs import configure_logging
from shared.settings import CommonSettings, ConfigError, load_settings
from shared.validation import error_lines

log = logging.getLogger(__name__)

FnT = TypeVar("FnT", bound=Callable[..., Any])
ServiceT = TypeVar("ServiceT")


class ToolFailure(Exception):
    """A failure the caller should read: the message is shown as is, with `code` as the errorCode."""

    code: ErrorCode = ErrorCode.TOOL_ERROR

    def __init__(self, message: str, *, code: ErrorCode | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidArguments(ToolFailure):
    code = ErrorCode.INVALID_ARGUMENTS


class NotAllowed(ToolFailure):
    code = ErrorCode.NOT_ALLOWED


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
    return "Invalid arguments: " + "; ".join(error_lines(exc, root="arguments"))


def envelope_tool(
    server: MCPServer, *, name: str | None = None, annotations: ToolAnnotations | None = None
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
            return envelope_result(ok(to_jsonable(result)))

        run.__signature__ = signature.replace(return_annotation=CallToolResult)  # type: ignore[attr-defined]
        server.add_tool(
            run, name=tool_name, description=inspect.cleandoc(fn.__doc__ or tool_name), annotations=annotations
        )
        return fn

    return decorate


def run_stdio_server(server: MCPServer, service: str) -> None:
    """Entry point of every `python -m <package>`: logging to file and stderr, then JSON-RPC on stdio."""
    try:
        settings = load_settings(CommonSettings)
    except ConfigError as exc:
        raise SystemExit(f"{service}: {exc}") from None
    configure_logging(service, settings.logs_dir, settings.log_level)
    log.info("mcp server starting", extra={"mcp": service})
    server.run("stdio")
