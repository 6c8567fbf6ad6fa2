"""`agents.json`: the agents the hub runs and which channel/chat goes to which agent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

DEFAULT_AGENT_ID = "annabelle"
DEFAULT_MODEL = "ollama_chat/qwen2.5:7b"
PARENT_WATCH_VARIABLE = "ANNABELLE_PARENT_WATCH"
"""Set to `stdin` by the hub: the Thinker exits when its stdin (a pipe the hub holds open) reaches end of file."""
DEFAULT_TURN_SECONDS = 300.0
MAX_TURN_SECONDS = 3_600.0
TURN_GRACE_SECONDS = 30.0
"""What the hub waits beyond an agent's `turnTimeoutSeconds`: the Thinker's work before and after its loop
(context, selection, saving the turn) and the request's way there and back."""
DEFAULT_MAX_OUTPUT_TOKENS = 4_096
"""The most tokens one model answer of an agent may have unless its `maxOutputTokens` says otherwise."""
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


# The original system's `llmProvider` (its agents.json named the provider beside a bare model name) → the litellm
# prefix and, for LM Studio, the server's usual address.
ORIGINAL_PROVIDERS: dict[str, tuple[str, str | None]] = {
    "groq": ("groq/", None),
    "ollama": ("ollama_chat/", None),
    "lmstudio": ("openai/", "http://127.0.0.1:1234/v1"),
}
_OLLAMA_PREFIXES = ("ollama/", "ollama_chat/")


def _original_model(agent: dict[str, object], provider: object, where: str) -> list[str]:
    """Fold the original's `llmProvider` into the agent's litellm `model` (and `apiBase` for LM Studio), in place.

    Returns the notes for the one warning; an unknown provider is left for validation to name."""
    if not isinstance(provider, str) or provider.lower() not in ORIGINAL_PROVIDERS:
        known = ", ".join(ORIGINAL_PROVIDERS)
        raise ValueError(f"{where}: llmProvider {provider!r} is not one of the original's providers ({known})")
    prefix, api_base = ORIGINAL_PROVIDERS[provider.lower()]
    model = agent.get("model")
    if not isinstance(model, str) or not model.strip():
        return [f"{where}: llmProvider {provider!r} ignored (no model to apply it to)"]
    model = model.strip()
    already = model.startswith(_OLLAMA_PREFIXES) if prefix in _OLLAMA_PREFIXES else model.startswith(prefix)
    if not already:
        # The original's Groq models are often `org/name` (meta-llama/llama-4-...): the provider prefix still goes
        # first, or litellm would take `meta-llama` for the provider.
        agent["model"] = prefix + model
    if api_base is not None and agent.get("apiBase") is None:
        agent["apiBase"] = api_base
    return [f"{where}: llmProvider {provider!r} + model {model!r} read as model {agent['model']!r}"]


def upgrade_original_keys(raw: object) -> tuple[object, list[str]]:
    """An agents.json written for the original system, made readable here (pure): `llmProvider` is folded into
    `model`, `costControls.notifyChannel` is dropped (notifications go through the hub's one notifier, to
    `notifyChatId` or the owner's chat). Returns the upgraded copy and one note per change, for one warning.

    Keys neither system knows are left in place, so validation still names a misspelt key."""
    if not isinstance(raw, dict) or not isinstance(raw.get("agents"), list):
        return raw, []
    notes: list[str] = []
    agents: list[object] = []
    for index, entry in enumerate(raw["agents"]):
        if not isinstance(entry, dict):
            agents.append(entry)
            continue
        agent = dict(entry)
        where = f"agent {agent.get('agentId', f'#{index}')!r}"
        if "llmProvider" in agent:
            notes.extend(_original_model(agent, agent.pop("llmProvider"), where))
        controls = agent.get("costControls")
        if isinstance(controls, dict) and "notifyChannel" in controls:
            controls = dict(controls)
            channel = controls.pop("notifyChannel")
            agent["costControls"] = controls
            if channel not in (None, "", "telegram"):
                notes.append(
                    f"{where}: costControls.notifyChannel {channel!r} ignored (notifications go to Telegram, "
                    "to costControls.notifyChatId or the owner's chat)"
                )
        agents.append(agent)
    return {**raw, "agents": agents}, notes


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
    turnTimeoutSeconds: float = Field(default=DEFAULT_TURN_SECONDS, ge=1, le=MAX_TURN_SECONDS)
    """The time one turn (or skill run) may take in the Thinker, model calls and tool calls together; the hub
    waits this long plus `TURN_GRACE_SECONDS`. A slow local model needs more than a hosted one."""
    maxOutputTokens: int = Field(default=DEFAULT_MAX_OUTPUT_TOKENS, ge=64, le=131_072)
    """The most tokens one model answer may have, a tool call's arguments included. An answer that reaches it ends
    with a sentence saying so; on a slow local model it bounds the wait for a runaway answer."""
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


def turn_wait(agent: AgentDefinition) -> float:
    """How long the hub waits for one of `agent`'s turns: the Thinker answers before this, whatever the model does."""
    return agent.turnTimeoutSeconds + TURN_GRACE_SECONDS


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
    _notes: list[str] = PrivateAttr(default_factory=list)

    @property
    def compatibility_notes(self) -> list[str]:
        """What was read from keys of the original system's agents.json (mapped or ignored): for one warning."""
        return list(self._notes)

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
    """Read agents.json; a missing file means the default single agent. Keys of the original system's file are
    mapped or dropped (`compatibility_notes` says which; the hub logs them as one warning)."""
    if not path.exists():
        return AgentsConfig.default()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise AgentsConfigError(f"{path}: cannot read agents config ({exc})") from None
    try:
        raw, notes = upgrade_original_keys(raw)
    except ValueError as exc:
        raise AgentsConfigError(f"{path}:\n  {exc}") from None
    try:
        config = AgentsConfig.model_validate(raw)
        config._notes = notes
        return config
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
