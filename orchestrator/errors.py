"""Exceptions of the hub.

    HubError
    ├── StartupError        a required MCP could not start; the hub does not serve
    └── McpCallError        a call could not reach its MCP or got no answer
        ├── McpUnavailable  the MCP is down, restarting, given up or disabled
        └── McpTimeout      no answer within the MCP's timeout

Every message is a sentence a model or a person can act on.
"""

from __future__ import annotations


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
