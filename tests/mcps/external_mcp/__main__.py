from tests.mcps.external_mcp.server import server

server.run("stdio")
