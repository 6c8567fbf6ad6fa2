from needy_mcp.server import check_configured, server
from shared.mcp_tools import run_stdio_server

check_configured()
run_stdio_server(server, "needy")
