"""Benchmark: tool selection recall, tools and schema tokens sent, and latency, on labelled message sets.

Four pipelines run over the shared tuning set (`../shared/bench/toolsel`):

- `shipped`: `ToolSelector` with the default `SelectionConfig` and the two encoders the Thinker's selection
  uses (USE multilingual v3, with multilingual-e5-small's second opinion; `--set second_weight=0` leaves it
  out): embedding of the tools' texts and MCPs, words, manifest keywords,
  clauses, follow-up context, lookup companions;
- `regex_only`: the same selector without an embedder (what runs with `EMBEDDING_PROVIDER=none` or when the
  embedder fails): the English fallback of words, keyword routes and the concept lexicon;
- `embedding_only`: the cosine alone (best of each tool's texts), top 15 (the original's `TOOL_SELECTOR_TOP_K`);
  `embedding_top8` (an extra key) the same at about the shipped pipeline's number of tools.

Then, on this project's own sets in `benchmarks/data/` (see its README): `dev`, `dev_project`, `dev2_project`, `dev3_project` and
`dev4_project` (used for choices) and the held-out sets never tuned on, `heldout_catalog` (the shared catalog), `heldout_project` and
`heldout3_project`, `heldout4_project`, `heldout5_project`, `heldout6_project`, `heldout7_project`, `heldout8_project` (this project's real tools, built from the MCP servers' code by `project_catalog.py`), each
overall, per kind and per language.

Counting rules (docs/benchmarks.md and DESIGN): recall is the share of a message's required tools that were
sent, averaged over the messages that need tools; `all_covered` is the share of those messages with every
required tool sent; gold tools missing from the catalog are left out and counted in `skipped_gold_tools`;
`mean_tools` and `mean_schema_tokens` count everything sent - the core tools (the two meta-tools) and the
Thinker's essentials when the selection picked them (they are candidates like the MCP tools, as in the
Thinker) included - over all messages; follow-ups pass their `context` turns as history
(`recent_user_messages` / `recent_assistant_messages`; no tool-call history exists in the data, so sticky
tools never fire here). Schema tokens are cl100k_base tokens (tiktoken, with the BPE file bundled in litellm,
so no download) of each tool's `{"name", "description", "inputSchema"}` JSON, the form of tools.json.

`recall` counts exact names only. `alias_recall` (an extra key) also credits a gold tool when the Thinker
essential that calls it was sent (docs/thinker.md, essentials): `send_telegram` → `telegram_send_message`,
`store_fact` → `memory_store_fact`, `search_memories` → the memory search (`memory_retrieve_memories` on the
hub; this catalog names it `memory_search_memories`), and the other way round. The model can do with the
essential exactly what the gold tool does, so the alias-credited figure is what the model can act on; both are
reported.

Latency is one `select` call (message, clause and follow-up embeddings included, tool vectors prepared
beforehand), reported with a baseline measured in the same run: embedding the message alone with USE (and, as
`second_embed_p50_ms`, with e5). The e5 vectors are kept for the run in memory, so each catalog's tool texts
are embedded once (about a minute on two cores) however many sets read them; messages are always embedded.

    python benchmarks/tool_selection.py [--catalog PATH] [--queries PATH] [--data DIR] [--set min_tools=5 ...]
                                        [--sets tuning,dev,heldout_catalog,heldout_project,heldout3_project,...]

`--set` changes a `SelectionConfig` default for every pipeline (to draw the recall/tools trade-off); `--sets`
runs only the named sets (the shared tuning set is `tuning`), all of them by default.

The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.util
import json
import logging
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from shared.contracts.memory import FACT_CATEGORIES  # noqa: E402
from shared.embeddings import Embedder  # noqa: E402
from shared.embeddings.e5 import E5SmallEmbedder  # noqa: E402
from shared.embeddings.multilingual import MultilingualEmbedder  # noqa: E402
from thinker.selection import McpInfo, SelectionConfig, ToolInfo, ToolSelector  # noqa: E402

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "bench" / "toolsel"
OWN_DATA = REPO_ROOT / "benchmarks" / "data"

BENCH_MCPS: dict[str, McpInfo] = {
    # Label, group and keywords of the original system's manifests (reference/original-system.md §3.1).
    "gmail": McpInfo(
        "gmail",
        "Gmail",
        "Communication",
        ("email", "mail", "inbox", "draft", "compose", "calendar", "meeting", "schedule", "event"),
    ),
    "memory": McpInfo("memory", "Memory", "Knowledge & Memory", ("remember", "memory", "forget", "fact", "contact")),
    "filer": McpInfo("filer", "Workspace Files", "File Management", ("file", "document", "save", "workspace")),
    "searcher": McpInfo("searcher", "Web Search", "Web Search", ("search", "news", "weather", "forecast", "find out")),
    "telegram": McpInfo("telegram", "Telegram", "Communication", ("telegram", "message", "chat", "group")),
    "codexec": McpInfo(
        "codexec", "Code Execution", "Code Execution", ("code", "script", "execute", "python", "bash", "calculate")
    ),
    "browser": McpInfo("browser", "Browser", "Browser", ("browse", "website", "navigate", "webpage", "screenshot")),
    "onepassword": McpInfo(
        "onepassword", "1Password", "Secrets", ("password", "secret", "credential", "vault", "1password")
    ),
    # Not in the original: written for this catalog from its tool names, as an external MCP's entry would be.
    "scheduler": McpInfo("scheduler", "Scheduler", "Reminders", ("reminder", "alarm", "recurring")),
    "github": McpInfo("github", "GitHub", "Development", ("github", "repository", "repo", "pull request")),
    "posthog": McpInfo("posthog", "PostHog", "Analytics", ("posthog", "analytics", "feature flag")),
}

CORE_DEFINITIONS: list[dict[str, Any]] = [
    # As the Thinker offers them (thinker/essentials.py, thinker/tiers.py, the hub's get_status).
    {
        "name": "send_telegram",
        "description": "Send a Telegram message (to the current chat unless chat_id is given).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "message": {"type": "string", "description": "The text to send."},
                "chat_id": {
                    "type": "string",
                    "description": "Target chat; leave it out to answer in the current chat.",
                },
                "reply_to": {"type": "integer", "description": "Message id to reply to."},
            },
            "required": ["message"],
        },
    },
    {
        "name": "store_fact",
        "description": "Remember one fact about the user for later conversations.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "fact": {"type": "string", "description": 'A short, self-contained statement, e.g. "Prefers tea".'},
                "category": {
                    "type": "string",
                    "enum": list(FACT_CATEGORIES),
                    "description": "What kind of fact it is.",
                },
            },
            "required": ["fact", "category"],
        },
    },
    {
        "name": "search_memories",
        "description": "Search what you remember about the user (facts and past conversations).",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for, in words."},
                "limit": {"type": "integer", "default": 5, "description": "Most results to return."},
            },
            "required": ["query"],
        },
    },
    {
        "name": "get_status",
        "description": "[Annabelle | System] Status of the hub: uptime, each MCP server (up, restarting or down) "
        "and tool counts.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "browse_tools",
        "description": "List the tool categories you can load (name, what they cover, how many tools, their names). "
        "Use it when none of your current tools fits the task.",
        "inputSchema": {"type": "object", "properties": {}},
    },
    {
        "name": "load_tools",
        "description": "Load one category from browse_tools: its tools become available to you for the rest of this "
        "conversation turn.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "category": {"type": "string", "description": "A category name from browse_tools, e.g. `filer`."}
            },
            "required": ["category"],
        },
    },
]


ESSENTIAL_ALIASES: dict[str, str] = {
    "send_telegram": "telegram_send_message",
    "store_fact": "memory_store_fact",
    "search_memories": "memory_search_memories",
}
"""Thinker essential → the catalog tool it calls (see the module docstring: `alias_recall`)."""


class RunMemo(Embedder):
    """An embedder's vectors kept for one benchmark run: the sets share catalogs, whose texts need one pass."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.provider, self.model = inner.provider, inner.model
        self._kept: dict[str, Any] = {}

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def prepare(self) -> None:
        await self.inner.prepare()

    async def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        missing = [text for text in dict.fromkeys(texts) if text not in self._kept]
        if missing:
            self._kept.update(zip(missing, await self.inner.embed(missing), strict=True))
        return np.stack([self._kept[text] for text in texts]) if texts else await self.inner.embed([])


def token_counter() -> Callable[[str], int]:
    """cl100k_base from tiktoken, reading the BPE file litellm ships (tiktoken would otherwise download it)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("litellm is not installed: run `make install` (its bundled cl100k_base file is needed).")
    bundled = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(bundled))
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base")
    return lambda text: len(encoding.encode(text))


def half(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "a" if int.from_bytes(digest[:4], "big") % 2 == 0 else "b"


@dataclass
class Outcome:
    kind: str
    lang: str
    half: str
    gold: list[str]
    sent: list[str]
    tokens: int
    ms: float


@dataclass
class Pipeline:
    name: str
    selector: ToolSelector
    outcomes: list[Outcome] = field(default_factory=list)


def credited(gold: Sequence[str], sent: Sequence[str], aliases: dict[str, str]) -> float:
    """Share of `gold` sent, a tool also counting as sent when its alias (either way round) was."""
    both = {**aliases, **{hub: essential for essential, hub in aliases.items()}}
    have = {*sent, *(both[name] for name in sent if name in both)}
    return len(set(gold) & have) / len(gold)


def summarise(outcomes: Sequence[Outcome], aliases: dict[str, str] = ESSENTIAL_ALIASES) -> dict[str, Any]:
    needing = [o for o in outcomes if o.gold]
    recalls = [len(set(o.gold) & set(o.sent)) / len(o.gold) for o in needing]
    aliased = [credited(o.gold, o.sent, aliases) for o in needing]
    followups = [r for r, o in zip(recalls, needing, strict=True) if o.kind == "followup"]

    def mean(values: Sequence[float]) -> float | None:
        return round(statistics.fmean(values), 4) if values else None

    return {
        "recall": mean(recalls),
        "followup_recall": mean(followups),
        "all_covered": mean([1.0 if r == 1.0 else 0.0 for r in recalls]),
        "mean_tools": mean([len(o.sent) for o in outcomes]),
        "mean_schema_tokens": mean([o.tokens for o in outcomes]),
        "p50_ms": round(statistics.median(o.ms for o in outcomes), 3) if outcomes else None,
        "messages": len(outcomes),
        "alias_recall": mean(aliased),
        "alias_all_covered": mean([1.0 if r == 1.0 else 0.0 for r in aliased]),
    }


def breakdown(outcomes: Sequence[Outcome], aliases: dict[str, str] = ESSENTIAL_ALIASES) -> dict[str, Any]:
    """Overall, per kind, per language, and all non-English messages together."""
    out = summarise(outcomes, aliases)
    out["per_kind"] = {
        k: summarise([o for o in outcomes if o.kind == k], aliases) for k in sorted({o.kind for o in outcomes})
    }
    out["per_lang"] = {
        k: summarise([o for o in outcomes if o.lang == k], aliases) for k in sorted({o.lang for o in outcomes})
    }
    out["non_english"] = summarise([o for o in outcomes if o.lang != "en" or o.kind == "non_english"], aliases)
    return out


def config_with(assignments: Sequence[str]) -> SelectionConfig:
    """`SelectionConfig()` with `name=value` overrides, each value read as its field's type."""
    config = SelectionConfig()
    changes: dict[str, Any] = {}
    for assignment in assignments:
        name, _, value = assignment.partition("=")
        current = getattr(config, name, None)
        if current is None or isinstance(current, tuple):
            raise SystemExit(f"--set {assignment}: {name!r} is not a number or switch of SelectionConfig.")
        if isinstance(current, bool):
            changes[name] = value.lower() in ("1", "true", "yes", "on")
        else:
            changes[name] = type(current)(value)
    return replace(config, **changes)


def history(record: dict[str, Any]) -> tuple[list[str], list[str]]:
    turns = record.get("context") or []
    users = [turn["text"] for turn in turns if turn.get("role") == "user"]
    assistants = [turn["text"] for turn in turns if turn.get("role") == "assistant"]
    return users, assistants


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def shared_catalog(raw_tools: list[dict[str, Any]]) -> tuple[list[ToolInfo], list[McpInfo], dict[str, int]]:
    """The benchmark catalog as the Thinker would see it: its tools, then the Thinker's own (CORE_DEFINITIONS)."""
    count = token_counter()
    tools = []
    for entry in raw_tools:
        prefix = entry["name"].split("_", 1)[0]
        tools.append(
            ToolInfo(
                entry["name"], entry["description"], entry["inputSchema"], prefix if "_" in entry["name"] else None
            )
        )
    tools += [
        ToolInfo(d["name"], d["description"], d["inputSchema"], None, ESSENTIAL_ALIASES.get(d["name"]))
        for d in CORE_DEFINITIONS
    ]
    mcps = [BENCH_MCPS[p] for p in sorted({t.mcp for t in tools if t.mcp}) if p in BENCH_MCPS]
    tokens = {
        entry["name"]: count(json.dumps({k: entry[k] for k in ("name", "description", "inputSchema")}))
        for entry in [*raw_tools, *CORE_DEFINITIONS]
    }
    return tools, mcps, tokens


async def real_catalog() -> tuple[list[ToolInfo], list[McpInfo], dict[str, int]]:
    """This project's tools (from the MCP servers' own code) plus the Thinker's essentials and meta-tools."""
    from project_catalog import project_catalog

    from thinker.essentials import ESSENTIALS
    from thinker.tiers import function_definition, meta_tool_descriptions

    catalog = await project_catalog()
    count = token_counter()
    tools = [ToolInfo(t["name"], t["description"], t["inputSchema"], t["mcp"]) for t in catalog.tools]
    tools += [ToolInfo(e.name, e.description, e.input_schema, None, e.hub_tool) for e in ESSENTIALS.values()]
    tools += [ToolInfo(name, description, {}, None) for name, description in meta_tool_descriptions().items()]
    tokens = {
        t.name: count(json.dumps({"name": t.name, "description": t.description, "inputSchema": t.input_schema}))
        for t in tools
    }
    del function_definition  # imported to fail early if the Thinker's tool module moved
    return tools, catalog.mcps, tokens


async def score(
    pipelines: Sequence[Pipeline],
    records: Sequence[dict[str, Any]],
    tokens: dict[str, int],
    baseline: Embedder | None = None,
) -> tuple[int, list[float]]:
    """Run every pipeline over the records; returns (gold tools missing from the catalog, baseline timings)."""
    skipped = 0
    baseline_ms: list[float] = []
    for record in records:
        gold = [name for name in record["tools"] if name in tokens]
        skipped += len(record["tools"]) - len(gold)
        users, assistants = history(record)
        if baseline is not None:
            started = time.perf_counter()
            await baseline.embed([record["text"]])
            baseline_ms.append((time.perf_counter() - started) * 1000)
        for pipeline in pipelines:
            started = time.perf_counter()
            selection = await pipeline.selector.select(
                record["text"], recent_user_messages=users, recent_assistant_messages=assistants
            )
            elapsed = (time.perf_counter() - started) * 1000
            sent = list(selection.names)
            pipeline.outcomes.append(
                Outcome(
                    kind=record["kind"],
                    lang=record.get("lang", "en"),
                    half=half(record["text"]),
                    gold=gold,
                    sent=sent,
                    tokens=sum(tokens.get(name, 0) for name in sent),
                    ms=elapsed,
                )
            )
    return skipped, baseline_ms


async def run(
    raw_tools: list[dict[str, Any]],
    records: list[dict[str, Any]],
    overrides: list[str],
    extra: dict[str, Path],
    tuning: bool = True,
) -> dict[str, Any]:
    tools, mcps, tokens = shared_catalog(raw_tools)
    embedder = MultilingualEmbedder()
    await embedder.prepare()  # loading the weights is not part of any timing
    second = RunMemo(E5SmallEmbedder())
    await second.prepare()

    shipped = config_with(overrides)
    summary: dict[str, Any] = {"overrides": overrides, "embedder": embedder.key, "second": second.key}
    if tuning:
        summary.update(await run_tuning(tools, mcps, tokens, records, shipped, embedder, second))
        summary["catalog_tools"] = len(raw_tools)

    # Sets written for this project: a development set (used for choices) and held-out sets (never tuned on).
    for name, path in extra.items():
        if not path.exists():
            continue
        if name in PROJECT_SETS:
            set_tools, set_mcps, set_tokens = await real_catalog()
            aliases = PROJECT_ALIASES
        else:
            set_tools, set_mcps, set_tokens, aliases = tools, mcps, tokens, ESSENTIAL_ALIASES
        selectors = [
            Pipeline("shipped", ToolSelector(shipped, embedder, second)),
            Pipeline("regex_only", ToolSelector(shipped, None)),
        ]
        for pipeline in selectors:
            await pipeline.selector.refresh(set_tools, set_mcps)
            await pipeline.selector.prepare()
        missing, _ = await score(selectors, read_jsonl(path), set_tokens)
        summary[name] = {
            "shipped": breakdown(selectors[0].outcomes, aliases),
            "regex_only": summarise(selectors[1].outcomes, aliases),
            "skipped_gold_tools": missing,
            "catalog_tools": len(set_tools),
        }
    return summary


async def run_tuning(
    tools: list[ToolInfo],
    mcps: list[McpInfo],
    tokens: dict[str, int],
    records: list[dict[str, Any]],
    shipped: SelectionConfig,
    embedder: MultilingualEmbedder,
    second: Embedder,
) -> dict[str, Any]:
    """The shared tuning set through the four pipelines, with latency against embedding the message alone."""
    # The embedding alone: cosine of the message and the tool's texts, nothing else, a fixed number of tools.
    cosine_only = replace(
        shipped,
        lexical_weight=0.0,
        route_weight=0.0,
        mcp_weight=0.0,
        context_weight=0.0,
        assistant_context_weight=0.0,
        clause_top=0,
        context_top=0,
        lookup_companions=False,
        threshold=-1.0,
        max_tools=64,
    )
    pipelines = [
        Pipeline("shipped", ToolSelector(shipped, embedder, second)),
        Pipeline("regex_only", ToolSelector(shipped, None)),
        Pipeline("embedding_only", ToolSelector(replace(cosine_only, min_tools=15, top_k=15), embedder)),
        Pipeline("embedding_top8", ToolSelector(replace(cosine_only, min_tools=8, top_k=8), embedder)),
    ]
    for pipeline in pipelines:
        await pipeline.selector.refresh(tools, mcps)
        await pipeline.selector.prepare()
    skipped, baseline_ms = await score(pipelines, records, tokens, baseline=embedder)

    summary: dict[str, Any] = {p.name: summarise(p.outcomes) for p in pipelines}
    shipped_outcomes = pipelines[0].outcomes
    kinds = sorted({o.kind for o in shipped_outcomes})
    summary["per_kind"] = {kind: summarise([o for o in shipped_outcomes if o.kind == kind]) for kind in kinds}
    summary["skipped_gold_tools"] = skipped
    embed_p50 = statistics.median(baseline_ms)
    summary["baseline_embed_p50_ms"] = round(embed_p50, 3)
    bare = second.inner if isinstance(second, RunMemo) else second
    second_ms = []
    for record in records:
        started = time.perf_counter()
        await bare.embed([record["text"]])
        second_ms.append((time.perf_counter() - started) * 1000)
    summary["second_embed_p50_ms"] = round(statistics.median(second_ms), 3)
    summary["shipped_p50_over_embed_p50"] = round(summary["shipped"]["p50_ms"] / embed_p50, 3)
    summary["core_tools_sent"] = list(shipped.core_tools)
    summary["alias_rule"] = ESSENTIAL_ALIASES
    summary["tokenizer"] = "tiktoken cl100k_base (litellm's bundled BPE file)"
    return summary


OWN_SETS: dict[str, str] = {
    "dev": "dev_catalog.jsonl",
    "dev_project": "dev_project.jsonl",
    "dev2_project": "dev2_project.jsonl",
    "dev3_project": "dev3_project.jsonl",
    "dev4_project": "dev4_project.jsonl",
    "dev5_project": "dev5_project.jsonl",
    "heldout_catalog": "heldout_catalog.jsonl",
    "heldout_project": "heldout_project.jsonl",
    "heldout3_project": "heldout3_project.jsonl",
    "heldout4_project": "heldout4_project.jsonl",
    "heldout5_project": "heldout5_project.jsonl",
    "heldout6_project": "heldout6_project.jsonl",
    "heldout7_project": "heldout7_project.jsonl",
    "heldout8_project": "heldout8_project.jsonl",
}
"""This project's sets in `--data` (benchmarks/data/README.md): name → file."""

PROJECT_SETS = frozenset(
    {
        "dev_project",
        "dev2_project",
        "dev3_project",
        "dev4_project",
        "dev5_project",
        "heldout_project",
        "heldout3_project",
        "heldout4_project",
        "heldout5_project",
        "heldout6_project",
        "heldout7_project",
        "heldout8_project",
    }
)
"""Sets labelled with this project's own tool names (the rest use the shared catalog)."""

PROJECT_ALIASES: dict[str, str] = {
    "send_telegram": "telegram_send_message",
    "store_fact": "memory_store_fact",
    "search_memories": "memory_retrieve_memories",
}
"""The Thinker's essentials and the hub tools they call, on this project's own tool names."""


def report(summary: dict[str, Any]) -> None:
    columns = ("recall", "alias_recall", "followup_recall", "all_covered", "mean_tools", "mean_schema_tokens", "p50_ms")
    print(f"{'pipeline':<30}" + "".join(f"{c:>19}" for c in columns))

    def line(name: str, s: dict[str, Any]) -> None:
        print(f"{name:<30}" + "".join(f"{'-' if s.get(c) is None else s[c]:>19}" for c in columns))

    if "shipped" in summary:
        for name in ("shipped", "regex_only", "embedding_only", "embedding_top8"):
            line(name, summary[name])
        for kind, s in summary["per_kind"].items():
            line(f"shipped[{kind}]", s)
    for name in OWN_SETS:
        if name not in summary:
            continue
        block = summary[name]
        line(f"{name}", block["shipped"])
        line(f"{name} regex_only", block["regex_only"])
        line(f"{name}[non-English]", block["shipped"]["non_english"])
        for kind, s in block["shipped"]["per_kind"].items():
            line(f"{name}[{kind}]", s)
        for lang, s in block["shipped"]["per_lang"].items():
            line(f"{name}[{lang}]", s)
    if "shipped" in summary:
        print(
            f"embedding alone p50 {summary['baseline_embed_p50_ms']} ms (e5 {summary['second_embed_p50_ms']} ms); "
            f"shipped p50 / embedding p50 = "
            f"{summary['shipped_p50_over_embed_p50']}; skipped gold tools: {summary['skipped_gold_tools']}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    logging.disable(logging.INFO)  # one log line per selection would bury the figures
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--catalog", default=str(DEFAULT_DATA / "tools.json"))
    parser.add_argument("--queries", default=str(DEFAULT_DATA / "queries.jsonl"))
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a SelectionConfig override")
    parser.add_argument("--data", default=str(OWN_DATA), help="folder of this project's dev and held-out sets")
    parser.add_argument(
        "--sets",
        default=",".join(("tuning", *OWN_SETS)),
        help="comma-separated sets to run (default: all): tuning, " + ", ".join(OWN_SETS),
    )
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.sets.split(",") if name.strip()]
    unknown = sorted(set(chosen) - {"tuning", *OWN_SETS})
    if unknown:
        parser.error(f"--sets: unknown set(s) {', '.join(unknown)}; known: tuning, {', '.join(OWN_SETS)}")
    raw_tools = json.loads(Path(args.catalog).read_text(encoding="utf-8"))
    records = read_jsonl(Path(args.queries))
    own = Path(args.data)
    extra = {name: own / file for name, file in OWN_SETS.items() if name in chosen}
    summary = asyncio.run(run(raw_tools, records, list(args.set), extra, tuning="tuning" in chosen))
    report(summary)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
