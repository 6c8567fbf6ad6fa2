"""Gmail's settings: where the OAuth files and the polling state live, Google's base URL, polling."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from shared.settings import CommonSettings, UserPath

DEFAULT_API_BASE = "https://www.googleapis.com"


class GmailSettings(CommonSettings):
    """`GMAIL_*` and `GOOGLE_API_BASE`; unset paths default to places under `$ANNABELLE_HOME/gmail/`."""

    gmail_credentials_path: UserPath | None = Field(
        default=None, description="Google's OAuth client file (default $ANNABELLE_HOME/gmail/credentials.json)."
    )
    gmail_token_path: UserPath | None = Field(
        default=None, description="The OAuth token written by `annabelle setup gmail` (default …/gmail/token.json)."
    )
    google_api_base: str = Field(
        default=DEFAULT_API_BASE, description="Root URL of Google's REST APIs (Gmail and Calendar paths are appended)."
    )
    gmail_polling_enabled: bool = Field(
        default=False,
        description="Poll the inbox in the background (else get_new_emails polls when called).",
    )
    gmail_poll_interval_seconds: float = Field(default=60.0, gt=0, description="Seconds between two polls.")
    gmail_http_timeout_seconds: float = Field(default=30.0, gt=0, description="Timeout of one request to Google.")

    @field_validator("google_api_base", mode="after")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @property
    def gmail_dir(self) -> Path:
        return self.annabelle_home / "gmail"

    @property
    def credentials_path(self) -> Path:
        return self.gmail_credentials_path or self.gmail_dir / "credentials.json"

    @property
    def token_path(self) -> Path:
        return self.gmail_token_path or self.gmail_dir / "token.json"

    @property
    def poll_state_path(self) -> Path:
        return self.gmail_dir / "poll-state.json"
