"""`agents.json`: the agents the hub runs and which channel/chat goes to which agent."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

DEFAULT_AGENT_ID = "annabelle"
DEFAULT_MODEL = "ollama_chat/qwen2.5:7b"


class AgentsConfigError(Exception):
    """agents.json is unreadable or invalid; the message names the file, the agent and the field."""


class CostControls(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    hardCapTokensPerHour: int = Field(default=250_000, ge=1_000)
    shortWindowMinutes: int = Field(default=2, ge=1, le=30)
    spikeMultiplier: float = Field(default=3.0, ge=1.5, le=10)
    minimumBaselineTokens: int = Field(default=1_000, ge=0)
    minimumBaselineRate: int = Field(default=10_000, ge=0)
    notifyChatId: str | None = None


class AgentDefinition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agentId: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
    enabled: bool = True
    port: int | None = Field(default=None, ge=0, le=65535)
    url: str | None = None
    model: str = Field(default=DEFAULT_MODEL, min_length=1)
    apiBase: str | None = None
    temperature: float = Field(default=0.6, ge=0, le=2)
    maxSteps: int = Field(default=8, ge=1, le=50)
    systemPrompt: str = ""
    allowedTools: list[str] = Field(default_factory=list)
    deniedTools: list[str] = Field(default_factory=list)
    idleTimeoutMinutes: int = Field(default=30, ge=1)
    costControls: CostControls = Field(default_factory=CostControls)

    @model_validator(mode="after")
    def _port_or_url(self) -> AgentDefinition:
        if self.port is not None and self.url is not None:
            raise ValueError("give either `port` (the hub spawns the Thinker) or `url` (it runs elsewhere), not both")
        return self


class Binding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    channel: str = Field(min_length=1)
    chatId: str = "*"
    agentId: str


class AgentsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agents: list[AgentDefinition] = Field(min_length=1)
    bindings: list[Binding] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> AgentsConfig:
        ids = [agent.agentId for agent in self.agents]
        duplicates = sorted({agent_id for agent_id in ids if ids.count(agent_id) > 1})
        if duplicates:
            raise ValueError(f"agent ids must be unique; repeated: {', '.join(duplicates)}")
        unknown = sorted({b.agentId for b in self.bindings} - set(ids))
        if unknown:
            raise ValueError(f"bindings name unknown agents: {', '.join(unknown)}")
        return self

    @classmethod
    def default(cls) -> AgentsConfig:
        """The single default agent used when there is no agents.json."""
        return cls(agents=[AgentDefinition(agentId=DEFAULT_AGENT_ID)])


def load_agents_config(path: Path) -> AgentsConfig:
    """Read agents.json; a missing file means the default single agent."""
    if not path.exists():
        return AgentsConfig.default()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise AgentsConfigError(f"{path}: cannot read agents config ({exc})") from None
    try:
        return AgentsConfig.model_validate(raw)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            loc = error["loc"]
            where = ".".join(str(part) for part in loc) or "(root)"
            if len(loc) >= 2 and loc[0] == "agents" and isinstance(loc[1], int):
                agents = raw.get("agents") if isinstance(raw, dict) else None
                if isinstance(agents, list) and loc[1] < len(agents) and isinstance(agents[loc[1]], dict):
                    agent_id = agents[loc[1]].get("agentId", f"#{loc[1]}")
                    where = f"agent {agent_id!r}: " + (".".join(str(p) for p in loc[2:]) or "(entry)")
            problems.append(f"{where}: {error['msg']}")
        raise AgentsConfigError(f"{path}:\n  " + "\n  ".join(problems)) from None
