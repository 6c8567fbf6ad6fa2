"""The Telegram MCP's settings: the bot token, the Bot API server, the allow-list and where files may go."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator

from shared.settings import WorkspaceSettings

DEFAULT_API_BASE = "https://api.telegram.org"


class TelegramSettings(WorkspaceSettings):
    """`TELEGRAM_*` variables (and `FILER_WORKSPACE`, the only folder media may be read from or saved to)."""

    telegram_bot_token: SecretStr | None = Field(
        default=None, description="The bot's token from @BotFather; without it the tools only say what to set."
    )
    telegram_api_base: str = Field(
        default=DEFAULT_API_BASE, description="Root URL of the Bot API server; requests go to {base}/bot{token}/…"
    )
    telegram_allowed_chat_ids: str = Field(
        default="", description="Comma list of chat ids accepted; empty = pairing with a one-time code."
    )
    telegram_poll_timeout_seconds: int = Field(
        default=25, ge=0, le=50, description="Long-poll wait of each getUpdates call."
    )

    @field_validator("telegram_api_base", mode="after")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @field_validator("telegram_allowed_chat_ids", mode="after")
    @classmethod
    def _valid_ids(cls, value: str) -> str:
        parse_chat_ids(value)
        return value

    @property
    def allowed_chat_ids(self) -> frozenset[int]:
        return parse_chat_ids(self.telegram_allowed_chat_ids)

    @property
    def workspace(self) -> Path:
        return (self.filer_workspace or self.annabelle_home / "workspace").expanduser().absolute()

    @property
    def store_path(self) -> Path:
        return self.annabelle_home / "telegram" / "telegram.db"


def parse_chat_ids(raw: str) -> frozenset[int]:
    """`"123, -100456"` → {123, -100456}; anything that is not an integer is an error naming it."""
    ids = set()
    for part in raw.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            ids.add(int(part))
        except ValueError:
            raise ValueError(f"{part!r} is not a numeric chat id") from None
    return frozenset(ids)
