import sys

from tests.mcps.external_mcp.server import server

# `python -m tests.mcps.external_mcp` serves stdio; `... --http PORT` serves Streamable HTTP on 127.0.0.1:PORT/mcp,
# `... --sse PORT` the older HTTP+SSE transport on 127.0.0.1:PORT/sse.
if len(sys.argv) == 3 and sys.argv[1] == "--http":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
elif len(sys.argv) == 3 and sys.argv[1] == "--sse":
    server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
else:
    server.run("stdio")
