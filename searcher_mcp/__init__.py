"""Searcher: a stdio MCP server for web, news and image search (Brave Search API) and `web_fetch`.

Modules, one job each:

- `params`     pure argument rules: count clamping, freshness and safesearch mapping
- `ratelimit`  the queue that spaces Brave calls (`BRAVE_RATE_LIMIT_MS`), clock and sleep injected
- `brave`      the Brave Search client: requests, error translation, compact results
- `fetch`      `web_fetch`: connections checked by `shared.netguard` and pinned, manual redirects, size and type limits, extraction
- `settings`   `BRAVE_*` and `WEB_FETCH_*` settings
- `models`     what the tools return
- `server`     the MCP server and its 4 tools (`python -m searcher_mcp` runs it on stdio)

Nothing is imported here, so the pure modules can be used without loading the MCP SDK.
"""

__all__: list[str] = []
