"""Typed settings: one class per service, read from the environment and a `.env` file.

Every field maps to the environment variable of the same name in upper case (`orchestrator_port` ↔
`ORCHESTRATOR_PORT`). `load_settings` turns pydantic's errors into one `ConfigError` whose message names each
offending variable, so a typo in `.env` fails start-up with a sentence, not a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, TypeVar, get_args

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_FILE_VARIABLE = "ANNABELLE_ENV_FILE"

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


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
    """`FILER_WORKSPACE`: the user's files. The Filer works in it; other parts save what they produce there
    (browser screenshots), so the user finds everything in one folder."""

    filer_workspace: Path | None = Field(
        default=None, description="The folder the Filer works in (default $ANNABELLE_HOME/workspace)."
    )

    @field_validator("filer_workspace", mode="after")
    @classmethod
    def _absolute_workspace(cls, value: Path | None) -> Path | None:
        return None if value is None else Path(value).expanduser().absolute()

    @property
    def workspace(self) -> Path:
        return self.filer_workspace or self.annabelle_home / "workspace"


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
