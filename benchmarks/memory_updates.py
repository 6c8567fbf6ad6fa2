"""Benchmark: does memory stay true when facts change? Scripted update sequences through the real Memorizer.

`python -m memorizer_mcp` is spawned and spoken to over stdio, as the hub runs it. For every sequence of a data
set (benchmarks/data/*.json: moves, job changes, preferences that flip, corrections, people, controls that must
*not* replace anything; seven languages, eleven in the fourth held-out set, sixteen and twenty in the
development set and the fifth) a fresh agent gets some unrelated
filler facts, then the sequence's facts one by one through `store_fact` (as the owner said them), then the
sequence's question through `retrieve_memories` (limit 3, facts only). Figures, per set:

- **accuracy**: the top fact holds the current value (a `current` string, matched as whole words, case and
  accents ignored). Goal ≥ 0.95.
- **stale_top3**: share of questions whose top 3 hold a stale fact (a `stale` string and no `current` one)
  presented as current. Goal ≤ 0.02.
- **wrongly_superseded**: `keep` facts (controls) that stopped being current, over all keep facts; and
  **fillers_superseded**: unrelated filler facts that stopped being current, over all fillers stored.
- **untrusted_overrides**: after the owner's facts, an *untrusted* statement of another value ("moved to
  Zanzibar"), and the sequence's own `untrusted` statements (an e-mail or a web page), are stored; counted when one
  superseded a fact (goal 0; `untrusted_checks` is how many were stored), and `accuracy_after_untrusted`
  asks the question again.
- **baseline_accuracy**: the same questions with `include_history=true`, ranking history like current facts —
  what retrieval returned before facts could stop being current.
- **store latency**: p50/p99 of `store_fact` (the decision step included) over the sequences' facts, against a
  read-only round trip (`list_facts`, limit 1) in the same run.
- **memorizer RSS** (Linux): the spawned process's resident memory after the warm-up (English facts: the
  embedder loaded) and after one French update (the value comparison; with `--embedder local` that loads the
  multilingual encoder beside MiniLM, with the default the same encoder serves both), before the sets run.

    python benchmarks/memory_updates.py [--embedder multilingual|local|none] [--fillers 8]
        [--only tuned|dev4|dev5|holdout|...|holdout6]
        [--model-decisions]   # ask UTILITY_MODEL (with UTILITY_API_BASE) about pairs the rules cannot settle

The tuned set is the one the rules were developed against; the held-out sets were never used to tune: the first
(first person and note form) was written before the rules, the second after the first's measurement, the third
(terse model summaries, "Remember that ..." requests) after the first round of rules, measured once. The second
round (values in other languages compared by the multilingual encoder) was developed on the tuned set only. The
fourth (the owner chatting about other people in eleven languages, seven of them in non-Latin scripts, with its
own untrusted e-mails and pages) was written before the third round (someone "is" many things at once) and
scored on main before it; the third round was developed on the tuned set and the second held-out set. The
move from all-MiniLM-L6-v2 to the multilingual encoder as the one embedder re-derived its thresholds from the tuned
set alone (benchmarks/memory_thresholds.py); every held-out set was scored once before and once after. The sixth
round (the multilingual encoder judges pairs the rules cannot read, memorizer_mcp/attributes.py) was developed on
the tuned set and **dev4**, a development set written for it (sixteen languages, not a held-out set); **holdout5**
(the owner's dated notes to self in twenty languages) was written before it, scored once before and once after.
The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.latency import percentile  # noqa: E402

DATA = REPO_ROOT / "benchmarks" / "data"
SETS = {
    "tuned": DATA / "memory_updates.json",
    "dev4": DATA / "memory_updates_dev4.json",
    "dev5": DATA / "memory_updates_dev5.json",
    "holdout": DATA / "memory_updates_holdout.json",
    "holdout2": DATA / "memory_updates_holdout2.json",
    "holdout3": DATA / "memory_updates_holdout3.json",
    "holdout4": DATA / "memory_updates_holdout4.json",
    "holdout5": DATA / "memory_updates_holdout5.json",
    "holdout6": DATA / "memory_updates_holdout6.json",
}
DECOY = "Zanzibar"


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def holds(text: str, needle: str) -> bool:
    """`needle` in `text` as whole words (a plural ending allowed: "Thursday" in "Thursdays"), ignoring case and
    accents. A needle written in another script than Latin matches anywhere: Chinese and Japanese leave no space
    between words, and Russian, Arabic or Korean attach case endings and particles to them ("Казани", "서울로")."""
    folded = fold(needle)
    letters = [ch for ch in folded if ch.isalpha()]
    if letters and not any(unicodedata.name(ch, "").startswith("LATIN") for ch in letters):
        return folded in fold(text)
    return re.search(rf"(?<!\w){re.escape(folded)}(?:e?s)?(?!\w)", fold(text)) is not None


class Memorizer:
    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        envelope: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
        if not envelope.get("success"):
            raise RuntimeError(f"{tool} failed: {envelope.get('error')}")
        data: dict[str, Any] = envelope["data"]
        return data


def untrusted_variant(sequence: dict[str, Any]) -> str | None:
    """The last fact with its current value replaced by a decoy: what a stranger's e-mail might claim."""
    if sequence["kind"] == "control" or not sequence.get("stale"):
        return None
    last = sequence["steps"][-1]
    for value in sequence["current"]:
        if holds(last, value):
            return re.sub(re.escape(value), DECOY, last, count=1, flags=re.IGNORECASE)
    return None


def untrusted_claims(sequence: dict[str, Any]) -> list[tuple[str, str]]:
    """(source type, text) of the untrusted statements stored after the owner's facts: the decoy variant, then the
    sequence's own `untrusted` statements (an e-mail or a web page claiming another value)."""
    variant = untrusted_variant(sequence)
    claims = [("email", variant)] if variant is not None else []
    return claims + [(claim["source"], claim["fact"]) for claim in sequence.get("untrusted", [])]


async def run_sequence(
    memory: Memorizer, agent: str, sequence: dict[str, Any], fillers: list[str], timings: list[float]
) -> dict[str, Any]:
    category = sequence.get("category", "background")
    owner = {"agent_id": agent, "provenance": "owner", "source_type": "owner"}
    for filler in fillers:
        await memory.call("store_fact", fact=filler, category="background", **owner)
    decisions = []
    for step in sequence["steps"]:
        started = time.perf_counter()
        stored = await memory.call("store_fact", fact=step, category=category, **owner)
        timings.append(time.perf_counter() - started)
        decisions.append(stored["decision"])
    question = sequence["question"]
    found = await memory.call("retrieve_memories", query=question, agent_id=agent, limit=3, include_conversations=False)
    facts = found["facts"]
    current, stale = sequence["current"], sequence.get("stale", [])

    def is_stale(fact: dict[str, Any]) -> bool:
        return any(holds(fact["fact"], s) for s in stale) and not any(holds(fact["fact"], c) for c in current)

    correct = bool(facts) and any(holds(facts[0]["fact"], c) for c in current)
    stale_top3 = any(is_stale(f) for f in facts[:3] if f["valid_until"] is None)
    blind = await memory.call(
        "retrieve_memories", query=question, agent_id=agent, limit=3, include_conversations=False, include_history=True
    )
    ranked = sorted(blind["facts"], key=lambda f: -f.get("score", 0.0))
    baseline = bool(ranked) and any(holds(ranked[0]["fact"], c) for c in current)
    listed = await memory.call("list_facts", agent_id=agent, limit=200)
    kept_lost = [k for k in sequence.get("keep", []) if not any(holds(f["fact"], k) for f in listed["facts"])]
    current_texts = {f["fact"] for f in listed["facts"]}
    fillers_lost = [filler for filler in dict.fromkeys(fillers) if filler not in current_texts]
    outcome: dict[str, Any] = {
        "id": sequence["id"],
        "lang": sequence["lang"],
        "kind": sequence["kind"],
        "correct": correct,
        "stale_top3": stale_top3,
        "baseline": baseline,
        "keep": len(sequence.get("keep", [])),
        "kept_lost": kept_lost,
        "fillers": len(set(fillers)),
        "fillers_lost": fillers_lost,
        "decisions": decisions,
        "top": facts[0]["fact"] if facts else None,
    }
    claims = untrusted_claims(sequence)
    if claims:
        overrides = 0
        for source, text in claims:
            stored = await memory.call(
                "store_fact", fact=text, category=category, agent_id=agent, provenance="untrusted", source_type=source
            )
            overrides += bool(stored.get("superseded"))
        again = await memory.call(
            "retrieve_memories", query=question, agent_id=agent, limit=3, include_conversations=False
        )
        outcome["untrusted"] = {
            "claims": len(claims),
            "overrides": overrides,
            "correct": bool(again["facts"]) and any(holds(again["facts"][0]["fact"], c) for c in current),
        }
    return outcome


def summarise(results: list[dict[str, Any]], timings: list[float]) -> dict[str, Any]:
    n = len(results)
    untrusted = [r["untrusted"] for r in results if "untrusted" in r]
    keep_total = sum(r["keep"] for r in results)

    def rate(items: list[dict[str, Any]], key: str) -> float:
        return round(sum(1 for r in items if r[key]) / len(items), 4) if items else 0.0

    by: dict[str, dict[str, dict[str, Any]]] = {"kind": {}, "lang": {}}
    for field in by:
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in results:
            groups[r[field]].append(r)
        by[field] = {name: {"n": len(g), "accuracy": rate(g, "correct")} for name, g in sorted(groups.items())}
    ms = [t * 1000 for t in timings]
    return {
        "sequences": n,
        "accuracy": rate(results, "correct"),
        "stale_top3": rate(results, "stale_top3"),
        "baseline_accuracy": rate(results, "baseline"),
        "wrongly_superseded": round(sum(len(r["kept_lost"]) for r in results) / keep_total, 4) if keep_total else 0.0,
        "fillers_superseded": round(
            sum(len(r["fillers_lost"]) for r in results) / max(1, sum(r["fillers"] for r in results)), 4
        ),
        "untrusted_checks": sum(u["claims"] for u in untrusted),
        "untrusted_overrides": sum(u["overrides"] for u in untrusted),
        "accuracy_after_untrusted": round(sum(1 for u in untrusted if u["correct"]) / len(untrusted), 4)
        if untrusted
        else 0.0,
        "decisions": dict(Counter(d for r in results for d in r["decisions"])),
        "store_p50_ms": round(statistics.median(ms), 2) if ms else 0.0,
        "store_p99_ms": round(percentile(ms, 0.99), 2) if ms else 0.0,
        "per_kind": by["kind"],
        "per_language": by["lang"],
        "failures": [
            r["id"] for r in results if not r["correct"] or r["stale_top3"] or r["kept_lost"] or r["fillers_lost"]
        ],
    }


async def run_set(memory: Memorizer, name: str, data: dict[str, Any], filler_count: int) -> dict[str, Any]:
    results = []
    timings: list[float] = []
    for index, sequence in enumerate(data["sequences"]):
        pool = data["fillers"][sequence["lang"]]
        fillers = [pool[(index + k) % len(pool)] for k in range(min(filler_count, len(pool)))]
        results.append(await run_sequence(memory, f"{name}-{index}", sequence, fillers, timings))
    for r in results:
        if not r["correct"] or r["stale_top3"] or r["kept_lost"] or r["fillers_lost"]:
            lost = r["kept_lost"] + r["fillers_lost"]
            print(f"  [{name}] {r['id']}: top={r['top']!r} decisions={r['decisions']} lost={lost}")
    return summarise(results, timings)


def memorizer_rss_mb() -> float | None:
    """Resident memory of the Memorizer this process spawned (/proc), or None where /proc cannot tell."""
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent != os.getpid() or b"memorizer_mcp" not in (entry / "cmdline").read_bytes():
                continue
            status = (entry / "status").read_text()
        except (OSError, ValueError, IndexError):
            continue
        return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmRSS:")), None)
    return None


async def rss_with_encoder(memory: Memorizer) -> dict[str, float | None]:
    """RSS before and after the first comparison in another language than English loads the multilingual encoder."""
    before = memorizer_rss_mb()
    for fact in ("L'utilisateur préfère le thé.", "L'utilisateur préfère désormais le café."):
        await memory.call("store_fact", fact=fact, category="preference", agent_id="rss-probe", provenance="owner")
    after = memorizer_rss_mb()
    return {
        "english_only_mb": round(before, 1) if before else None,
        "with_encoder_mb": round(after, 1) if after else None,
    }


async def round_trip_ms(memory: Memorizer, calls: int = 200) -> float:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        await memory.call("list_facts", agent_id="latency-baseline", limit=1)
        samples.append(time.perf_counter() - started)
    return round(statistics.median(samples) * 1000, 3)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedder", choices=("multilingual", "local", "none"), default="multilingual")
    parser.add_argument("--fillers", type=int, default=8, help="unrelated facts stored before each sequence")
    parser.add_argument("--only", choices=tuple(SETS), help="run one set only")
    parser.add_argument("--model-decisions", action="store_true", help="let UTILITY_MODEL settle what rules cannot")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memory-updates-") as home:
        env = {
            **os.environ,
            "ANNABELLE_HOME": home,
            "ANNABELLE_ENV_FILE": str(Path(home) / "none.env"),
            "EMBEDDING_PROVIDER": args.embedder,
            "FACT_EXTRACTION_ENABLED": "false",
            "LOG_LEVEL": "WARNING",
            "MEMORY_MODEL_DECISIONS": "true" if args.model_decisions else "false",
        }
        if not args.model_decisions:
            env["UTILITY_MODEL"] = ""
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "memorizer_mcp"], env=env, cwd=str(REPO_ROOT)
        )
        async with Client(server) as client:
            memory = Memorizer(client)
            await memory.call("store_fact", fact="Warm-up fact so the embedder is loaded.", category="pattern",
                              agent_id="warm-up")  # fmt: skip
            summary: dict[str, Any] = {"embedder": args.embedder, "model_decisions": args.model_decisions}
            summary["memorizer_rss"] = await rss_with_encoder(memory)
            for name, path in SETS.items():
                if args.only and name != args.only:
                    continue
                data = json.loads(path.read_text(encoding="utf-8"))
                summary[name] = await run_set(memory, name, data, args.fillers)
            summary["round_trip_p50_ms"] = await round_trip_ms(memory)
    for name in SETS:
        if name in summary:
            s = summary[name]
            s["store_p50_vs_round_trip"] = round(s["store_p50_ms"] / summary["round_trip_p50_ms"], 2)
            print(
                f"{name:8} n={s['sequences']:3}  accuracy {s['accuracy']:.3f} (baseline {s['baseline_accuracy']:.3f})"
                f"  stale@3 {s['stale_top3']:.3f}  wrongly superseded {s['wrongly_superseded']:.3f}"
                f" (fillers {s['fillers_superseded']:.3f})"
                f"  untrusted overrides {s['untrusted_overrides']}/{s['untrusted_checks']}"
                f"  store p50 {s['store_p50_ms']} ms ({s['store_p50_vs_round_trip']}x round trip)"
            )
    rss = summary["memorizer_rss"]
    print(f"memorizer RSS {rss['english_only_mb']} MB English only, {rss['with_encoder_mb']} MB with the encoder")
    print(json.dumps(summary, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
