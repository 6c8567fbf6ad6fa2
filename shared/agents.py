"""`agents.json`: the agents the hub runs and which channel/chat goes to which agent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

DEFAULT_AGENT_ID = "annabelle"
DEFAULT_MODEL = "ollama_chat/qwen2.5:7b"
PARENT_WATCH_VARIABLE = "ANNABELLE_PARENT_WATCH"
"""Set to `stdin` by the hub: the Thinker exits when its stdin (a pipe the hub holds open) reaches end of file."""
MODEL_EXAMPLES = "groq/llama-3.3-70b-versatile, ollama_chat/qwen2.5:7b, or openai/<model> with apiBase"
# A channel is named after its MCP (telegram, http, cli...); "*" matches every channel.
CHANNEL_PATTERN = r"^(\*|[a-z][a-z0-9_-]{0,63})$"


def _http_url(value: str | None, field: str, example: str) -> str | None:
    """`value` if it is an http(s) URL with a host; a sentence naming the field otherwise."""
    if value is None:
        return None
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{field} must be an http:// or https:// URL with a host, e.g. {example}")
    return value.strip().rstrip("/")


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


TokenLimit = Annotated[int | None, Field(ge=0, strict=True)]
"""A whole number of tokens (`200000`, not `"200k"`, `2e5` or `true`); 0 allows no model call at all."""
UsdLimit = Annotated[float | None, Field(ge=0, strict=True)]


class Budgets(BaseModel):
    """Spend limits checked before every model call (thinker/budgets.py); each is optional and unset means none.

    Days and months are the owner's (ANNABELLE_TIMEZONE). USD limits apply only to models whose price litellm
    knows; tokens always apply."""

    model_config = ConfigDict(extra="forbid")

    dailyTokens: TokenLimit = None
    monthlyTokens: TokenLimit = None
    dailyUsd: UsdLimit = None
    monthlyUsd: UsdLimit = None
    account: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
    """Whose spend ledger the limits are checked against (default: the agent's own). A subagent gets its
    parent's, so a task handed to a subagent spends from the parent's budget; agents naming one account share it."""

    @property
    def any(self) -> bool:
        limits = self.model_dump(exclude={"account"})
        return any(value is not None for value in limits.values())


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
    budgets: Budgets = Field(default_factory=Budgets)

    @field_validator("model", mode="after")
    @classmethod
    def _provider_prefix(cls, value: str) -> str:
        # litellm guesses the provider of a bare name, often wrongly (a local model sent to OpenAI): say it.
        if "/" not in value.strip("/"):
            raise ValueError(f"model {value!r} has no provider prefix; write provider/model, e.g. {MODEL_EXAMPLES}")
        return value.strip()

    @field_validator("apiBase", mode="after")
    @classmethod
    def _api_base_url(cls, value: str | None) -> str | None:
        return _http_url(value, "apiBase", "http://127.0.0.1:1234/v1")

    @field_validator("url", mode="after")
    @classmethod
    def _thinker_url(cls, value: str | None) -> str | None:
        return _http_url(value, "url", "http://thinker:8006")

    @model_validator(mode="after")
    def _port_or_url(self) -> AgentDefinition:
        if self.port is not None and self.url is not None:
            raise ValueError("give either `port` (the hub spawns the Thinker) or `url` (it runs elsewhere), not both")
        return self


class Binding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    channel: str = Field(description="telegram, http, ... or * for every channel.")
    chatId: str = Field(default="*", min_length=1)
    agentId: str

    @field_validator("channel", mode="after")
    @classmethod
    def _channel_name(cls, value: str) -> str:
        if not re.fullmatch(CHANNEL_PATTERN, value):
            raise ValueError(
                f"channel {value!r} is not a channel name: use the channel's lower-case name (telegram, http) or *"
            )
        return value


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
        self._ports_distinct()
        return self

    def _ports_distinct(self) -> None:
        """Two Thinkers the hub spawns cannot share a port (0 means any free port, so it never clashes)."""
        ports = [agent.port for agent in self.agents if agent.url is None and agent.enabled and agent.port]
        shared = sorted({port for port in ports if ports.count(port) > 1})
        if shared:
            raise ValueError(f"agents must not share a port; repeated: {', '.join(str(port) for port in shared)}")

    @classmethod
    def default(cls) -> AgentsConfig:
        """The single default agent used when there is no agents.json."""
        return cls(agents=[AgentDefinition(agentId=DEFAULT_AGENT_ID)])


def fixed_thinker_ports(config: AgentsConfig, default_port: int) -> dict[str, tuple[int, str]]:
    """The agents whose Thinker the hub starts on a known port: agent id → (port, the setting that chose it).

    An agent's own `port` wins; the first agent without one takes THINKER_PORT; the others (and `port: 0`, and
    THINKER_PORT=0) get a free port when they start, so they are not here. Agents with a `url` run elsewhere."""
    ports: dict[str, tuple[int, str]] = {}
    default_taken = False
    for agent in config.agents:
        if agent.url is not None:
            continue
        if agent.port:
            ports[agent.agentId] = (agent.port, f"the port of {agent.agentId!r} in agents.json")
        elif agent.port is None and default_port and not default_taken:
            ports[agent.agentId] = (default_port, "THINKER_PORT")
            default_taken = True
    return ports


def default_agent(config: AgentsConfig) -> AgentDefinition | None:
    """`annabelle` when it is configured and enabled, else the first enabled agent, else None."""
    enabled = [agent for agent in config.agents if agent.enabled]
    return next((agent for agent in enabled if agent.agentId == DEFAULT_AGENT_ID), enabled[0] if enabled else None)


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
            message = error["msg"].removeprefix("Value error, ")
            problems.append(f"{where}: {message}")
        raise AgentsConfigError(f"{path}:\n  " + "\n  ".join(problems)) from None
