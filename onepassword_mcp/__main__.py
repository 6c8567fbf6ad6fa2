from onepassword_mcp.server import server
from shared.mcp_tools import run_stdio_server

run_stdio_server(server, "onepassword")
