"""Conversation sessions of the Thinker: storage, the history sent to the model, and compaction.

- `store`       JSONL session files (`SessionStore`), their entries (`Session`, `Turn`, `Compaction`) and parsing
- `history`     history for the model: relevance selection, repair of tool-call chains, truncation
- `compaction`  when and how old turns become a summary
- `messages`    the canonical chat message TypedDicts (OpenAI format, what litellm takes)
- `utility_llm` the utility model seam (`TextCompletion`); the Thinker's `ModelClient` provides it
- `errors`      `SessionError` and its subclasses
"""

from thinker.sessions.compaction import CompactionConfig, compact, should_compact
from thinker.sessions.errors import InvalidChatId, SessionError, SessionWriteError, UtilityModelError
from thinker.sessions.history import build_history, repair_history, select_relevant_history, truncate_tool_results
from thinker.sessions.messages import ChatMessage
from thinker.sessions.store import Compaction, Session, SessionStore, TokenUsage, Turn, make_turn
from thinker.sessions.utility_llm import TextCompletion

__all__ = [
    "ChatMessage",
    "Compaction",
    "CompactionConfig",
    "InvalidChatId",
    "Session",
    "SessionError",
    "SessionStore",
    "SessionWriteError",
    "TextCompletion",
    "TokenUsage",
    "Turn",
    "UtilityModelError",
    "build_history",
    "compact",
    "make_turn",
    "repair_history",
    "select_relevant_history",
    "should_compact",
    "truncate_tool_results",
]
