"""The Searcher's settings: the Brave key and base URL, the call spacing, and `web_fetch`'s limits."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator

from shared.settings import NetGuardSettings

DEFAULT_BRAVE_API_BASE = "https://api.search.brave.com"


class SearcherSettings(NetGuardSettings):
    """`BRAVE_*` and `WEB_FETCH_*` variables (`WEB_FETCH_ALLOWED_HOSTS` comes from `NetGuardSettings`). Without a key the server still starts; searches say what to set."""

    brave_api_key: SecretStr | None = Field(default=None, description="Brave Search API subscription token.")
    brave_api_base: str = Field(
        default=DEFAULT_BRAVE_API_BASE, description="Root URL of the Brave API; /res/v1/... is appended."
    )
    brave_rate_limit_ms: int = Field(default=1100, ge=0, description="Least time between two Brave calls (queued).")
    brave_timeout_seconds: float = Field(default=15.0, gt=0, description="How long one Brave call may take.")
    web_fetch_max_length: int = Field(
        default=20000, ge=1000, le=100000, description="Default maxLength of web_fetch, in characters."
    )
    web_fetch_max_bytes: int = Field(default=2 * 1024 * 1024, ge=1024, description="Largest page body web_fetch reads.")
    web_fetch_max_redirects: int = Field(default=5, ge=0, le=20, description="Most redirects web_fetch follows.")

    @field_validator("brave_api_base", mode="after")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.strip().rstrip("/") or DEFAULT_BRAVE_API_BASE
