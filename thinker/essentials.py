"""The Thinker's three essential tools: short, stable names for what a conversation needs most.

`send_telegram`, `store_fact` and `search_memories` are thin aliases of hub tools (`telegram_send_message`,
`memory_store_fact`, `memory_retrieve_memories`) with fewer parameters, so a small model gets them right;
memory calls carry this agent's id so facts land under the right agent. An essential is offered only when the
hub lists the tool behind it (for this agent): no tool is ever offered that cannot run.

Each essential's parameters are a pydantic model: its JSON schema is what the model sees, and validating the
model's arguments with it gives the sentence the model reads when it gets them wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shared.contracts.memory import FactCategory
from shared.validation import error_lines


class SendTelegramParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    message: str = Field(min_length=1, description="The text to send.")
    chat_id: str | None = Field(default=None, description="Target chat; leave it out to answer in the current chat.")
    reply_to: int | None = Field(default=None, description="Message id to reply to.")


class StoreFactParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    fact: str = Field(min_length=1, description='A short, self-contained statement, e.g. "Prefers tea".')
    category: FactCategory = Field(description="What kind of fact it is.")


class SearchMemoriesParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    query: str = Field(min_length=1, description="What to look for, in words.")
    limit: int = Field(default=5, ge=1, le=50, description="Most results to return.")


@dataclass(frozen=True)
class Essential:
    name: str
    description: str
    hub_tool: str
    params: type[BaseModel]
    translate: Callable[[Any, str], dict[str, Any]]
    """(validated params, agent id) → the hub tool's arguments."""

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.params.model_json_schema()

    def hub_arguments(self, arguments: Mapping[str, Any], agent_id: str) -> dict[str, Any]:
        """The hub tool's arguments; raises ValueError with a readable sentence on bad input."""
        try:
            params = self.params.model_validate(dict(arguments))
        except ValidationError as exc:
            raise ValueError(f"{self.name}: " + "; ".join(error_lines(exc))) from None
        return self.translate(params, agent_id)


def _telegram(params: SendTelegramParams, _: str) -> dict[str, Any]:
    out: dict[str, Any] = {"message": params.message}
    if params.chat_id:
        out["chat_id"] = params.chat_id
    if params.reply_to is not None:
        out["reply_to"] = params.reply_to
    return out


def _store_fact(params: StoreFactParams, agent_id: str) -> dict[str, Any]:
    return {"fact": params.fact, "category": params.category, "agent_id": agent_id}


def _search(params: SearchMemoriesParams, agent_id: str) -> dict[str, Any]:
    return {"query": params.query, "limit": params.limit, "agent_id": agent_id}


ESSENTIALS: dict[str, Essential] = {
    e.name: e
    for e in (
        Essential(
            "send_telegram",
            # The model sees the first sentence only (compact.py); tool selection embeds each sentence, so the
            # second says what users ask for in their words.
            "Send a Telegram message (to the current chat unless chat_id is given). "
            "For requests like: ping Maria on Telegram, post this in the group chat, message me the list.",
            "telegram_send_message",
            SendTelegramParams,
            _telegram,
        ),
        Essential(
            "store_fact",
            "Remember one fact about the user for later conversations. "
            "For requests like: note that I moved to Berlin, my daughter is allergic to nuts, from now on I prefer "
            "aisle seats.",
            "memory_store_fact",
            StoreFactParams,
            _store_fact,
        ),
        Essential(
            "search_memories",
            "Search what you remember about the user (facts and past conversations). "
            "For requests like: what do you know about my job, have I mentioned my car, which hotel did I like "
            "last year.",
            "memory_retrieve_memories",
            SearchMemoriesParams,
            _search,
        ),
    )
}


def available_essentials(hub_tools: set[str] | frozenset[str]) -> list[Essential]:
    """The essentials whose hub tool this agent can call."""
    return [essential for essential in ESSENTIALS.values() if essential.hub_tool in hub_tools]
