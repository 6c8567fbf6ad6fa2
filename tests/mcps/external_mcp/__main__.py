import sys

from tests.mcps.external_mcp.server import server

# `python -m tests.mcps.external_mcp` serves stdio; `... --http PORT` serves Streamable HTTP on 127.0.0.1:PORT/mcp.
if len(sys.argv) == 3 and sys.argv[1] == "--http":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
else:
    server.run("stdio")
