from tests.mcps.partner_mcp.server import server

server.run("stdio")
