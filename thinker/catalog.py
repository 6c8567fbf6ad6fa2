"""The agent's tool catalog: the hub's `GET /tools/list` answer as the Thinker uses it. Pure.

The hub lists only the tools this agent may call, so the catalog is already the agent's; `fingerprint` changes
whenever a tool, a schema, a description or an MCP changes (the selector re-embeds only then).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from shared.contracts.hub_api import ToolListing
from shared.manifest import ToolEffects


@dataclass(frozen=True)
class HubTool:
    name: str
    description: str
    input_schema: dict[str, Any]
    mcp: str | None
    """The MCP that serves it; None for the hub's own tools (get_status, get_tool_catalog...)."""
    effects: ToolEffects = field(default_factory=ToolEffects)
    """What calling it can change (its MCP annotations; unknown: the worst)."""


@dataclass(frozen=True)
class HubMcp:
    name: str
    label: str
    tool_group: str
    keywords: tuple[str, ...] = ()
    tool_count: int = 0
    available: bool = True


@dataclass(frozen=True)
class ToolCatalog:
    tools: dict[str, HubTool] = field(default_factory=dict)
    mcps: dict[str, HubMcp] = field(default_factory=dict)
    fingerprint: str = ""

    def has(self, name: str) -> bool:
        return name in self.tools


def owning_mcp(tool: str, mcps: Mapping[str, object]) -> str | None:
    """The MCP whose `{name}_` prefix `tool` carries (the longest, should one name prefix another)."""
    matches = [name for name in mcps if tool.startswith(f"{name}_")]
    return max(matches, key=len) if matches else None


def catalog_of(listing: ToolListing) -> ToolCatalog:
    mcps = {
        name: HubMcp(
            name=name,
            label=meta.label or name,
            tool_group=meta.toolGroup,
            keywords=tuple(meta.keywords),
            tool_count=meta.toolCount,
            available=meta.available,
        )
        for name, meta in listing.mcps.items()
    }
    tools = {
        entry.name: HubTool(
            entry.name,
            entry.description,
            entry.inputSchema,
            owning_mcp(entry.name, mcps),
            entry.annotations or ToolEffects(),
        )
        for entry in listing.tools
    }
    digest = hashlib.sha256(listing.model_dump_json().encode()).hexdigest()
    return ToolCatalog(tools, mcps, digest)
