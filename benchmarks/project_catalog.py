"""This project's own tool catalog, as the hub would list it to the Thinker, built without starting anything.

Each first-party MCP package's server object lists its tools in process (their docstrings and signatures are the
descriptions and schemas), renamed `{mcpName}_{tool}` and tagged `[Label | Group]` as the hub's router does;
Guardian is left out (the hub routes no tool of a guardian MCP). The hub's native tools come from its registry.
Used by `tool_selection.py` (the held-out set on real tool names) and `tokens.py`.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

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
        manifest = json.loads((REPO_ROOT / package / "manifest.json").read_text(encoding="utf-8"))
        if manifest.get("role") == "guardian":
            continue
        name, label, group = manifest["mcpName"], manifest.get("label", ""), manifest.get("toolGroup", "")
        mcps.append(McpInfo(name, label, group, tuple(manifest.get("keywords") or ())))
        server = importlib.import_module(f"{package}.server").server
        for tool in await server.list_tools():
            tools.append(
                {
                    "name": f"{name}_{tool.name}",
                    "description": f"[{label} | {group}] {(tool.description or '').strip()}".rstrip(),
                    "inputSchema": tool.input_schema,
                    "mcp": name,
                }
            )
    from orchestrator.native_tools import NATIVE_TOOLS

    for native in NATIVE_TOOLS.values():
        tools.append({**native.listing, "mcp": None})
    return ProjectCatalog(tools, mcps)
