"""Exceptions of the hub.

    HubError
    ├── StartupError        a required MCP could not start; the hub does not serve
    └── McpCallError        a call could not reach its MCP or got no answer
        ├── McpUnavailable  the MCP is down, restarting, given up or disabled
        └── McpTimeout      no answer within the MCP's timeout

Every message is a sentence a model or a person can act on.
"""

from __future__ import annotations

from shared.text import shorten


class HubError(Exception):
    """Base of every error the hub raises on purpose."""


class StartupError(HubError):
    """A required MCP could not start."""


class McpCallError(HubError):
    """A tool call could not be completed by its MCP."""


class McpUnavailable(McpCallError):
    """The MCP is not there to take the call."""


class McpTimeout(McpCallError):
    """The MCP did not answer in time."""


def describe_cause(exc: BaseException, limit: int = 300) -> str:
    """`ConnectError: All connection attempts failed`: the error that really happened, out of the exception groups
    that task groups wrap it in (an SDK transport raises `ExceptionGroup: unhandled errors in a TaskGroup`)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split())
    described = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return shorten(described, limit)
