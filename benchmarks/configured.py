"""The settings that make every MCP configured, for start-up figures "with all MCPs configured".

The MCPs whose manifest `needs` a setting (Gmail, Telegram, 1Password) are left for first use when it is missing
(`orchestrator/on_demand.py`). With `--configured` the start-up benchmarks give each one what it looks for, so the
hub starts all of them: a Gmail client file under the home, a Telegram bot token (its Bot API pointed at a closed
local port, so nothing leaves the machine), a 1Password service account token. None of them is used for a call.
"""

from __future__ import annotations

import json
from pathlib import Path

CLOSED_LOCAL_URL = "http://127.0.0.1:9"


def configure_all(home: Path) -> dict[str, str]:
    """Write what the MCPs read under `home`; the environment variables to add."""
    gmail = home / "gmail"
    gmail.mkdir(parents=True, exist_ok=True)
    client = {"installed": {"client_id": "bench", "client_secret": "bench", "token_uri": f"{CLOSED_LOCAL_URL}/token"}}
    (gmail / "credentials.json").write_text(json.dumps(client))
    return {
        "TELEGRAM_BOT_TOKEN": "123456:benchmark",
        "TELEGRAM_API_BASE": CLOSED_LOCAL_URL,
        "OP_SERVICE_ACCOUNT_TOKEN": "ops_benchmark",
        "GOOGLE_API_BASE": CLOSED_LOCAL_URL,
    }
