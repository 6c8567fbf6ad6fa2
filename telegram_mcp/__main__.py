from shared.mcp_tools import run_stdio_server
from telegram_mcp.server import server

run_stdio_server(server, "telegram")
