"""The hub's own tools (unprefixed): a name → tool registry, each with a pydantic parameter model.

A native tool is declared with `@native_tool(name, Params)` on an async function `(hub, params) -> data`;
its input schema comes from the model, its description from the docstring.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from shared.mcp_tools import InvalidArguments

if TYPE_CHECKING:
    from orchestrator.hub import Hub

Handler = Callable[["Hub", Any], Awaitable[Any]]


@dataclass(frozen=True, eq=False)
class NativeTool:
    name: str
    description: str
    params: type[BaseModel]
    handler: Handler

    @functools.cached_property
    def listing(self) -> dict[str, Any]:
        # Building a JSON schema takes a fraction of a millisecond: once per process is enough.
        return {"name": self.name, "description": self.description, "inputSchema": self.params.model_json_schema()}


NATIVE_TOOLS: dict[str, NativeTool] = {}


def native_tool(name: str, params: type[BaseModel]) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        description = "[Annabelle | System] " + inspect.cleandoc(handler.__doc__ or name)
        NATIVE_TOOLS[name] = NativeTool(name, description, params, handler)
        return handler

    return register


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CatalogParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mcp_name: str | None = Field(default=None, description="Only this MCP's tools, with one-line descriptions.")


def first_sentence(text: str) -> str:
    text = text.split("] ", 1)[-1].strip() if text.startswith("[") else text.strip()
    end = min((i for i in (text.find(". "), text.find("\n")) if i >= 0), default=-1)
    return text[: end + 1].strip() if end >= 0 else text


@native_tool("get_status", NoParams)
async def get_status(hub: Hub, _: NoParams) -> dict[str, Any]:
    """Status of the hub: uptime, each MCP server (up, restarting or down) and tool counts."""
    return hub.status()


@native_tool("get_tool_catalog", CatalogParams)
async def get_tool_catalog(hub: Hub, params: CatalogParams) -> dict[str, Any]:
    """List the available tools by MCP server: counts, or one MCP's tool names with short descriptions.

    Use it to find exact tool names before creating a skill.
    """
    listing = hub.tool_listing()
    by_mcp: dict[str, list[dict[str, str]]] = {}
    for tool in listing:
        route = hub.router.resolve(tool["name"])
        mcp = route.mcp if route is not None else "annabelle"
        by_mcp.setdefault(mcp, []).append({"name": tool["name"], "description": first_sentence(tool["description"])})
    if params.mcp_name is None:
        counts = {mcp: len(tools) for mcp, tools in sorted(by_mcp.items())}
        return {"summary": f"{len(listing)} tools across {len(counts)} MCP servers", "servers": counts}
    if params.mcp_name not in by_mcp:
        known = ", ".join(sorted(by_mcp))
        raise InvalidArguments(f"No MCP server named {params.mcp_name!r}; known servers: {known}.")
    tools = by_mcp[params.mcp_name]
    return {"summary": f"{len(tools)} tools in {params.mcp_name}", "catalog": {params.mcp_name: tools}}
