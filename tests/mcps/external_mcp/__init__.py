"""A third-party-style MCP for the external-MCP tests: plain `MCPServer`, plain results, configured by env.

`GREETING` changes what `greet` answers and `EXTRA_TOOLS=1` adds `shout`, so a test can edit an entry's `env` in
external-mcps.json and see the behaviour and the tool set change. It has no manifest: the hub reaches it only
through external-mcps.json, as it would a server from npm or PyPI.
"""
