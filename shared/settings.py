"""Typed settings: one class per service, read from the environment and a `.env` file.

Every field maps to the environment variable of the same name in upper case (`orchestrator_port` ↔
`ORCHESTRATOR_PORT`). `load_settings` turns pydantic's errors into one `ConfigError` whose message names each
offending variable, so a typo in `.env` fails start-up with a sentence, not a traceback.

Each variable is declared once. A variable that several services read is declared in one of the groups below
(`HubAddressSettings`, `AgentsFileSettings`, `TimezoneSettings`, `WorkspaceSettings`, `OllamaSettings`,
`UtilityModelSettings`), and each service's class inherits the groups it reads. The README's configuration table
lists every variable of every class (a test compares them).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal, TypeVar, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dotenv import dotenv_values
from pydantic import AfterValidator, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.litellm_loader import ModelEndpoint, endpoint
from shared.timeutil import system_zone_name

ENV_FILE_VARIABLE = "ANNABELLE_ENV_FILE"
REPO_ROOT = Path(__file__).resolve().parent.parent
"""The checkout (or installed tree) that holds the MCP packages, agents.json and external-mcps.json."""
OFF = "off"
"""`UTILITY_MODEL=off` switches the utility model's features off (a blank value means "unset")."""

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


def _expanded(path: Path) -> Path:
    return path.expanduser().absolute()


UserPath = Annotated[Path, AfterValidator(_expanded)]
"""A path setting as the user wrote it: `~` expanded, a relative path taken from the working directory."""


class ConfigError(Exception):
    """The configuration is invalid; the message lists every problem by variable name."""


class CommonSettings(BaseSettings):
    """Settings every Annabelle process reads."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    annabelle_home: Path = Field(
        default=Path("~/.annabelle"), description="Data, logs, sessions, skills, workspace and token."
    )
    annabelle_token: SecretStr | None = Field(
        default=None, description="Master token; else read from (or created in) $ANNABELLE_HOME/annabelle.token."
    )
    annabelle_bind_host: str = Field(default="127.0.0.1", description="Interface the HTTP services bind to.")
    log_level: LogLevel = Field(default="INFO", description="Level for stderr and the log files.")

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: object) -> object:
        # `FILER_WORKSPACE=` or `UTILITY_MODEL=` in a .env file means "not set": for every setting that may be
        # unset, a blank value becomes None (not "" nor the current directory); each setting then applies its rule.
        if not isinstance(data, dict):
            return data
        optional = {name for name, field in cls.model_fields.items() if _accepts_none(field.annotation)}
        return {
            key: None if key in optional and isinstance(value, str) and not value.strip() else value
            for key, value in data.items()
        }

    @field_validator("annabelle_home", mode="after")
    @classmethod
    def _expand_home(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @property
    def logs_dir(self) -> Path:
        return self.annabelle_home / "logs"

    @property
    def data_dir(self) -> Path:
        return self.annabelle_home / "data"


def process_environment() -> dict[str, str]:
    """The environment as settings see it: the process environment over the `.env` file (`ANNABELLE_ENV_FILE`).

    For what settings classes do not declare: variables handed on to child processes, `${VAR}` in
    external-mcps.json, and the diagnostics reading another service's variables."""
    env_file = os.environ.get(ENV_FILE_VARIABLE, ".env")
    from_file = {key: value for key, value in dotenv_values(env_file).items() if value is not None}
    return {**from_file, **os.environ}


# -- groups of variables that several services read ---------------------------------------------------------------


class HubAddressSettings(CommonSettings):
    """Where the hub's HTTP API is: the hub serves on the port, the Thinker and the CLI call it."""

    orchestrator_port: int = Field(default=8010, ge=1, le=65535, description="Port of the hub's HTTP API.")
    orchestrator_url: str | None = Field(
        default=None, description="The hub's URL for its clients; default http://127.0.0.1:$ORCHESTRATOR_PORT."
    )

    @property
    def hub_url(self) -> str:
        return (self.orchestrator_url or f"http://127.0.0.1:{self.orchestrator_port}").rstrip("/")


class BridgeSettings(HubAddressSettings):
    """`annabelle mcp`: the hub's address and how often it looks for a changed tool list."""

    mcp_bridge_poll_seconds: float = Field(
        default=5.0,
        gt=0,
        le=3600,
        description="How often `annabelle mcp` reads the hub's tool list to tell its client the list changed.",
    )


class AgentsFileSettings(CommonSettings):
    """The agents: the hub starts their Thinkers, a Thinker reads its own entry."""

    agents_config: Path = Field(
        default=REPO_ROOT / "agents.json", description="The agents and their bindings; missing: one default agent."
    )
    thinker_port: int = Field(
        default=8006, ge=0, le=65535, description="Port of an agent without its own `port` (0 = any free port)."
    )

    @field_validator("agents_config", mode="before")
    @classmethod
    def _default_agents_config(cls, value: object) -> object:
        blank = value is None or (isinstance(value, str) and not value.strip())
        return REPO_ROOT / "agents.json" if blank else value


class TimezoneSettings(CommonSettings):
    """The owner's time zone: dates in prompts, skill schedules and one-shot times that name no zone."""

    annabelle_timezone: str | None = Field(
        default=None, description="IANA zone (e.g. Europe/Lisbon); default the machine's."
    )

    @field_validator("annabelle_timezone", mode="after")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            ZoneInfo(value.strip())
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{value!r} is not an IANA time zone name (e.g. Europe/Lisbon)") from None
        return value.strip()

    @property
    def timezone_name(self) -> str:
        """ANNABELLE_TIMEZONE, else the machine's zone by its IANA name (UTC when the machine does not say)."""
        return self.annabelle_timezone or system_zone_name()

    @property
    def timezone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone_name)


class NetGuardSettings(CommonSettings):
    """`WEB_FETCH_ALLOWED_HOSTS`, read by every part that reaches the web for the model (web_fetch, the browser),
    so one list of exemptions from the SSRF refusals (`shared.netguard`) applies to all of them."""

    web_fetch_allowed_hosts: str = Field(
        default="",
        description="Comma list of host names, IPs or CIDR ranges that may be reached although they are private.",
    )

    @property
    def allowed_hosts(self) -> list[str]:
        return [item.strip() for item in self.web_fetch_allowed_hosts.split(",") if item.strip()]


class WorkspaceSettings(CommonSettings):
    """The Filer's workspace: other MCPs may read or write there too (media, imports, screenshots)."""

    filer_workspace: UserPath | None = Field(default=None, description="Default $ANNABELLE_HOME/workspace.")

    @property
    def workspace(self) -> Path:
        return self.filer_workspace or self.annabelle_home / "workspace"


class ApprovalSettings(CommonSettings):
    """How long a call held for the owner's approval waits: the hub holds it, the Thinker waits for it."""

    approval_timeout_s: float = Field(
        default=300.0, ge=1, le=3600, description="Seconds a held call waits for the owner before it expires."
    )


class OllamaSettings(CommonSettings):
    ollama_host: str = Field(
        default="http://localhost:11434", description="The Ollama server of every `ollama*/` model and embedding."
    )


class UtilityModelSettings(OllamaSettings):
    """The cheap model for background work: compaction, fact extraction, memory decisions, synthesis."""

    utility_model: str | None = Field(
        default=None, description="litellm model string; unset: the agent's own model; `off`: those features off."
    )
    utility_api_base: str | None = Field(default=None, description="Its server; default OLLAMA_HOST for ollama models.")
    utility_api_key: SecretStr | None = Field(default=None, description="Its key; else the provider's usual variable.")

    @property
    def utility_off(self) -> bool:
        return (self.utility_model or "").strip().lower() == OFF

    def utility_endpoint(self, timeout: float) -> ModelEndpoint | None:
        """The configured utility model, or None when it is unset (the caller falls back) or off."""
        if not self.utility_model or self.utility_off:
            return None
        key = self.utility_api_key.get_secret_value() if self.utility_api_key else None
        return endpoint(self.utility_model, self.utility_api_base, key, ollama_host=self.ollama_host, timeout=timeout)


def _accepts_none(annotation: object) -> bool:
    return annotation is None or type(None) in get_args(annotation)


SettingsT = TypeVar("SettingsT", bound=BaseSettings)


def load_settings(cls: type[SettingsT], **overrides: object) -> SettingsT:
    """Build `cls` from the environment (and `.env`), raising `ConfigError` that names each bad variable."""
    env_file = os.environ.get(ENV_FILE_VARIABLE, ".env")
    try:
        return cls(_env_file=env_file, **overrides)  # type: ignore[call-arg]
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc)) from None


def describe_validation_error(exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        variable = "_".join(str(part) for part in error["loc"]).upper() or "(settings)"
        given = error.get("input")
        shown = f" (got {given!r})" if isinstance(given, str | int | float) else ""
        lines.append(f"{variable}: {error['msg']}{shown}")
    return "Invalid configuration:\n  " + "\n  ".join(lines)
