"""Memorizer: the assistant's long-term memory as a stdio MCP server (mcpName `memory`).

Facts, conversations, the user's profile, skills, contacts and projects in one SQLite file, with hybrid
search (vectors + FTS5 + LIKE). Modules, one job each:

- `settings`       MEMORY_* / UTILITY_* / embedding settings
- `params`         parameter types shared by the tools (agent ids, categories, size limits)
- `db`             the connection (`db.connection`) and the schema as named migrations (`db.migrations`)
- `secret_filter`  pure: does a text carry a secret, and which kind
- `dedup`          pure: keyword extraction and overlap for the "similar fact" warning
- `fts`            pure: FTS5 queries and LIKE patterns built safely from any text
- `ranking`        pure: min-max normalisation and the weighted hybrid ranking
- `vector_index`   in-memory float32 matrices per (embedder key, agent), kept in step with SQLite
- `facts`          the facts and fact_vectors tables
- `conversations`, `profiles`, `skills`, `contacts`, `projects`, `timeline`: one table family each
- `dotpath`        pure: dot-notation profile updates
- `paths`          pure: confinement of import/export paths
- `transfer`       export/import file formats
- `llm`            the utility model seam (litellm, imported lazily); `extraction`, `synthesis` its prompts
- `service`        the async operations that combine the above (search tiers, write rules, LLM tools)
- `server`         the MCP server and its 31 tools (`python -m memorizer_mcp`)
"""

__all__: list[str] = []
