"""Finding Chromium and the command-line switches it runs with. Pure apart from the `which` seam.

Playwright's Python wheel carries its driver but its own browser download is not used: the system's Chromium
(Debian's `chromium` package, or any Chrome) is launched instead. Without one the MCP still starts and lists its
tools; every call answers with `install_hint`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

Which = Callable[[str], str | None]

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

# What every start gets, besides Playwright's own defaults (which already silence most background traffic).
BASE_SWITCHES = (
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--no-pings",
    # WebRTC may send UDP straight to any address (ICE candidates); only proxied traffic is allowed out.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
)


def install_hint(configured: Path | None) -> str:
    """The one sentence every tool answers with when there is no browser to run."""
    if configured is not None:
        return (
            f"The browser is not available: BROWSER_EXECUTABLE is {configured}, which is not an executable file; "
            "point it at a Chromium or Chrome binary, or unset it after installing Chromium (apt-get install chromium)."
        )
    return (
        "The browser is not available because Chromium is not installed: install it with "
        "`sudo apt-get install chromium` (Debian/Ubuntu), build the Docker image with `--build-arg WITH_BROWSER=1`, "
        "or set BROWSER_EXECUTABLE to a Chromium or Chrome binary."
    )


def find_executable(configured: Path | None, which: Which = shutil.which) -> Path | None:
    """The browser binary to launch: the configured one if it is an executable file, else the first candidate on PATH."""
    if configured is not None:
        found = which(str(configured))
        return Path(found) if found else None
    for name in CANDIDATES:
        found = which(name)
        if found:
            return Path(found)
    return None


def switches(proxy_url: str, *, sandbox: bool) -> list[str]:
    """Chromium's switches: headless and quiet, every request through the egress guard at `proxy_url`.

    `<-loopback>` removes Chromium's built-in exception that sends localhost and 127.0.0.1 around the proxy, so
    loopback pages are judged by the guard like any other address.
    """
    return [
        *BASE_SWITCHES,
        *([] if sandbox else ["--no-sandbox"]),
        f"--proxy-server={proxy_url}",
        "--proxy-bypass-list=<-loopback>",
    ]
