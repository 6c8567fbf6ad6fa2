"""The hub's HTTP API: the bodies its clients send and the answers they read.

The hub validates requests with these models and builds answers with them; its clients (the Thinker, the
`annabelle` CLI, `annabelle mcp`, tests) send and read them through `shared.hub_client.HubClient`.

    GET  /tools/list   → ToolListing
    POST /tools/call   ToolCallRequest → ToolResult (always HTTP 200: the envelope)
    POST /message      MessageRequest  → MessageAnswer
    POST /kill, /resume                 HaltRequest → HaltAnswer
    POST /agents/{id}/execute-skill     thinker_api.ExecuteSkillRequest → thinker_api.SkillAnswer
    POST /agents/{id}/resume            AgentResumeRequest → thinker_api.Acknowledgement
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from shared.contracts.thinker_api import MAX_ID_CHARS, MAX_TEXT_CHARS, Answer, Request
from shared.envelope import Envelope
from shared.manifest import ToolEffects

MAX_TOOL_NAME_CHARS = 200
TURN_HEADER = "X-Annabelle-Turn"
"""On an agent's `POST /tools/call`: the turn (from `turnId`) the call belongs to; the hub keeps its taint."""

ADVANCED = "x-advanced"
"""Key a tool's author sets (`true`) on an optional parameter of its `inputSchema` that is for configuring by hand
(the owner over HTTP, the CLI, a SKILL.md file): a run's token limits, a tool allow-list, the scheduler's own
bookkeeping. The Thinker leaves such parameters out of what the model is shown (`thinker/compact.py`); the tool
still takes them and applies its default when they are missing. Declared with `advanced(...)` instead of `Field`."""


def advanced(**field: Any) -> Any:
    """`pydantic.Field(**field)` for a parameter marked `ADVANCED` (typed `Any`, as `Field` is, to sit in defaults)."""
    return Field(**field, json_schema_extra={ADVANCED: True})


ToolResult = Envelope
"""`POST /tools/call`'s answer: `{success, data?, error?, errorCode?, blocked?}` (see shared/envelope.py)."""


class ToolCallRequest(Request):
    name: str = Field(
        min_length=1, max_length=MAX_TOOL_NAME_CHARS, description="Exposed tool name, e.g. `filer_read_file`."
    )
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments as an object.")


class ToolEntry(Answer):
    name: str
    description: str = ""
    inputSchema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    annotations: ToolEffects | None = None
    """What calling it can change (the MCP standard's tool annotations)."""


class McpEntry(Answer):
    label: str = ""
    toolGroup: str = ""
    keywords: list[str] = Field(default_factory=list)
    toolCount: int = 0
    available: bool = True
    external: bool = False


class ToolListing(Answer):
    """Every tool the caller may use, and per-MCP metadata (labels and groups for tool selection)."""

    tools: list[ToolEntry] = Field(default_factory=list)
    mcps: dict[str, McpEntry] = Field(default_factory=dict)


class MessageRequest(Request):
    message: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="What the user says.")
    chatId: str = Field(
        default="http", min_length=1, max_length=MAX_ID_CHARS, description="Conversation id on the http channel."
    )


class MessageAnswer(Answer):
    """A chat message's outcome: the reply, or why there is none (`paused`, `halted`, `blocked`)."""

    success: bool
    reply: str | None = None
    error: str | None = None
    agentId: str | None = None
    toolsUsed: list[str] | None = None
    command: bool | None = None
    """True when a slash command answered (no model was asked)."""
    paused: bool | None = None
    halted: bool | None = None
    blocked: bool | None = None
    notice: str | None = None
    """A pause notice sent beside a reply the pausing turn had already paid for."""
    tainted: bool | None = None
    """Guardian found the message suspicious but below the owner's block bar: it went through, marked."""


HaltTarget = Literal["all", "thinker", "channel", "scheduler"]


class HaltRequest(Request):
    target: HaltTarget = Field(
        description="What to halt or resume: `thinker` (chat gets no LLM), `channel` (inbound chat except slash "
        "commands), `scheduler` (scheduled skills), or `all`."
    )
    reason: str = Field(default="", max_length=500, description="Why (shown by /status); for /kill only.")


class HaltAnswer(Answer):
    success: bool
    message: str
    halted: dict[str, Any]


class ApprovalDecision(Request):
    decision: Literal["approve", "deny"] = Field(description="Run the held call, or not.")


class AgentResumeRequest(Request):
    resetWindow: bool = Field(default=False, description="Also forget the token usage that caused the pause.")


__all__ = [
    "MAX_TOOL_NAME_CHARS",
    "TURN_HEADER",
    "AgentResumeRequest",
    "ApprovalDecision",
    "HaltAnswer",
    "HaltRequest",
    "HaltTarget",
    "McpEntry",
    "MessageAnswer",
    "MessageRequest",
    "ToolCallRequest",
    "ToolEntry",
    "ToolListing",
    "ToolResult",
]
