"""The Thinker's HTTP API: every request the hub sends a Thinker, and every answer it gets back.

The Thinker validates requests with these models (extra fields refused, limits checked) and builds its answers
with them; the hub builds its requests with them and reads the answers with them (extra fields kept but never relied
on, so a newer Thinker may say more). Nothing else crosses: no hand-built dicts on either side.

    POST /process-message  ProcessMessageRequest → TurnAnswer
    POST /execute-skill    ExecuteSkillRequest   → SkillAnswer
    POST /clear-session    ClearSessionRequest   → Acknowledgement
    GET  /cost-status                            → CostStatus
    POST /cost-resume      CostResumeRequest     → Acknowledgement
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

MAX_TEXT_CHARS = 100_000
"""A chat message or a skill's instructions."""
MAX_ID_CHARS = 200
"""Chat, message, sender and skill ids."""
MAX_SKILL_STEPS = 50
MAX_REQUIRED_TOOLS = 100


def _whole_number(value: object) -> object:
    """JSON Schema counts 23.0 as an integer; strict pydantic would not."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


JsonInt = Annotated[int, BeforeValidator(_whole_number)]
"""An integer as JSON Schema has it: 23 and 23.0, never "23" or true."""


class Request(BaseModel):
    """A request body: unknown fields are a mistake the sender hears about, and so is a value of the wrong type
    (`"noTools": 0` is not a boolean; strict, as the OpenAPI description says)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Answer(BaseModel):
    """An answer body: fields a newer sender adds are kept (and passed on) but never required; unset optional
    fields stay off the wire."""

    model_config = ConfigDict(extra="allow")

    def wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class ProcessMessageRequest(Request):
    id: str = Field(min_length=1, max_length=MAX_ID_CHARS, description="The message's id on its channel.")
    chatId: str = Field(min_length=1, max_length=MAX_ID_CHARS, description="The conversation it belongs to.")
    senderId: str = Field(min_length=1, max_length=MAX_ID_CHARS, description="Who sent it.")
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="What they said.")
    date: str = Field(min_length=1, max_length=64, description="When, as an ISO 8601 timestamp.")
    channel: str = Field(min_length=1, max_length=64, description="telegram, http, cli...")
    agentId: str | None = Field(
        default=None, max_length=MAX_ID_CHARS, description="The agent meant; must be this Thinker's when given."
    )
    tainted: bool = Field(default=False, description="Guardian flagged the text as possibly untrusted.")
    owner: bool = Field(
        default=False,
        description="The owner sent it, in a chat only they read: a secret the turn read may be shown in the reply.",
    )
    turnId: str | None = Field(
        default=None, max_length=64, description="The hub's turn: send it with every tool call of this turn."
    )


class ExecuteSkillRequest(Request):
    """A skill run (the scheduler, `POST /agents/{id}/execute-skill`, a subagent's task)."""

    skillId: JsonInt | str | None = Field(default=None, description="The stored skill's id, when there is one.")
    skillName: str | None = Field(default=None, max_length=MAX_ID_CHARS)
    instructions: str = Field(min_length=1, max_length=MAX_TEXT_CHARS, description="What the skill must do.")
    maxSteps: JsonInt = Field(default=10, ge=1, le=MAX_SKILL_STEPS, description="Model calls the run may take.")
    noTools: bool = Field(default=False, description="Offer no tools at all.")
    requiredTools: list[str] | None = Field(
        default=None, max_length=MAX_REQUIRED_TOOLS, description="Exactly these tools, nothing else (a strict sandbox)."
    )
    chatId: str | None = Field(default=None, max_length=MAX_ID_CHARS, description="Chat to report to, if any.")
    turnId: str | None = Field(
        default=None, max_length=64, description="The hub's turn: send it with every tool call of this run."
    )


class ClearSessionRequest(Request):
    chatId: str = Field(min_length=1, max_length=MAX_ID_CHARS)


class CostResumeRequest(Request):
    resetWindow: bool = Field(default=False, description="Also forget the usage that caused the pause.")


class TurnAnswer(Answer):
    """One chat turn's outcome."""

    success: bool
    response: str = ""
    toolsUsed: list[str] = Field(default_factory=list)
    totalSteps: int = 0
    error: str | None = None
    paused: bool | None = None
    """True when the agent is paused by its cost controls (the turn may still carry a paid-for response)."""

    @classmethod
    def paused_refusal(cls, reason: str) -> TurnAnswer:
        """A paused agent's answer to anything it is asked: no model call was made."""
        return cls(success=False, paused=True, error=reason)


class SkillAnswer(TurnAnswer):
    """A skill run's outcome: a turn's fields plus a one-line summary for the run record."""

    summary: str = ""


class Acknowledgement(Answer):
    success: bool
    message: str = ""
    error: str | None = None


class CostStatus(Answer):
    """The cost monitor: usage over the last hour against the agent's limits (the original's shape)."""

    enabled: bool = True
    paused: bool = False
    pauseReason: str | None = None
    pausedAt: str | None = None
    currentHourTokens: int = 0
    shortWindowTokensPerMinute: int = 0
    baselineTokensPerMinute: int = 0
    hardCapTokensPerHour: int = 0
    spikeMultiplier: float = 0.0
    shortWindowMinutes: int = 0
    activeBuckets: int = 0


def paused_reason(agent_id: str, why: str | None = None) -> str:
    """The one sentence a paused agent answers with, naming how to resume it."""
    because = f": {why.rstrip('.')}" if why else ""
    return (
        f"The agent {agent_id!r} is paused by its cost controls{because}. It answers nothing until resumed: "
        f"send /resume or POST /agents/{agent_id}/resume."
    )


__all__ = [
    "MAX_ID_CHARS",
    "MAX_REQUIRED_TOOLS",
    "MAX_SKILL_STEPS",
    "MAX_TEXT_CHARS",
    "Acknowledgement",
    "Answer",
    "ClearSessionRequest",
    "CostResumeRequest",
    "CostStatus",
    "ExecuteSkillRequest",
    "ProcessMessageRequest",
    "Request",
    "SkillAnswer",
    "TurnAnswer",
    "paused_reason",
]
