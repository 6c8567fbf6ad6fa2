"""The Thinker's settings (environment and `.env`), and the agent it runs, looked up in agents.json by id.

Every field is the upper-cased environment variable of the same name (`thinker_port` ↔ `THINKER_PORT`).
The agent's own settings (model, apiBase, temperature, maxSteps, systemPrompt, costControls) come from its
entry in `AGENTS_CONFIG`; a missing file means the single default agent `annabelle`.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import Field, SecretStr

from shared.agents import AgentDefinition, AgentsConfigError, load_agents_config
from shared.auth import read_token
from shared.embeddings.base import EmbeddingSettings
from shared.litellm_loader import ModelEndpoint, endpoint
from shared.settings import (
    AgentsFileSettings,
    ApprovalSettings,
    HubAddressSettings,
    TimezoneSettings,
    UtilityModelSettings,
)
from thinker.selection import SelectionConfig


class AgentNotFound(Exception):
    """The requested agent id is not in agents.json; the message lists the ids that are."""


class ThinkerSettings(
    EmbeddingSettings,
    HubAddressSettings,
    AgentsFileSettings,
    TimezoneSettings,
    UtilityModelSettings,
    ApprovalSettings,
):
    annabelle_agent_token: SecretStr | None = Field(
        default=None, description="This agent's token, minted by the hub: sent to the hub and accepted inbound."
    )
    thinker_api_key: SecretStr | None = Field(
        default=None, description="Key for the agent's model; else the provider's usual variable (OPENAI_API_KEY…)."
    )
    thinker_max_tool_result_chars: int = Field(
        default=20_000, ge=500, description="A tool result longer than this is cut before the model sees it."
    )
    thinker_max_turn_tokens: int = Field(
        default=200_000, ge=1_000, description="Tokens one turn may spend across its model calls before it stops."
    )
    thinker_max_tool_retries: int = Field(
        default=3, ge=0, le=10, description="Malformed tool calls (unknown name, bad JSON) sent back per turn."
    )
    thinker_llm_timeout_seconds: float = Field(default=90.0, gt=0, description="One model call's time limit.")
    thinker_hub_timeout_seconds: float = Field(
        default=120.0, gt=0, description="One hub call's time limit (tool calls included)."
    )
    thinker_fact_extraction_enabled: bool = Field(
        default=True, description="After a chat is idle, ask the utility model for new facts and store them."
    )
    thinker_fact_extraction_idle_seconds: float = Field(
        default=300.0, gt=0, description="Quiet time after which a chat's facts are extracted."
    )
    thinker_compaction_enabled: bool = Field(
        default=True, description="Summarise a long chat's older turns (with the utility model)."
    )
    thinker_session_max_age_days: float = Field(
        default=7.0, gt=0, description="Session files untouched this long are deleted."
    )
    history_relevance_threshold: float = Field(
        default=0.45, ge=0, le=1, description="Older exchanges at least this similar to the message join the history."
    )
    tool_selector_max_tools: int | None = Field(
        default=None, ge=1, le=128, description="Cap on the tools sent per message, core included (default 10)."
    )
    tool_selector_top_k: int | None = Field(default=None, ge=1, description="Most tools picked from the ranking.")
    tool_selector_min_tools: int | None = Field(default=None, ge=0, description="Fewest tools picked from the ranking.")
    tool_selector_threshold: float | None = Field(default=None, description="Lowest score a picked tool may have.")
    tool_selector_second_weight: float | None = Field(
        default=None,
        ge=0,
        description="Weight of the second encoder (multilingual-e5-small) in tool selection; 0: off.",
    )
    tool_selector_schema_budget: int | None = Field(
        default=None,
        ge=0,
        description="Most characters of tool definitions offered beside the core tools, the two best tools included "
        "(default 3500, about 1,000 tokens); 0: no budget, only the cap on the number of tools.",
    )
    thinker_sticky_tools_lookback: int | None = Field(
        default=None, ge=0, description="Turns whose tools stay offered for follow-ups (default 3)."
    )
    thinker_sticky_tools_max: int | None = Field(default=None, ge=0, description="Most sticky tools (default 4).")
    thinker_tool_cache_seconds: float = Field(
        default=60.0, ge=0, description="How long the hub's tool list is reused before it is fetched again."
    )

    def selection_config(self) -> SelectionConfig:
        """The tool selection's defaults with the TOOL_SELECTOR_* / THINKER_STICKY_* variables that are set."""
        overrides = {
            "max_tools": self.tool_selector_max_tools,
            "top_k": self.tool_selector_top_k,
            "min_tools": self.tool_selector_min_tools,
            "threshold": self.tool_selector_threshold,
            "second_weight": self.tool_selector_second_weight,
            "schema_budget": self.tool_selector_schema_budget,
            "sticky_lookback": self.thinker_sticky_tools_lookback,
            "sticky_max": self.thinker_sticky_tools_max,
        }
        return replace(SelectionConfig(), **{key: value for key, value in overrides.items() if value is not None})

    @property
    def agent_token(self) -> str | None:
        return self.annabelle_agent_token.get_secret_value() if self.annabelle_agent_token else None

    def master_token(self) -> str | None:
        """Re-read on each call: the hub may create the token file after this process started."""
        env = self.annabelle_token.get_secret_value() if self.annabelle_token else None
        return read_token(self.annabelle_home, env)

    def hub_token(self) -> str | None:
        """What this Thinker sends to the hub: its agent token, else (run by hand) the master token."""
        return self.agent_token or self.master_token()


def load_agent(settings: ThinkerSettings, agent_id: str) -> AgentDefinition:
    """The agent `agent_id` from `AGENTS_CONFIG`; raises AgentsConfigError or AgentNotFound with one sentence."""
    config = load_agents_config(settings.agents_config)
    for agent in config.agents:
        if agent.agentId == agent_id:
            return agent
    known = ", ".join(agent.agentId for agent in config.agents)
    where = settings.agents_config if settings.agents_config.exists() else "the default configuration"
    raise AgentNotFound(f"There is no agent {agent_id!r} in {where}; known agents: {known}.")


def agent_model(settings: ThinkerSettings, agent: AgentDefinition) -> ModelEndpoint:
    key = settings.thinker_api_key.get_secret_value() if settings.thinker_api_key else None
    return endpoint(
        agent.model, agent.apiBase, key, ollama_host=settings.ollama_host, timeout=settings.thinker_llm_timeout_seconds
    )


def utility_model(settings: ThinkerSettings, agent: AgentDefinition) -> ModelEndpoint:
    """UTILITY_MODEL (+ its base and key) if set, else the agent's own model."""
    return settings.utility_endpoint(settings.thinker_llm_timeout_seconds) or agent_model(settings, agent)


__all__ = [
    "AgentNotFound",
    "AgentsConfigError",
    "ThinkerSettings",
    "agent_model",
    "load_agent",
    "utility_model",
]
