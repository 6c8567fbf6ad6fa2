"""Guardian: the security scanner every guarded tool call passes through (a stdio MCP server).

Modules, one job each:

- `extract`    every (path, text) in a string/object/array
- `normalize`  undo disguises: encodings, invisible characters, homoglyphs, leetspeak, hidden base64
- `rules`      the compiled rule layer and its scoring (pure)
- `judge`      the LLM judge: prompts, answer parsing (pure) and the litellm seam
- `scanner`    the `Scanner` protocol, rule/judge/layered scanners and the name → factory table
- `audit`      the JSONL audit log (no content, ever)
- `service`    the two tools' logic; `server` the MCP server; `settings` GUARDIAN_* configuration
"""
