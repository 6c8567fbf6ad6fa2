"""`/browser`: the headless browser at a glance — installed or not, running, its tabs, how it reaches the web.

What the original's `/browser` showed (its proxy settings, the tab count and list), from our Browser MCP: the
status comes from `web_browser_install` and the tabs from `web_browser_tabs` (only while the browser runs, so
asking never starts Chromium). Tab titles are page text: shown clipped, to the owner only, never to a model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.commands.registry import CommandContext, command
from shared.text import clip

BROWSER_MCP = "web"


def format_browser(status: Mapping[str, Any] | None, error: str | None, tabs: list[Mapping[str, Any]] | None) -> str:
    """The `/browser` answer (pure): status or why there is none, tabs, and the profile and egress settings the
    Browser MCP reports (its own settings, not the hub's environment)."""
    if status is None:
        return f"Browser: unavailable — {error or 'no answer'}"
    version = f" {status['version']}" if status.get("version") else ""
    state = "running" if status.get("running") else "not running (it starts on the first browser call)"
    lines = [f"Browser: Chromium{version} at {status.get('executable')}, {state}."]
    if tabs is not None:
        lines.append(f"Tabs ({len(tabs)}):")
        for tab in tabs:
            mark = " (current)" if tab.get("current") else ""
            title = clip(str(tab.get("title") or "untitled"), 60)
            lines.append(f"  {int(tab.get('index', 0)) + 1}. {title} — {clip(str(tab.get('url')), 100)}{mark}")
    isolated = bool(status.get("isolated", True))
    profile = "isolated (a fresh, empty profile each start)" if isolated else "kept (BROWSER_PROFILE_DIR keeps logins)"
    allowed = ", ".join(str(host) for host in status.get("allowed_hosts") or []) or "none"
    lines.append(f"Profile: {profile}; at most {status.get('max_tabs', '?')} tabs.")
    lines.append(
        "Egress: every request through the SSRF-checking proxy; private or local addresses allowed only for "
        f"WEB_FETCH_ALLOWED_HOSTS: {clip(allowed, 200)}."
    )
    return "\n".join(lines)


@command("browser", "The headless browser: installed, running, its tabs, profile and egress rules")
async def browser_command(ctx: CommandContext, args: str) -> str:
    hub_status = ctx.hub.status()
    if BROWSER_MCP not in hub_status.get("mcps", {}):
        off = BROWSER_MCP in (hub_status.get("disabledMcps") or [])
        why = "disabled (WEB_MCP_ENABLED=false)" if off else "not installed"
        return format_browser(None, f"the browser MCP is {why}.", None)
    envelope = await ctx.hub.call("web_browser_install", {}, caller=ctx.caller)
    if not envelope.get("success"):
        return format_browser(None, str(envelope.get("error") or "no reason given"), None)
    status = envelope.get("data") or {}
    tabs = None
    if status.get("running"):
        listed = await ctx.hub.call("web_browser_tabs", {"action": "list"}, caller=ctx.caller)
        tabs = list((listed.get("data") or {}).get("tabs") or []) if listed.get("success") else None
    return format_browser(status, None, tabs)
