"""1Password: a read-only stdio MCP server over the official `op` CLI (a service account token).

- `settings`  `OP_SERVICE_ACCOUNT_TOKEN`, `ONEPASSWORD_CLI`, `ONEPASSWORD_TIMEOUT_SECONDS`
- `cli`       running `op` (the one subprocess seam): its environment, timeout, errors in one sentence
- `items`     the pure part: argument checks, op's JSON made compact, sensitive fields sealed
- `server`    the four tools
"""
