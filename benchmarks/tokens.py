"""Benchmark: prompt tokens of the first model call of a turn, on a fixed set of typical turns.

The first call of a turn carries everything: the system prompt (tool preamble, the default persona, a small
profile, date and time, the chat id, three remembered facts), the tool definitions the selection picked for the
message (this project's real tools, built from the MCP servers' code by `project_catalog.py`, plus the Thinker's
essentials and meta-tools, selected by the shipped `ToolSelector` with its two encoders (USE and e5's second opinion), rendered by
`ToolSet.definitions()` as the loop sends them), the history `build_history` keeps for the message (a scripted
conversation of five exchanges with tool calls before the turns that continue it) and the user message.

Tokens: tiktoken `cl100k_base` (the BPE file litellm bundles, no download) over each message's text (tool calls
as their JSON) plus 4 per message, and over the JSON of the tool definitions. A model's chat template adds or
saves a little around these; the figures compare pipelines, they do not bill.

The baseline, measured in the same run on the same turns and selections, is the same prompt with the tool
definitions as the hub lists them (full descriptions and schemas; the previous `function_definition` also
widened them, about 6 % more, so the baseline is a lower bound of what was sent before).

    python benchmarks/tokens.py [--model openai/qwen2.5-coder-1.5b --api-base http://127.0.0.1:8088/v1]

With `--model`, each turn's first call is also sent to that model through the Thinker's own `ModelClient`
(litellm), and its answer checked: a tool call must name an offered tool, and its arguments, normalised as the
loop does, must be valid by the tool's real schema (jsonschema). The model's own prompt-token count is reported
beside cl100k's. The real local model of `../shared/tools/real-llm` serves exactly that model string.

The last line printed is the JSON summary: `{"p50", "max", "baseline_p50", "baseline_max", "per_turn": [...]}`
(with `--model`: `"model_check": {"calls", "valid", "text_answers", "prompt_tokens_p50", ...}`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from project_catalog import project_catalog  # noqa: E402
from tool_selection import token_counter  # noqa: E402

from shared.embeddings.e5 import E5SmallEmbedder  # noqa: E402
from shared.embeddings.local import LocalEmbedder  # noqa: E402
from shared.embeddings.multilingual import MultilingualEmbedder  # noqa: E402
from thinker.catalog import HubMcp, HubTool, ToolCatalog  # noqa: E402
from thinker.context import PromptLayers, render_system_prompt, without_comments  # noqa: E402
from thinker.essentials import ESSENTIALS  # noqa: E402
from thinker.prompts import prompt  # noqa: E402
from thinker.selection import McpInfo, SelectionConfig, ToolInfo, ToolSelector  # noqa: E402
from thinker.sessions import build_history  # noqa: E402
from thinker.sessions.messages import (  # noqa: E402
    ChatMessage,
    assistant_message,
    system_message,
    tool_call,
    tool_message,
    user_message,
)
from thinker.tiers import ToolSet, meta_tool_descriptions  # noqa: E402

NOW = datetime(2026, 11, 24, 8, 30, tzinfo=UTC)
PROFILE = {"name": "Sam", "location": "Lisbon", "timezone": "Europe/Lisbon", "work": {"employer": "Acme"}}
MEMORIES = ["Prefers short answers", "Sister Ana, birthday 3 March", "Works at Acme as a product manager"]

# Five earlier exchanges of the same chat: what the later turns continue.
EARLIER: list[tuple[str, list[tuple[str, dict[str, Any], str]], str]] = [
    (
        "What's on my calendar today?",
        [("gmail_list_events", {"time_min": "2026-11-24T00:00:00Z"}, json.dumps({"success": True, "data": {"events": [
            {"id": "ev1", "summary": "Standup", "start": "2026-11-24T09:30:00Z"},
            {"id": "ev2", "summary": "Design review with Kim", "start": "2026-11-24T14:00:00Z",
             "location": "Room 4", "attendees": ["kim@acme.io", "sam@acme.io"]},
        ]}}))],
        "Today: 09:30 Standup; 14:00 Design review with Kim (Room 4).",
    ),
    (
        "Any new mail from Kim?",
        [("gmail_list_emails", {"query": "from:kim"}, json.dumps({"success": True, "data": {"emails": [
            {"id": "m1", "from": "Kim <kim@acme.io>", "subject": "Slides for the review",
             "snippet": "Here are the slides for this afternoon, have a look at page 4 before we meet..."},
        ]}}))],
        "Yes: Kim sent 'Slides for the review' and asks you to look at page 4 before the meeting.",
    ),
    ("Thanks!", [], "You're welcome."),
    (
        "What's the weather in Lisbon this afternoon?",
        [("searcher_web_search", {"query": "Lisbon weather this afternoon"}, json.dumps({"success": True, "data": {
            "results": [{"title": "Lisbon weather", "url": "https://weather.example/lisbon",
                         "description": "Sunny spells, 19°C, light wind from the north-west, 10% rain."}]}}))],
        "Sunny spells and about 19°C this afternoon, little chance of rain.",
    ),
    (
        "Remember that Kim prefers tea over coffee",
        [("store_fact", {"fact": "Kim prefers tea over coffee", "category": "contact"},
          json.dumps({"success": True, "data": {"id": 41}}))],
        "Noted: Kim prefers tea over coffee.",
    ),
]  # fmt: skip

# (message, continues the earlier conversation?)
TURNS: list[tuple[str, bool]] = [
    ("Remind me every Monday at 9 to send the weekly report", False),
    ("What's on my calendar tomorrow?", False),
    ("Read notes/ideas.md", False),
    ("Email tom@kraus.dev that the demo moved to 3pm", False),
    ("What's the weather in Porto this weekend?", False),
    ("Remember that I'm vegetarian", False),
    ("Find the flight confirmation in my mail and put the flight in my calendar", False),
    ("Напомни мне завтра в 8 утра позвонить в банк", False),
    ("Was gibt es Neues zur Bahn?", False),
    ("Hi!", False),
    ("move the design review to 4pm", True),
    ("reply to Kim that page 4 looks good", True),
    ("and tomorrow?", True),
    ("What did we talk about this morning?", True),
]


def earlier_messages() -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    for index, (user, calls, answer) in enumerate(EARLIER):
        messages.append(user_message(user))
        if calls:
            ids = [f"call_{index}_{n}" for n in range(len(calls))]
            messages.append(
                assistant_message(
                    None, [tool_call(i, name, args) for i, (name, args, _) in zip(ids, calls, strict=True)]
                )
            )
            messages += [tool_message(i, result, name) for i, (name, _, result) in zip(ids, calls, strict=True)]
        messages.append(assistant_message(answer))
    return messages


def message_tokens(count: Any, messages: list[ChatMessage]) -> int:
    total = 0
    for message in messages:
        total += 4 + count(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            total += count(json.dumps(call["function"]))
    return total


def full_definitions(catalog: ToolCatalog, names: list[str]) -> list[dict[str, Any]]:
    """The tool definitions as the hub lists them: full description and schema (before compaction the Thinker
    also widened the schema to accept strings and nulls, about 6 % more: this baseline is the lower bound)."""
    out = []
    metas = meta_tool_descriptions()
    for name in names:
        if name in catalog.tools:
            tool = catalog.tools[name]
            description, schema = tool.description, tool.input_schema
        elif name in ESSENTIALS:
            description, schema = ESSENTIALS[name].description, ESSENTIALS[name].input_schema
        else:
            description, schema = metas[name], {}
        parameters = dict(schema) if schema else {"type": "object", "properties": {}}
        parameters.setdefault("type", "object")
        out.append(
            {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
        )
    return out


async def check_call(client: Any, messages: list[ChatMessage], toolset: ToolSet) -> dict[str, Any]:
    """One real model call with the compact definitions; whether its tool calls are valid for the real tools."""
    from jsonschema import Draft202012Validator

    from thinker.normalize import normalize_arguments

    started = time.perf_counter()
    reply = await client.complete(messages, tools=toolset.definitions(), temperature=0.0, max_tokens=300)
    outcome: dict[str, Any] = {
        "seconds": round(time.perf_counter() - started, 1),
        "model_prompt_tokens": reply.usage.prompt_tokens,
        "calls": [],
        "text": (reply.text or "")[:120] if not reply.tool_calls else None,
    }
    for call in reply.tool_calls:
        verdict: dict[str, Any] = {"name": call.name, "arguments": call.arguments[:300]}
        schema = toolset.schema(call.name)
        try:
            arguments = json.loads(call.arguments or "{}")
        except ValueError:
            arguments = None
        if toolset.kind(call.name) is None or schema is None:
            verdict["valid"], verdict["why"] = False, "not an offered tool"
        elif not isinstance(arguments, dict):
            verdict["valid"], verdict["why"] = False, "arguments are not a JSON object"
        else:
            fixed = normalize_arguments(call.name, arguments, schema, chat_id="123456789", agent_id="annabelle")
            errors = [e.message for e in Draft202012Validator(schema).iter_errors(fixed.arguments)]
            verdict["valid"], verdict["why"] = not errors, "; ".join(errors)[:200]
        outcome["calls"].append(verdict)
    return outcome


@dataclass
class TurnFigures:
    message: str
    tools: int
    system: int
    tool_tokens: int
    history: int
    total: int
    baseline_total: int
    model: dict[str, Any] | None = None


async def run(model: str | None = None, api_base: str | None = None) -> dict[str, Any]:
    count = token_counter()
    project = await project_catalog()
    hub_tools = {t["name"]: HubTool(t["name"], t["description"], t["inputSchema"], t["mcp"]) for t in project.tools}
    hub_mcps = {m.name: HubMcp(m.name, m.label, m.tool_group, m.keywords) for m in project.mcps}
    catalog = ToolCatalog(hub_tools, hub_mcps, "bench")
    essentials = [e for e in ESSENTIALS.values() if e.hub_tool in hub_tools]
    infos = [ToolInfo(t.name, t.description, t.input_schema, t.mcp) for t in hub_tools.values()]
    infos += [ToolInfo(e.name, e.description, e.input_schema, None, e.hub_tool) for e in essentials]
    infos += [ToolInfo(name, text, {}, None) for name, text in meta_tool_descriptions().items()]
    mcps = [McpInfo(m.name, m.label, m.tool_group, m.keywords) for m in project.mcps]

    selector = ToolSelector(SelectionConfig(), MultilingualEmbedder(), E5SmallEmbedder())
    await selector.refresh(infos, mcps)
    await selector.prepare()
    history_embedder = LocalEmbedder()  # the runtime's history relevance runs on the memory embedder
    system = render_system_prompt(
        PromptLayers(
            persona=without_comments(prompt("default_persona")),
            now=NOW,
            profile=PROFILE,
            chat_id="123456789",
            memories=MEMORIES,
        )
    )
    earlier = earlier_messages()
    figures: list[TurnFigures] = []
    client = None
    if model:
        from thinker.llm import ModelClient
        from thinker.settings import ModelSettings

        client = ModelClient(ModelSettings(model, api_base, "no-key-needed" if api_base else None, timeout=600.0))
    for message, continues in TURNS:
        past = earlier if continues else []
        history = await build_history(past, message, history_embedder)
        users = [m["content"] for m in past if m["role"] == "user"]
        assistants = [m["content"] for m in past if m["role"] == "assistant" and m.get("content")]
        selection = await selector.select(message, recent_user_messages=users, recent_assistant_messages=assistants)
        toolset = ToolSet(catalog, selection.names, essentials=essentials)
        definitions = toolset.definitions()
        messages: list[ChatMessage] = [system_message(system), *history, user_message(message)]
        words = message_tokens(count, messages)
        tool_tokens = count(json.dumps(definitions))
        baseline = count(json.dumps(full_definitions(catalog, toolset.offered)))
        figures.append(
            TurnFigures(
                message=message,
                tools=len(definitions),
                system=4 + count(system),
                tool_tokens=tool_tokens,
                history=message_tokens(count, list(history)),
                total=words + tool_tokens,
                baseline_total=words + baseline,
                model=await check_call(client, messages, toolset) if client is not None else None,
            )
        )
    totals = [f.total for f in figures]
    baselines = [f.baseline_total for f in figures]
    summary: dict[str, Any] = {
        "p50": statistics.median(totals),
        "max": max(totals),
        "baseline_p50": statistics.median(baselines),
        "baseline_max": max(baselines),
        "p50_over_baseline_p50": round(statistics.median(totals) / statistics.median(baselines), 3),
        "system_prompt_tokens": figures[0].system,
        "mean_tools": round(statistics.fmean(f.tools for f in figures), 2),
        "tokenizer": "tiktoken cl100k_base (litellm's bundled BPE file)",
        "per_turn": [f.__dict__ for f in figures],
    }
    if client is not None:
        checked = [f.model for f in figures if f.model is not None]
        calls = [c for m in checked for c in m["calls"]]
        summary["model_check"] = {
            "model": model,
            "turns": len(checked),
            "turns_with_a_call": sum(1 for m in checked if m["calls"]),
            "calls": len(calls),
            "valid": sum(1 for c in calls if c["valid"]),
            "prompt_tokens_p50": statistics.median(m["model_prompt_tokens"] for m in checked),
            "prompt_tokens_max": max(m["model_prompt_tokens"] for m in checked),
            "seconds_p50": statistics.median(m["seconds"] for m in checked),
        }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="also send each first call to this litellm model string and check it")
    parser.add_argument("--api-base", help="the model's server, e.g. http://127.0.0.1:8088/v1")
    args = parser.parse_args()
    logging.disable(logging.INFO)
    summary = asyncio.run(run(args.model, args.api_base))
    print(f"{'turn':<62}{'tools':>6}{'system':>8}{'schemas':>9}{'history':>9}{'total':>7}{'before':>8}")
    for turn in summary["per_turn"]:
        print(
            f"{turn['message'][:60]:<62}{turn['tools']:>6}{turn['system']:>8}{turn['tool_tokens']:>9}"
            f"{turn['history']:>9}{turn['total']:>7}{turn['baseline_total']:>8}"
        )
    for turn in summary["per_turn"]:
        if turn["model"] is not None:
            found = turn["model"]["calls"] or [{"name": "(text)", "valid": None, "why": turn["model"]["text"]}]
            for call in found:
                print(f"  {turn['message'][:40]:<42} -> {call['name']} valid={call['valid']} {call.get('why') or ''}")
    if "model_check" in summary:
        print(f"model check: {summary['model_check']}")
    print(
        f"p50 {summary['p50']} (before {summary['baseline_p50']}), max {summary['max']} "
        f"(before {summary['baseline_max']}); system prompt {summary['system_prompt_tokens']} tokens"
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
