"""Gmail: a stdio MCP server for Gmail and Google Calendar over their REST APIs, with OAuth and polling.

Modules, one job each:

- `oauth`     the credentials and token files, expiry, refresh, and the installed-app flow (`annabelle setup gmail`)
- `api`       one HTTP seam to Google: bearer auth, refresh when expired and once on a 401, errors as sentences
- `mime`      pure MIME building (send, reply, drafts) and parsing (compact messages, bodies, attachments)
- `labels`    pure label-name resolution
- `calendar`  pure event bodies and free-time computation
- `polling`   the new-mail queue, its persisted state and the polling loop
- `service`   the operations, one method per tool
- `settings`  `GMAIL_*` / `GOOGLE_API_BASE` settings
- `server`    the MCP server and its 30 tools (`python -m gmail_mcp` runs it on stdio)

Nothing is imported here, so the pure modules can be used without loading the MCP SDK.
"""

__all__: list[str] = []
