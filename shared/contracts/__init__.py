"""The contracts between Annabelle's processes: one pydantic model per request and answer that crosses.

- `thinker_api`: what the hub sends a Thinker and what it answers (`/process-message`, `/execute-skill`, ...).
- `hub_api`: what clients send the hub and what it answers (`/tools/list`, `/tools/call`, `/message`, ...).

Both sides of each boundary import the same model, so a limit or a field is defined once. Requests refuse
unknown fields; answers keep them without relying on them (a newer server may say more).
"""

from shared.contracts.hub_api import (
    AgentResumeRequest,
    HaltAnswer,
    HaltRequest,
    McpEntry,
    MessageAnswer,
    MessageRequest,
    ToolCallRequest,
    ToolEntry,
    ToolListing,
    ToolResult,
)
from shared.contracts.thinker_api import (
    Acknowledgement,
    BudgetLine,
    BudgetStanding,
    BudgetStop,
    ClearSessionRequest,
    CostResumeRequest,
    CostStatus,
    ExecuteSkillRequest,
    ProcessMessageRequest,
    SkillAnswer,
    TurnAnswer,
    paused_reason,
)

__all__ = [
    "Acknowledgement",
    "AgentResumeRequest",
    "BudgetLine",
    "BudgetStanding",
    "BudgetStop",
    "ClearSessionRequest",
    "CostResumeRequest",
    "CostStatus",
    "ExecuteSkillRequest",
    "HaltAnswer",
    "HaltRequest",
    "McpEntry",
    "MessageAnswer",
    "MessageRequest",
    "ProcessMessageRequest",
    "SkillAnswer",
    "ToolCallRequest",
    "ToolEntry",
    "ToolListing",
    "ToolResult",
    "TurnAnswer",
    "paused_reason",
]
