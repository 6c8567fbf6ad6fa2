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

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

MAX_TEXT_CHARS = 100_000
"""A chat message or a skill's instructions."""
MAX_ID_CHARS = 200
"""Chat, message, sender and skill ids."""
MAX_SKILL_STEPS = 50
MAX_REQUIRED_TOOLS = 100
MAX_SKILL_TOKENS = 1_000_000_000
"""A skill's token limits (per run, per day) are at most this: more is a typo, not a budget."""


def _whole_number(value: object) -> object:
    """JSON Schema counts 23.0 as an integer; strict pydantic would not."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


JsonInt = Annotated[int, BeforeValidator(_whole_number)]
"""An integer as JSON Schema has it: 23 and 23.0, never "23" or true."""

SkillTokens = Annotated[int, Field(ge=0, le=MAX_SKILL_TOKENS), BeforeValidator(_whole_number)]
"""A skill's token limit, a `JsonInt` with its bounds inside: put on the optional field, or after the validator,
they reach the OpenAPI description as pydantic's own `ge`/`le` words instead of `minimum`/`maximum`, which JSON
Schema clients (schemathesis found it) do not know."""


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
    maxTokensPerRun: SkillTokens | None = Field(
        default=None,
        description="Tokens this run may spend; a model call that could pass it is not made (0 or absent: no limit).",
    )
    dailyTokens: SkillTokens | None = Field(
        default=None,
        description="Tokens this skill may spend per day (the owner's day), over all its runs (0 or absent: no limit); "
        "runs are the same skill by skillId, else skillName, else the same instructions.",
    )


class ClearSessionRequest(Request):
    chatId: str = Field(min_length=1, max_length=MAX_ID_CHARS)


class CostResumeRequest(Request):
    resetWindow: bool = Field(default=False, description="Also forget the usage that caused the pause.")


BudgetScope = Literal["agent", "skill"]
BudgetLimit = Literal["dailyTokens", "monthlyTokens", "dailyUsd", "monthlyUsd", "maxTokensPerRun"]
BudgetUnit = Literal["tokens", "usd"]
BudgetWindow = Literal["day", "month", "run"]


class BudgetStanding(Answer):
    """Where one budget limit stands in its current window.

    `scope` + `limit` name it: `agent`/`dailyTokens` is the agent's `budgets.dailyTokens` in agents.json,
    `skill`/`maxTokensPerRun` the skill's own limit."""

    scope: BudgetScope
    limit: BudgetLimit
    unit: BudgetUnit
    window: BudgetWindow
    limitValue: float
    used: float
    """Spent in the window (or this run)."""
    skill: str | None = None
    resetsAt: str | None = None
    """When the window starts again (ISO 8601 with the owner's offset); none for a run's limit."""


class BudgetStop(BudgetStanding):
    """Which budget stopped a turn before a model call (machine-readable; `error` carries the sentence); `used`
    is what was spent before the refused call."""

    estimate: float
    """What the refused call could have spent: its prompt counted plus its largest possible answer."""
    agentId: str
    notify: bool = False
    """The first stop for this limit in this window: the hub tells the owner (once, even across restarts)."""


class TurnAnswer(Answer):
    """One chat turn's outcome."""

    success: bool
    response: str = ""
    toolsUsed: list[str] = Field(default_factory=list)
    totalSteps: int = 0
    error: str | None = None
    paused: bool | None = None
    """True when the agent is paused by its cost controls (the turn may still carry a paid-for response)."""
    errorCode: Literal["BUDGET_EXCEEDED"] | None = None
    """Machine-readable: `BUDGET_EXCEEDED` when a budget stopped the turn before a model call."""
    budget: BudgetStop | None = None
    """Set when a budget stopped the turn before a model call (`error` and `response` hold the sentence)."""

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


class BudgetLine(BudgetStanding):
    """Spend against one budget limit, in its current window, for the cost status."""

    priced: bool = True
    """False for a USD limit while litellm knows no price for the model: it cannot be judged (tokens still are)."""


class CostStatus(Answer):
    """The cost monitor: usage over the last hour against the agent's limits (the original's shape), and spend
    against each budget of agents.json and of the skills that ran today."""

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
    budgets: list[BudgetLine] = Field(default_factory=list)
    budgetNote: str | None = None
    """A sentence about what the budgets cannot see (a model without a known price)."""


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
    "MAX_SKILL_TOKENS",
    "MAX_TEXT_CHARS",
    "Acknowledgement",
    "Answer",
    "BudgetLimit",
    "BudgetLine",
    "BudgetScope",
    "BudgetStanding",
    "BudgetStop",
    "BudgetUnit",
    "BudgetWindow",
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
