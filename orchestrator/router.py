"""The routing table: exposed names `{mcpName}_{tool}` → (MCP, original tool). Pure logic, no I/O.

Descriptions are tagged `[Label | Group]`; destructive tools (delete/remove/destroy in the name) are hidden
from public routes unless the manifest allows them, and so are the manifest's `privilegedTools` (e.g. a channel's
intake cursor) and every tool of Guardian (no agent may read or steer the scanner); all stay reachable through
the privileged route that the hub's own features use.
"""

from __future__ import annotations

import difflib
import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any

from mcp.types import Tool

from shared.manifest import McpManifest, ToolEffects

DESTRUCTIVE = re.compile(r"^(.*_)?(delete|remove|destroy)(_.*)?$", re.IGNORECASE)


@dataclass(frozen=True)
class Route:
    exposed: str
    mcp: str
    tool: str
    description: str
    input_schema: dict[str, Any]
    hidden: bool = False
    effects: ToolEffects = field(default_factory=ToolEffects)
    """What calling it can change (its MCP annotations, corrected by the manifest); unknown: the worst."""
    untrusted_output: bool = False
    """Its results come from outside the owner's control: reading them taints the turn."""

    def listing(self) -> dict[str, Any]:
        return {
            "name": self.exposed,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.effects.model_dump(),
        }


def tag(manifest: McpManifest, description: str) -> str:
    return f"[{manifest.label} | {manifest.toolGroup}] {description}".rstrip()


def build_routes(manifest: McpManifest, tools: list[Tool]) -> list[Route]:
    return [
        Route(
            exposed=f"{manifest.mcpName}_{tool.name}",
            mcp=manifest.mcpName,
            tool=tool.name,
            description=tag(manifest, (tool.description or "").strip()),
            input_schema=dict(tool.input_schema),
            hidden=manifest.role == "guardian"
            or (bool(DESTRUCTIVE.match(tool.name)) and not manifest.allowDestructiveTools)
            or any(fnmatch.fnmatchcase(tool.name, pattern) for pattern in manifest.privilegedTools),
            effects=ToolEffects.declared(tool.annotations, manifest.toolAnnotations.get(tool.name)),
            untrusted_output=manifest.output_untrusted(tool.name),
        )
        for tool in tools
    ]


class ToolRouter:
    def __init__(self) -> None:
        self._by_mcp: dict[str, list[Route]] = {}
        self._routes: dict[str, Route] = {}

    def set_tools(self, manifest: McpManifest, tools: list[Tool]) -> None:
        """Replace the routes of one MCP (after a start or a restart)."""
        self._by_mcp[manifest.mcpName] = build_routes(manifest, tools)
        self._rebuild()

    def remove_mcp(self, mcp: str) -> None:
        self._by_mcp.pop(mcp, None)
        self._rebuild()

    def _rebuild(self) -> None:
        self._routes = {route.exposed: route for routes in self._by_mcp.values() for route in routes}

    def resolve(self, name: str, *, privileged: bool = False) -> Route | None:
        route = self._routes.get(name)
        if route is None or (route.hidden and not privileged):
            return None
        return route

    def public_routes(self) -> list[Route]:
        return [route for route in self._routes.values() if not route.hidden]

    def routes_of(self, mcp: str) -> list[Route]:
        return [route for route in self._by_mcp.get(mcp, []) if not route.hidden]

    def hidden_routes(self) -> list[Route]:
        return [route for route in self._routes.values() if route.hidden]


def unknown_arguments(schema: dict[str, Any], arguments: dict[str, Any], *, closed: bool) -> list[str]:
    """Argument names the tool does not declare, when it takes only what it declares: first-party tools always
    (`closed`), others when their schema says `additionalProperties: false`. The caller is told at once, and a
    body of thousands of unknown keys never reaches the MCP."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not (closed or schema.get("additionalProperties") is False):
        return []
    return [name for name in arguments if name not in properties]


def closest_names(name: str, candidates: list[str], limit: int = 3) -> list[str]:
    """Names that look most like `name`, for an `UNKNOWN_TOOL` message."""
    close = difflib.get_close_matches(name, candidates, n=limit, cutoff=0.5)
    if close:
        return close
    prefix = name.split("_", 1)[0]
    return sorted(c for c in candidates if c.startswith(prefix + "_"))[:limit]
