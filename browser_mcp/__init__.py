"""Browser: a stdio MCP server (mcpName `web`) that drives a headless Chromium through Playwright.

Modules, one job each:

- `egress`    the egress guard: the proxy every request of Chromium goes through, checked by `shared.netguard`
- `chromium`  finding the system's Chromium, its switches, and the sentence that says how to install it
- `outputs`   screenshots and saved snapshots written into the workspace's browser/ folder; upload paths
- `session`   one browser per MCP: launch on demand, tabs, refs, dialogs, file choosers, limits, idle close
- `settings`  `BROWSER_*` settings
- `models`    what the tools return
- `server`    the MCP server and its 21 tools (`python -m browser_mcp` runs it on stdio)

Nothing is imported here, so the pure modules can be used without loading Playwright or the MCP SDK.
"""

__all__: list[str] = []
