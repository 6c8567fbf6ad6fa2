"""The envelope every tool outcome is wrapped in, and its error codes.

A tool call either succeeds (`{"success": true, "data": ...}`) or fails with a sentence a model or a
person can act on and one code from `ErrorCode` (`{"success": false, "error": "...", "errorCode": "..."}`).
A Guardian block also carries `"blocked": true`. An `error` is at most `MAX_MESSAGE_CHARS` (2 KB): a message
that quotes what a caller sent (a path, a URL, a name) is cut there, so no answer grows with hostile input.
A result Guardian found suspicious but did not block carries `"suspicious": [threat types]` (and
`"untrusted": true`): the model is shown it as data, labelled suspicious.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from shared.text import shorten
from shared.validation import MAX_MESSAGE_CHARS


class ErrorCode(StrEnum):
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    """No tool of that name is routed (the error names the closest ones)."""
    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    """The arguments do not fit the tool's schema or its rules."""
    BLOCKED = "BLOCKED"
    """Guardian (or its fail-closed mode) stopped the call."""
    MCP_UNAVAILABLE = "MCP_UNAVAILABLE"
    """The MCP server behind the tool is down, restarting or disabled."""
    TIMEOUT = "TIMEOUT"
    """The tool did not answer within its MCP's timeout."""
    NOT_ALLOWED = "NOT_ALLOWED"
    """Policy forbids it: a path outside the workspace, a tool the agent may not use."""
    TOOL_ERROR = "TOOL_ERROR"
    """The tool ran and failed."""
    NOT_FOUND = "NOT_FOUND"
    """No record with that id (for this agent): nothing was read or changed."""
    APPROVAL_DENIED = "APPROVAL_DENIED"
    """The call waited for the owner's approval, and the owner said no: it did not run."""
    APPROVAL_EXPIRED = "APPROVAL_EXPIRED"
    """The call waited for the owner's approval, and nobody decided in time: it did not run."""


THREAT_TYPE = r"^[a-z][a-z_]{0,39}$"
"""A threat type as Guardian names it (`prompt_injection`): a fixed vocabulary, never text from the content."""


class Envelope(BaseModel):
    """The bare tool-call envelope, as `POST /tools/call` returns it."""

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    success: bool
    data: Any = None
    error: str | None = None
    errorCode: ErrorCode | None = None
    blocked: bool | None = None
    untrusted: bool | None = None
    """The result holds content nobody vouches for (the web, mail, other people): data, never instructions."""
    suspicious: Annotated[list[Annotated[str, Field(pattern=THREAT_TYPE)]], Field(max_length=8)] | None = None
    """Guardian's threat types for a result it marked (looks like an attack, not certain enough to block)."""

    def to_dict(self) -> dict[str, Any]:
        """The wire form: keys that carry nothing are left out (`data: null` is kept on success)."""
        out: dict[str, Any] = {"success": self.success}
        if self.untrusted:
            out["untrusted"] = True
        if self.suspicious:
            out["suspicious"] = list(self.suspicious)
        if self.success:
            out["data"] = self.data
            return out
        if self.data is not None:
            out["data"] = self.data
        out["error"] = shorten(self.error or "The tool call failed.", MAX_MESSAGE_CHARS)
        out["errorCode"] = self.errorCode or ErrorCode.TOOL_ERROR
        if self.blocked:
            out["blocked"] = True
        return out


def ok(data: Any = None) -> dict[str, Any]:
    """A success envelope in wire form."""
    return Envelope(success=True, data=data).to_dict()


def fail(code: ErrorCode, error: str, *, blocked: bool = False, data: Any = None) -> dict[str, Any]:
    """A failure envelope in wire form."""
    return Envelope(success=False, error=error, errorCode=code, blocked=blocked or None, data=data).to_dict()
