"""Turn whatever an MCP answered into the bare envelope. Pure functions, no I/O.

First-party MCPs already answer with an envelope in their text content; it is passed through after a check of
its shape. Anything else (external MCPs) becomes `data`, with `success = not isError`. SDK validation text
becomes `INVALID_ARGUMENTS` with the pydantic noise removed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp.types import CallToolResult, TextContent

from shared.envelope import Envelope, ErrorCode, fail, ok

# "Error executing tool read_file: 1 validation error for read_fileArguments\npath\n  Field required [type=..."
_VALIDATION = re.compile(r"^Error executing tool (?P<tool>\S+): \d+ validation errors? for \S+\n(?P<body>.*)$", re.S)
_UNKNOWN_TOOL = re.compile(r"^Unknown tool: (?P<tool>\S+)")
_ERROR_PREFIX = re.compile(r"^Error executing tool \S+: ")


def describe_sdk_validation(body: str) -> str:
    """'path\\n  Field required [type=missing, ...]' → 'path: Field required'."""
    problems: list[str] = []
    field: str | None = None
    for line in body.splitlines():
        if not line.strip() or line.strip().startswith("For further information"):
            continue
        if not line.startswith(" "):
            field = line.strip()
            continue
        message = re.sub(r"\s*\[type=.*$", "", line.strip())
        problems.append(f"{field}: {message}" if field else message)
    return "; ".join(problems) or body.strip()


def _text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def _first_party_envelope(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("success"), bool):
        return None
    try:
        return Envelope.model_validate(parsed).to_dict()
    except ValueError:
        return None


def _content_as_data(result: CallToolResult) -> Any:
    if result.structured_content is not None:
        return result.structured_content
    if result.content and all(isinstance(block, TextContent) for block in result.content):
        return _text_of(result)
    return [block.model_dump(mode="json", exclude_none=True) for block in result.content]


def to_envelope(exposed_name: str, result: CallToolResult) -> dict[str, Any]:
    text = _text_of(result)
    envelope = _first_party_envelope(text)
    if envelope is not None:
        return envelope
    if not result.is_error:
        return ok(_content_as_data(result))
    if match := _VALIDATION.match(text):
        detail = describe_sdk_validation(match["body"])
        return fail(ErrorCode.INVALID_ARGUMENTS, f"Invalid arguments for {exposed_name}: {detail}")
    if _UNKNOWN_TOOL.match(text):
        return fail(ErrorCode.UNKNOWN_TOOL, f"{exposed_name} is not offered by its MCP any more.")
    message = _ERROR_PREFIX.sub("", text).strip() or f"{exposed_name} failed without saying why."
    return fail(ErrorCode.TOOL_ERROR, message)
