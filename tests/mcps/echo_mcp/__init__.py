"""A test MCP: echo, sleep, crash on demand, and a destructive tool the hub must hide."""
