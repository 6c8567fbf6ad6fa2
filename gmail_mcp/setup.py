"""`python -m gmail_mcp.setup`: authorise Annabelle for Gmail and Calendar (what `annabelle setup gmail` runs).

Opens Google's consent page in a browser (the URL is printed too, for a headless server: open it anywhere that
can reach this machine's loopback port, e.g. through an SSH tunnel), receives the answer on 127.0.0.1 and saves
the token next to the client file's settings, mode 0600.
"""

from __future__ import annotations

import sys

from gmail_mcp.oauth import OAuthError, run_installed_app_flow
from gmail_mcp.settings import GmailSettings
from shared.settings import ConfigError, load_settings


def main() -> None:
    try:
        settings = load_settings(GmailSettings)
        run_installed_app_flow(settings.credentials_path, settings.token_path)
    except (ConfigError, OAuthError) as exc:
        sys.exit(f"annabelle setup gmail: {exc}")


if __name__ == "__main__":
    main()
