"""CodeExec: a stdio MCP server that runs Python, Node.js and bash code in a sandbox (bubblewrap).

Modules, one job each:

- `limits`     pure limit decisions: timeouts, rlimits, bounded output capture, head+tail truncation, exit notes
- `sandbox`    pure sandbox decisions: the bubblewrap/limits-only command line, environment, working folders
- `languages`  pure per-language facts: interpreters, how files and sessions start, install hints
- `packages`   pure package-install decisions: accepted package strings, pip/npm commands
- `repl`       the session protocol: request framing and the end-of-output marker scanner
- `host`       the host side: finding tools, proving a sandbox starts, link-proof folder operations
- `process`    running processes with limits; stopping whole process groups
- `sessions`   persistent REPL sessions: start, exchange, idle reaping
- `scripts`    the saved-script library
- `settings`   `CODEXEC_*` settings
- `models`     what the tools return
- `service`    the operations, one method per tool
- `server`     the MCP server and its 13 tools (`python -m codexec_mcp` runs it on stdio)
- `drivers/`   the session drivers that run inside the sandbox (Python and Node.js)

Nothing is imported here, so the pure modules can be used without loading the MCP SDK.
"""

__all__: list[str] = []
