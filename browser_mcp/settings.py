"""The browser's settings: which Chromium, the profile, and the limits of every call."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from shared.settings import NetGuardSettings, UserPath, WorkspaceSettings


class BrowserSettings(NetGuardSettings, WorkspaceSettings):
    """`BROWSER_*` variables; `WEB_FETCH_ALLOWED_HOSTS` (SSRF exemptions) and `FILER_WORKSPACE` (where screenshots
    go) are the shared settings of the same name."""

    browser_executable: UserPath | None = Field(
        default=None,
        description="Chromium or Chrome binary; default: the first of chromium, chromium-browser, google-chrome on PATH.",
    )
    browser_isolated: bool = Field(
        default=True,
        description="A fresh, empty profile for every browser start; false keeps cookies and logins in the profile dir.",
    )
    browser_profile_dir: UserPath | None = Field(
        default=None, description="Profile kept when BROWSER_ISOLATED=false (default $ANNABELLE_HOME/browser/profile)."
    )
    browser_chromium_sandbox: bool = Field(
        default=False,
        description="Keep Chromium's own sandbox (needs user namespaces; off by default: root and containers lack it).",
    )
    browser_navigation_timeout_seconds: float = Field(
        default=30.0, gt=0, le=50, description="Longest wait for a page to load (navigate, back, wait_for)."
    )
    browser_action_timeout_seconds: float = Field(
        default=5.0, gt=0, le=30, description="Longest wait for an element to be ready for a click, type or hover."
    )
    browser_max_tabs: int = Field(default=5, ge=1, le=20, description="Most tabs open at once; popups past it close.")
    browser_max_snapshot_chars: int = Field(
        default=20000, ge=1000, le=200000, description="Longest snapshot text returned (longer ones are cut)."
    )
    browser_max_evaluate_chars: int = Field(
        default=5000, ge=100, le=100000, description="Longest evaluate result returned, as JSON text."
    )
    browser_idle_seconds: float = Field(
        default=300.0, ge=10, description="The browser process is closed after this long without a call."
    )

    @property
    def profile_dir(self) -> Path:
        return self.browser_profile_dir or self.annabelle_home / "browser" / "profile"
