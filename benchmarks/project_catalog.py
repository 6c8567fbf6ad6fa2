"""This project's own tool catalog, as the hub would list it to the Thinker, built without starting anything.

Each first-party MCP package's server object lists its tools in process (their docstrings and signatures are the
descriptions and schemas), routed by the hub's own router (`build_routes`: renamed `{mcpName}_{tool}`, tagged
`[Label | Group]`); the routes it hides from agents are left out, as `/tools/list` leaves them out (Guardian's,
a manifest's `privilegedTools` such as Telegram's `intake_*`, destructive ones the manifest does not allow). The
hub's native tools come from its registry.
Used by `tool_selection.py` (the held-out set on real tool names) and `tokens.py`.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from orchestrator.router import build_routes  # noqa: E402
from shared.manifest import MANIFEST_FILENAME, load_manifest  # noqa: E402
from thinker.selection import McpInfo  # noqa: E402

PACKAGES = ("filer_mcp", "gmail_mcp", "memorizer_mcp", "searcher_mcp", "telegram_mcp")


@dataclass(frozen=True)
class ProjectCatalog:
    tools: list[dict[str, Any]]
    """`{name, description, inputSchema, mcp}` as the hub's `/tools/list` gives them (plus the MCP's name)."""
    mcps: list[McpInfo]


async def project_catalog() -> ProjectCatalog:
    tools: list[dict[str, Any]] = []
    mcps: list[McpInfo] = []
    for package in PACKAGES:
        manifest = load_manifest(REPO_ROOT / package / MANIFEST_FILENAME)
        if manifest.role == "guardian":
            continue
        mcps.append(McpInfo(manifest.mcpName, manifest.label, manifest.toolGroup, tuple(manifest.keywords)))
        server = importlib.import_module(f"{package}.server").server
        for route in build_routes(manifest, await server.list_tools()):
            if not route.hidden:
                tools.append(
                    {
                        "name": route.exposed,
                        "description": route.description,
                        "inputSchema": route.input_schema,
                        "mcp": route.mcp,
                    }
                )
    from orchestrator.native_tools import NATIVE_TOOLS

    for native in NATIVE_TOOLS.values():
        tools.append({**native.listing, "mcp": None})
    return ProjectCatalog(tools, mcps)
