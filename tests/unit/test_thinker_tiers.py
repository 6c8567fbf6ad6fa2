"""Tiered tools (thinker/tiers.py) and the essentials (thinker/essentials.py): what is offered and callable."""

from __future__ import annotations

from typing import Any

import pytest

from shared.contracts.hub_api import ToolListing
from thinker.catalog import catalog_of
from thinker.essentials import ESSENTIALS, available_essentials
from thinker.tiers import BROWSE_TOOLS, LOAD_TOOLS, ToolKind, ToolSet, build_categories


def tool(name: str, **props: Any) -> dict[str, Any]:
    properties = {key: {"type": value} for key, value in props.items()}
    return {"name": name, "description": f"[X | Y] {name}", "inputSchema": {"type": "object", "properties": properties}}


LISTING = {
    "tools": [
        tool("get_status"),
        tool("filer_read_file", path="string"),
        tool("filer_list_files", path="string"),
        tool("memory_store_fact", fact="string", category="string", agent_id="string"),
        tool("memory_retrieve_memories", query="string", limit="integer", agent_id="string"),
        tool("echo_echo", text="string", repeat="integer"),
    ],
    "mcps": {
        "filer": {"label": "Filer", "toolGroup": "Files", "keywords": ["file"], "toolCount": 2, "available": True},
        "memory": {"label": "Memory", "toolGroup": "Knowledge", "keywords": [], "toolCount": 2, "available": True},
        "echo": {"label": "Echo", "toolGroup": "Testing", "keywords": ["echo"], "toolCount": 1, "available": True},
        "gmail": {"label": "Gmail", "toolGroup": "Email", "keywords": [], "toolCount": 0, "available": False},
    },
}
CATALOG = catalog_of(ToolListing.model_validate(LISTING))


def test_each_tool_knows_its_mcp_and_hub_tools_have_none() -> None:
    assert CATALOG.tools["filer_read_file"].mcp == "filer"
    assert CATALOG.tools["get_status"].mcp is None


def test_there_is_one_category_per_mcp_with_tools_plus_system_for_the_hubs_own() -> None:
    categories = build_categories(CATALOG)
    assert list(categories) == ["echo", "filer", "memory", "system"]
    assert categories["filer"].tools == ("filer_list_files", "filer_read_file")
    assert categories["filer"].label == "Filer" and categories["filer"].group == "Files"
    assert categories["system"].tools == ("get_status",)


def test_the_model_is_offered_what_was_selected_that_this_interaction_can_call() -> None:
    selected = ["store_fact", "send_telegram", "get_status", BROWSE_TOOLS, LOAD_TOOLS, "echo_echo", "not_in_catalog"]
    toolset = ToolSet(CATALOG, selected, essentials=available_essentials(set(CATALOG.tools)))
    # send_telegram: no telegram tool on the hub, so no essential; not_in_catalog: unknown
    assert toolset.offered == ["store_fact", "get_status", BROWSE_TOOLS, LOAD_TOOLS, "echo_echo"]
    names = [d["function"]["name"] for d in toolset.definitions()]
    assert names == toolset.offered


def test_offered_schemas_are_compact() -> None:
    toolset = ToolSet(CATALOG, ["echo_echo"])
    echo = next(d for d in toolset.definitions() if d["function"]["name"] == "echo_echo")
    assert echo["function"]["parameters"]["properties"]["repeat"] == {"type": "integer"}
    # ... while normalisation uses the real one
    assert toolset.schema("echo_echo") == CATALOG.tools["echo_echo"].input_schema


def test_browse_tools_lists_each_category_with_its_tool_names_on_one_line() -> None:
    browsed = ToolSet(CATALOG, []).browse()
    filer = next(c for c in browsed["categories"] if c["name"] == "filer")
    assert filer == {
        "name": "filer",
        "label": "Filer",
        "group": "Files",
        "tool_count": 2,
        "tools": "filer_list_files, filer_read_file",
        "loaded": False,
    }


def test_load_tools_adds_a_categorys_schemas_and_loading_twice_changes_nothing() -> None:
    toolset = ToolSet(CATALOG, ["filer_read_file"])
    first = toolset.load("filer")
    assert first["tools_added"] == ["filer_list_files"]
    assert "filer_list_files" in toolset.offered
    before = toolset.offered
    second = toolset.load("filer")
    assert second["tools_added"] == [] and toolset.offered == before
    assert toolset.loaded == ["filer"]
    assert next(c for c in toolset.browse()["categories"] if c["name"] == "filer")["loaded"] is True


def test_load_tools_offers_the_categories_as_an_enum() -> None:
    definitions = ToolSet(CATALOG, [LOAD_TOOLS]).definitions()
    category = definitions[0]["function"]["parameters"]["properties"]["category"]
    assert category == {"type": "string", "enum": ["echo", "filer", "memory", "system"]}


def test_loading_an_unknown_category_names_the_real_ones() -> None:
    with pytest.raises(ValueError, match="echo, filer, memory, system"):
        ToolSet(CATALOG, []).load("email")


def test_a_catalog_tool_that_was_not_offered_may_still_be_called_outside_a_sandbox() -> None:
    toolset = ToolSet(CATALOG, [])
    assert toolset.kind("filer_read_file") is ToolKind.HUB
    assert toolset.kind("nope") is None


def test_an_error_offers_the_tools_it_names_whole_or_without_the_callers_prefix() -> None:
    toolset = ToolSet(CATALOG, ["memory_store_fact"])
    said = "Fact 4 is the owner's: look it up with retrieve_memories or filer_list_files, then call store_fact again."
    assert toolset.offer_named(said, "memory_store_fact") == ["memory_retrieve_memories", "filer_list_files"]
    assert toolset.offered == ["memory_store_fact", "memory_retrieve_memories", "filer_list_files"]
    # Nothing again, nothing unknown, never the failed tool itself, and at most two from one error.
    assert toolset.offer_named(said, "memory_store_fact") == []
    assert toolset.offer_named("use send_email or read_file", "filer_list_files") == ["filer_read_file"]
    assert ToolSet(CATALOG, []).offer_named("echo_echo get_status filer_read_file", "x") == ["echo_echo", "get_status"]
    assert ToolSet(CATALOG, ["echo_echo"], sandbox=True).offer_named("filer_read_file", "echo_echo") == []


def test_a_sandbox_offers_exactly_its_tools_no_meta_and_calls_nothing_else() -> None:
    toolset = ToolSet(CATALOG, ["echo_echo", BROWSE_TOOLS], sandbox=True)
    assert toolset.offered == ["echo_echo"]
    assert toolset.kind("filer_read_file") is None
    assert toolset.kind(BROWSE_TOOLS) is None
    assert toolset.categories == {}


def test_essentials_appear_only_when_the_hub_has_their_tool() -> None:
    assert [e.name for e in available_essentials({"memory_store_fact"})] == ["store_fact"]
    assert available_essentials(set()) == []


def test_essentials_translate_to_the_hub_tool_with_this_agents_id() -> None:
    assert ESSENTIALS["store_fact"].hub_arguments({"fact": "likes tea", "category": "preference"}, "bob") == {
        "fact": "likes tea",
        "category": "preference",
        "agent_id": "bob",
    }
    assert ESSENTIALS["search_memories"].hub_arguments({"query": "tea"}, "bob") == {
        "query": "tea",
        "limit": 5,
        "agent_id": "bob",
    }
    assert ESSENTIALS["send_telegram"].hub_arguments({"message": "hi", "chat_id": "42"}, "bob") == {
        "message": "hi",
        "chat_id": "42",
    }


def test_bad_essential_arguments_give_a_sentence_for_the_model() -> None:
    with pytest.raises(ValueError, match="store_fact: category"):
        ESSENTIALS["store_fact"].hub_arguments({"fact": "x", "category": "mood"}, "bob")
