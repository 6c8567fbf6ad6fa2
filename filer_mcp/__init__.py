"""Filer: a stdio MCP server for files in the user's workspace, with grants, protected paths and an audit log.

Modules, one job each:

- `paths`     pure path-safety decisions (parsing, symlink resolution, containment, protected locations)
- `fsops`     symlink-proof, atomic file operations below an already-checked base folder
- `grants`    the user's grants file, re-read when it changes
- `audit`     the JSONL audit log
- `settings`  `FILER_*` settings
- `models`    what the tools return
- `service`   the operations, one method per tool, with audit and error translation
- `server`    the MCP server and its 13 tools (`python -m filer_mcp` runs it on stdio)

Nothing is imported here, so `filer_mcp.paths` can be used without loading the MCP SDK.
"""

__all__: list[str] = []
