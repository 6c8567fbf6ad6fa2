"""The TOOL_REFUSAL guard in the loop: "I have no real-time access" with a search tool offered gets one forced
tool call, once per turn (thinker/guards.py + thinker/loop.py)."""

from __future__ import annotations

import httpx

from shared.contracts.hub_api import ToolListing
from shared.litellm_loader import ModelEndpoint
from tests.unit.test_thinker_loop import START, Hub, Model
from thinker.catalog import catalog_of
from thinker.hub_tools import HubTools
from thinker.llm import ModelClient
from thinker.loop import AgentLoop
from thinker.tiers import ToolSet

SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
LISTING = {
    "tools": [
        {"name": "searcher_web_search", "description": "Search the web", "inputSchema": SCHEMA},
        {"name": "filer_read_file", "description": "Read", "inputSchema": {"type": "object", "properties": {}}},
    ],
    "mcps": {"searcher": {"label": "Searcher", "toolGroup": "Web", "toolCount": 1}},
}
CATALOG = catalog_of(ToolListing.model_validate(LISTING))
REFUSAL = "I'm sorry, I don't have access to real-time information like today's weather."


def make_loop(model: Model, hub: Hub) -> AgentLoop:
    client = ModelClient(ModelEndpoint("openai/fake", "http://127.0.0.1:9/v1", "k"), completion=model, temperature=0.7)
    hub_client = HubTools("http://hub.test", lambda: "t", agent_id="bob", transport=httpx.MockTransport(hub))
    return AgentLoop(client, hub_client, agent_id="bob")


async def test_a_refusal_with_search_offered_gets_one_forced_tool_call() -> None:
    model, hub = Model(), Hub()
    model.text(REFUSAL).calls(("searcher_web_search", {"query": "weather Lisbon"})).text("Sunny, 21 °C.")
    result = await make_loop(model, hub).run(START, ToolSet(CATALOG, ["searcher_web_search", "filer_read_file"]))
    assert result.success and result.response == "Sunny, 21 °C."
    assert [r.get("tool_choice") for r in model.requests] == [None, "required", None]
    assert [r["temperature"] for r in model.requests] == [0.7, 0.2, 0.7]
    assert hub.calls == [{"name": "searcher_web_search", "arguments": {"query": "weather Lisbon"}}]


async def test_the_refusal_guard_runs_once_per_turn() -> None:
    model, hub = Model(), Hub()
    model.text(REFUSAL).text(REFUSAL)
    result = await make_loop(model, hub).run(START, ToolSet(CATALOG, ["searcher_web_search"]))
    assert result.success and result.response == REFUSAL and len(model.requests) == 2


async def test_without_a_search_tool_a_refusal_is_the_answer() -> None:
    model, hub = Model(), Hub()
    model.text(REFUSAL)
    result = await make_loop(model, hub).run(START, ToolSet(CATALOG, ["filer_read_file"]))
    assert result.response == REFUSAL and len(model.requests) == 1 and hub.calls == []
