"""Tiered tools: what the model sees in one interaction, and the `browse_tools` / `load_tools` meta-tools.

The model starts an interaction with the selected tools: the selection's core tools (the essentials, the
hub's status and the two meta-tools) plus what it picked for the message, sticky and playbook tools. `browse_tools` lists the categories - one per MCP, from the hub's metadata, plus `system`
for the hub's own tools - with each one's label, group, tool count and tool names on one line. `load_tools`
adds a category's schemas to the tools offered for the rest of this interaction only (the next message starts
from the selection again); loading twice changes nothing.

Loading is about visibility, not permission: the catalog already holds only the tools the hub lets this agent
call (the hub enforces it again on every call). A sandboxed run (a skill with `requiredTools`) has no meta-tools
and may call nothing outside its set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from thinker.catalog import ToolCatalog
from thinker.compact import function_definition
from thinker.essentials import Essential

BROWSE_TOOLS = "browse_tools"
LOAD_TOOLS = "load_tools"
META_TOOLS = frozenset({BROWSE_TOOLS, LOAD_TOOLS})
SYSTEM_CATEGORY = "system"


class BrowseToolsParams(BaseModel):
    model_config = ConfigDict(extra="ignore")


class LoadToolsParams(BaseModel):
    model_config = ConfigDict(extra="ignore")

    category: str = Field(min_length=1, description="A category name from browse_tools, e.g. `filer`.")


_META_DESCRIPTIONS = {
    BROWSE_TOOLS: "List the tool categories you can load (name, what they cover, how many tools, their names). "
    "Use it when none of your current tools fits the task.",
    LOAD_TOOLS: "Load one category from browse_tools: its tools become available to you for the rest of this "
    "conversation turn.",
}
_META_PARAMS: dict[str, type[BaseModel]] = {BROWSE_TOOLS: BrowseToolsParams, LOAD_TOOLS: LoadToolsParams}


class ToolKind(StrEnum):
    HUB = "hub"
    ESSENTIAL = "essential"
    META = "meta"


@dataclass(frozen=True)
class Category:
    name: str
    label: str
    group: str
    tools: tuple[str, ...]

    def describe(self, loaded: bool) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "group": self.group,
            "tool_count": len(self.tools),
            "tools": ", ".join(self.tools),
            "loaded": loaded,
        }


def build_categories(catalog: ToolCatalog) -> dict[str, Category]:
    """One category per MCP that has tools in the catalog, then `system` for the hub's own tools."""
    by_mcp: dict[str, list[str]] = {}
    for tool in catalog.tools.values():
        by_mcp.setdefault(tool.mcp or SYSTEM_CATEGORY, []).append(tool.name)
    categories: dict[str, Category] = {}
    for name in sorted(catalog.mcps):
        if name in by_mcp:
            meta = catalog.mcps[name]
            categories[name] = Category(name, meta.label, meta.tool_group, tuple(sorted(by_mcp[name])))
    if SYSTEM_CATEGORY in by_mcp and SYSTEM_CATEGORY not in categories:
        categories[SYSTEM_CATEGORY] = Category(
            SYSTEM_CATEGORY, "Annabelle", "System", tuple(sorted(by_mcp[SYSTEM_CATEGORY]))
        )
    return categories


def meta_tool_descriptions() -> dict[str, str]:
    """The meta-tools' descriptions (tool selection embeds them like any other tool)."""
    return dict(_META_DESCRIPTIONS)


NAMED_TOOLS = 2
"""Tools one error may bring in (`ToolSet.offer_named`)."""
_TOOL_WORD = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")


class ToolSet:
    """The tools of one interaction: what is offered to the model, and what it may call."""

    def __init__(
        self,
        catalog: ToolCatalog,
        selected: Iterable[str],
        *,
        essentials: Iterable[Essential] = (),
        meta: bool = True,
        sandbox: bool = False,
        lookup_of: Callable[[str], str | None] | None = None,
        reader_of: Callable[[str], str | None] | None = None,
    ) -> None:
        """`lookup_of`: the tool that finds the ids a tool needs (the selection's lookup companion); `reader_of`:
        the tool that reads a kind of value ("path", "url")."""
        self.catalog = catalog
        self.lookup_of = lookup_of
        self.reader_of = reader_of
        self.essentials = {e.name: e for e in essentials}
        self.meta = meta and not sandbox
        self.sandbox = sandbox
        self.categories = build_categories(catalog) if self.meta else {}
        # The selection decides what is offered, core tools included (it knows the cap on everything sent);
        # names it picked that this interaction cannot call are left out.
        self._offered: dict[str, None] = {}
        for name in selected:
            if name in self.essentials or name in catalog.tools or (self.meta and name in META_TOOLS):
                self._offered[name] = None
        self.loaded: list[str] = []

    # -- what the model sees --------------------------------------------------------------------------------

    @property
    def offered(self) -> list[str]:
        return list(self._offered)

    def definitions(self) -> list[dict[str, Any]]:
        out = []
        for name in self._offered:
            kind = self.kind(name)
            if kind is ToolKind.ESSENTIAL:
                essential = self.essentials[name]
                out.append(function_definition(name, essential.description, essential.input_schema))
            elif kind is ToolKind.META:
                out.append(function_definition(name, _META_DESCRIPTIONS[name], self._meta_schema(name)))
            else:
                tool = self.catalog.tools[name]
                out.append(function_definition(name, tool.description, tool.input_schema))
        return out

    def _meta_schema(self, name: str) -> dict[str, Any]:
        schema = _META_PARAMS[name].model_json_schema()
        if name == LOAD_TOOLS and self.categories:
            # The categories as an enum (their names say what they hold: filer, gmail, searcher): a model picks a
            # real one without a browse_tools round trip, and a server that constrains output to the schema cannot
            # send another (the 1.5B model asked six times for a category "agenda" to write agenda.md). Every turn
            # pays for it, so no more than the names.
            schema["properties"]["category"] = {"type": "string", "enum": list(self.categories)}
        return schema

    # -- what the model may call ----------------------------------------------------------------------------

    def kind(self, name: str) -> ToolKind | None:
        """How `name` runs, or None when this interaction may not call it."""
        if self.sandbox and name not in self._offered:
            return None
        if name in self.essentials:
            return ToolKind.ESSENTIAL
        if name in META_TOOLS:
            return ToolKind.META if self.meta else None
        if name in self.catalog.tools:
            return ToolKind.HUB
        return None

    def may_change_state(self, name: str) -> bool:
        """Whether calling `name` may change what other calls return (unknown: it may). Meta-tools change only
        what is offered; a hub tool (or the hub tool behind an essential) says so by its readOnlyHint."""
        kind = self.kind(name)
        if kind is ToolKind.META:
            return False
        hub_name = self.essentials[name].hub_tool if kind is ToolKind.ESSENTIAL else name
        tool = self.catalog.tools.get(hub_name)
        return tool is None or not tool.effects.readOnlyHint

    def schema(self, name: str) -> dict[str, Any] | None:
        """The real (unrelaxed) input schema of a callable tool."""
        kind = self.kind(name)
        if kind is ToolKind.ESSENTIAL:
            return self.essentials[name].input_schema
        if kind is ToolKind.META:
            return _META_PARAMS[name].model_json_schema()
        if kind is ToolKind.HUB:
            return self.catalog.tools[name].input_schema
        return None

    def required(self, name: str) -> list[str]:
        """The parameters a call of `name` must give (none for a tool this interaction cannot call)."""
        schema = self.schema(name) or {}
        return list(schema.get("required") or ())

    def offer_lookup(self, name: str) -> str | None:
        """Offer the tool that finds the ids `name` needs, when this interaction may call it; its name, or None.

        A call refused for an id nobody gave is told to look the id up first: the tool to do that must then be
        there ("pause my choir reminder" was offered `delete_skill` but not `list_skills`, and the 1.5B model
        invented ids until the turn ran out)."""
        return self._offer(self.lookup_of(name) if self.lookup_of is not None else None)

    def offer_reader(self, kind: str) -> str | None:
        """Offer the tool that reads a value of `kind`, when this interaction may call it; its name, or None."""
        return self._offer(self.reader_of(kind) if self.reader_of is not None else None)

    def offer_named(self, text: str, caller: str) -> list[str]:
        """Offer the tools an error of `caller` tells the model to use ("… change that one with update_skill"):
        each tool name in `text`, whole or without `caller`'s MCP prefix, that this interaction may call; the
        names offered (at most `NAMED_TOOLS`), none in a skill's fixed tool set. Only for the MCPs' own words:
        the caller passes no text a tool returned from outside."""
        tool = self.catalog.tools.get(caller)
        prefix = f"{tool.mcp}_" if tool is not None and tool.mcp else ""
        found: list[str] = []
        for word in dict.fromkeys(_TOOL_WORD.findall(text)):
            for name in (word, prefix + word) if prefix else (word,):
                if name != caller and name not in self._offered and self._offer(name):
                    found.append(name)
                    break
            if len(found) >= NAMED_TOOLS:
                break
        return found

    def _offer(self, tool: str | None) -> str | None:
        """Offer the hub tool `tool` when this interaction may call it (never in a skill's fixed tool set); its name,
        or None."""
        if tool is None or self.sandbox or self.kind(tool) is not ToolKind.HUB:
            return None
        self._offered.setdefault(tool, None)
        return tool

    # -- the meta-tools ------------------------------------------------------------------------------------

    def browse(self) -> dict[str, Any]:
        return {
            "categories": [c.describe(c.name in self.loaded) for c in self.categories.values()],
            "hint": "Call load_tools with a category name to use its tools.",
        }

    def load(self, category: str) -> dict[str, Any]:
        """Offer `category`'s tools from now on; raises ValueError naming the categories for an unknown one."""
        found = self.categories.get(category.strip()) or self.categories.get(category.strip().lower())
        if found is None:
            known = ", ".join(self.categories) or "none"
            raise ValueError(f"There is no tool category {category!r}; the categories are: {known}.")
        added = [name for name in found.tools if name not in self._offered]
        for name in added:
            self._offered[name] = None
        if found.name not in self.loaded:
            self.loaded.append(found.name)
        message = (
            f"{len(added)} {found.name} tools are now available."
            if added
            else f"The {found.name} tools were already available."
        )
        return {"loaded": found.name, "tools_added": added, "message": message}
