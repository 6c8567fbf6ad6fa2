"""The ground floor every Annabelle process stands on.

Modules, one job each:

- `settings`   typed configuration read from the environment and `.env`
- `logs`       structured logging to `$ANNABELLE_HOME/logs/` and stderr
- `envelope`   the `{success, data, error, errorCode, blocked}` tool-call envelope
- `auth`       token generation, loading and constant-time comparison
- `manifest`   the `manifest.json` model every MCP package ships
- `agents`     the `agents.json` model
- `mcp_tools`  declaring MCP tools from typed functions, with envelopes and readable errors

`shared` imports none of the other Annabelle packages.
"""
