"""1Password's settings: the service account token `op` authenticates with, where `op` is, how long it may take."""

from __future__ import annotations

from pydantic import Field, SecretStr

from shared.settings import CommonSettings


class OnePasswordSettings(CommonSettings):
    """`OP_SERVICE_ACCOUNT_TOKEN` (1Password's own variable name, as `op` reads it) and `ONEPASSWORD_*`. Without a
    token the server still starts and lists its tools; each call says what to set."""

    op_service_account_token: SecretStr | None = Field(
        default=None, description="A 1Password service account token (ops_...), read-only access to chosen vaults."
    )
    onepassword_cli: str = Field(
        default="op", min_length=1, description="The `op` executable: a name on PATH or a path."
    )
    onepassword_timeout_seconds: float = Field(
        default=30.0, gt=0, le=300, description="How long one `op` command may take."
    )
