"""The Annabelle hub: MCP lifecycle, Guardian-scanned tool routing and the HTTP API."""
