"""Benchmark: Guardian's detection quality and latency, per layer and layered, at the shipped bars.

The evaluation sets, reported side by side, none ever trained or tuned on:

- the corpus given with `--corpus` (`shared/bench/guardian/corpus.jsonl`: other authors' texts; its records
  carry no surface, so they are scanned as surface `other`, whose bars come from all surfaces' calibration);
- the never-tuned holdout (`datasets/guardian/holdout.txt`, or `--holdout PATH`), scanned with each record's
  surface as its source, so the per-surface bars apply; benign false-positive rates are also given per surface;
- the second never-tuned set (`datasets/guardian/fresh.txt`, or `--fresh PATH`), written after the shipped model
  and its bars were fixed, scored the same way (summary key `fresh`);
- the third never-tuned set (`datasets/guardian/blind.txt`, or `--blind PATH`), written in another style and
  committed before the bars were set on hard negatives, scored the same way (summary key `blind`);
- the fourth never-tuned set (`datasets/guardian/unseen.txt`, or `--unseen PATH`), attacks inside realistic
  carriers (tickets, invites, transcripts, CSV exports, hidden HTML, READMEs, chat logs) and forum-style jailbreaks
  in ten languages, committed before a calibration change was judged on it, scored the same way (summary key
  `unseen`);
- the fifth never-tuned set (`datasets/guardian/later.txt`, or `--later PATH`), written by another author in
  thirteen or more languages with many short trigger-word prompts among its hard negatives, committed before the
  third retraining candidate was scored (summary key `later`);
- the sixth never-tuned set (`datasets/guardian/sixth.txt`, or `--sixth PATH`), written by a sixth author in
  fifteen languages, committed before the fourth round's shipped model was scored on it (summary key `sixth`);
- the seventh never-tuned set (`datasets/guardian/seventh.txt`, or `--seventh PATH`), written by a seventh author
  in fifteen or more languages, committed before the fifth round's candidate (a soup of three seeds) was trained
  (summary key `seventh`).

`--weights PATH` scores another classifier (a `guard_model.json` with its `guard_model.onnx` beside it, as
`make guardian-train --out-dir` writes them) instead of the shipped one, e.g. a candidate next to the shipped one.

To check a change on development data before scoring the never-tuned sets, give the training file instead
(`--holdout datasets/guardian/train.jsonl.gz`): its `calib` part (where the bars were set) is scored in place
of the holdout, under the same keys.

On the corpus, `hard_negatives` is the benign rate on its texts that talk about instructions and security
without addressing the assistant (NotInject's trigger-word prompts and the corpus's authored hard negatives).

For each layer (`rules`, `classifier`, and `judge` when `--judge-model` is given) and for the layered scanner,
every record is scanned by the real scanner object. `*_recall` and `benign_fpr` count *blocked* records
(`safe: false`, what the hub blocks); `*_flagged` and `benign_flagged` count blocked *or marked* ones (what the
hub would at least quote as suspicious). Each rate has a 95 % Wilson interval. `--split` keeps one part of the
corpus by the old hash rule (sha256 of the text mod 5 == 0 is `holdout`); it is kept for comparisons with
earlier runs: the classifier is no longer trained on any of the corpus.

Latency: p50/p99 of one scan of 200- and 2,000-character slices of the corpus's benign texts (ordinary prose),
the model loaded beforehand, the cache off (each slice is new). `p50_ratio_to_rules_*` divides by the rule
layer's p50 in the same run (these machines are shared and noisy). `load_seconds` is the time to load the
classifier (spec, hashes, ONNX session) and scan a first text (the tokeniser is built then).

    python benchmarks/guardian.py --corpus ../shared/bench/guardian/corpus.jsonl [--split holdout]
        [--holdout PATH] [--fresh PATH] [--blind PATH] [--unseen PATH] [--later PATH] [--sixth PATH] [--seventh PATH]
        [--weights SPEC]
        [--judge-model MODEL --judge-api-base URL]

The last line printed is the JSON summary `{"layered": G, "layers": {name: G}, "holdout": {...}, ...}`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from benchmarks.latency import percentile  # noqa: E402
from guardian_mcp import classifier as classifier_module  # noqa: E402
from guardian_mcp.classifier import load_classifier  # noqa: E402
from guardian_mcp.judge import JudgeConfig, Message, style_for_model  # noqa: E402
from guardian_mcp.scanner import ClassifierScanner, JudgeScanner, LayeredScanner, RuleScanner, Scanner  # noqa: E402
from guardian_mcp.segment import SURFACES  # noqa: E402
from guardian_mcp.training.evaluation import (  # noqa: E402
    BLIND,
    FRESH,
    HOLDOUT,
    KINDS,
    LATER,
    SEVENTH,
    SIXTH,
    UNSEEN,
    Record,
    read_corpus,
    read_set,
)

LATENCY_SAMPLES = 40
NEVER_TUNED = ("holdout", "fresh", "blind", "unseen", "later", "sixth", "seventh")
"""The never-tuned sets, scored with each record's surface; their summary keys."""
HARD_NEGATIVE_SOURCES = ("NotInject", "authored hard negative")


def wilson(hits: int, total: int, z: float = 1.96) -> list[float]:
    """95 % Wilson score interval of a proportion."""
    if total == 0:
        return [0.0, 1.0]
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


class CountingJudge:
    """A `CompletionFn` that calls litellm and adds up the tokens each answer reports."""

    def __init__(self) -> None:
        self.tokens = 0
        self.calls = 0

    async def __call__(self, messages: Sequence[Message], config: JudgeConfig) -> str:
        from guardian_mcp.judge import _litellm_kwargs
        from shared.litellm_loader import load_litellm

        self.calls += 1
        response = await load_litellm().acompletion(**_litellm_kwargs(messages, config))
        usage = getattr(response, "usage", None)
        self.tokens += int(getattr(usage, "total_tokens", 0) or 0)
        content = response.choices[0].message.content
        return content if isinstance(content, str) else ""


def rates(outcomes: Sequence[tuple[Record, str]]) -> dict[str, Any]:
    """Blocked and flagged (blocked or marked) rates per kind, with intervals and counts."""
    out: dict[str, Any] = {}
    for kind in KINDS:
        actions = [action for record, action in outcomes if record.kind == kind]
        blocked = sum(action == "block" for action in actions)
        flagged = sum(action in ("block", "mark") for action in actions)
        key = "benign_fpr" if kind == "benign" else f"{kind}_recall"
        flag_key = "benign_flagged" if kind == "benign" else f"{kind}_flagged"
        out[key] = round(blocked / len(actions), 4) if actions else None
        out[f"{key}_ci95"] = wilson(blocked, len(actions))
        out[flag_key] = round(flagged / len(actions), 4) if actions else None
        out[f"{flag_key}_ci95"] = wilson(flagged, len(actions))
        out[f"{kind}_n"] = len(actions)
    return out


def per_surface(outcomes: Sequence[tuple[Record, str]]) -> dict[str, Any]:
    out = {}
    for name in SURFACES:
        benign = [action for record, action in outcomes if record.kind == "benign" and record.surface == name]
        attacks = [action for record, action in outcomes if record.kind != "benign" and record.surface == name]
        if not benign and not attacks:
            continue
        out[name] = {
            "benign_n": len(benign),
            "benign_fpr": round(sum(a == "block" for a in benign) / len(benign), 4) if benign else None,
            "benign_flagged": round(sum(a != "pass" for a in benign) / len(benign), 4) if benign else None,
            "attack_n": len(attacks),
            "attack_recall": round(sum(a == "block" for a in attacks) / len(attacks), 4) if attacks else None,
            "attack_flagged": round(sum(a != "pass" for a in attacks) / len(attacks), 4) if attacks else None,
        }
    return out


def hard_negatives(outcomes: Sequence[tuple[Record, str]]) -> dict[str, Any]:
    """Blocked and flagged rates on the corpus's benign texts that merely talk about instructions or security."""
    actions = [
        action
        for record, action in outcomes
        if record.kind == "benign" and record.source.startswith(HARD_NEGATIVE_SOURCES)
    ]
    blocked = sum(action == "block" for action in actions)
    flagged = sum(action != "pass" for action in actions)
    return {
        "n": len(actions),
        "fpr": round(blocked / len(actions), 4) if actions else None,
        "fpr_ci95": wilson(blocked, len(actions)),
        "flagged": round(flagged / len(actions), 4) if actions else None,
        "flagged_ci95": wilson(flagged, len(actions)),
    }


async def outcomes(scanner: Scanner, records: Sequence[Record], by_surface: bool) -> list[tuple[Record, str]]:
    out = []
    for record in records:
        source = f"{record.surface}:benchmark" if by_surface and record.surface != "other" else "benchmark"
        verdict = await scanner.scan(record.text, source=source)
        out.append((record, verdict.action))
    return out


def slices(records: Sequence[Record], size: int, count: int, seed: int = 7) -> list[str]:
    prose = "\n".join(record.text for record in records if record.kind == "benign")
    rng = random.Random(seed)
    return [prose[start : start + size] for start in (rng.randrange(0, len(prose) - size) for _ in range(count))]


async def latency(scanner: Scanner, texts: Sequence[str]) -> tuple[float, float]:
    timings = []
    for text in texts:
        started = time.perf_counter()
        await scanner.scan(text, source="benchmark")
        timings.append((time.perf_counter() - started) * 1000)
    return round(percentile(timings, 0.5), 3), round(percentile(timings, 0.99), 3)


def corpus_split(records: list[Record], split: str | None) -> list[Record]:
    if not split:
        return records

    def part(record: Record) -> str:
        return "holdout" if int(hashlib.sha256(record.text.encode()).hexdigest(), 16) % 5 == 0 else "train"

    return [record for record in records if part(record) == split]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    records = corpus_split(read_corpus(args.corpus), args.split)
    sets = {name: read_set(getattr(args, name)) for name in NEVER_TUNED}
    rules = RuleScanner()
    started = time.perf_counter()
    loaded = load_classifier(args.weights, max_windows=args.max_windows)
    classifier = ClassifierScanner(loaded)
    await classifier.scan("load the model before timing anything", source="benchmark")
    load_seconds = round(time.perf_counter() - started, 2)
    counter = CountingJudge()
    judge: JudgeScanner | None = None
    if args.judge_model:
        config = JudgeConfig(
            model=args.judge_model, style=style_for_model(args.judge_model), api_base=args.judge_api_base
        )
        judge = JudgeScanner(config, counter)
    layers: dict[str, Scanner] = {"rules": rules, "classifier": classifier}
    if judge is not None:
        layers["judge"] = judge
    layered = LayeredScanner(rules, classifier, judge)

    short, long = slices(records, 200, LATENCY_SAMPLES), slices(records, 2000, LATENCY_SAMPLES)
    summary: dict[str, Any] = {"layers": {}, **{set_name: {"layers": {}} for set_name in NEVER_TUNED}}
    rules_p50: dict[int, float] = {}
    for name, scanner in [*layers.items(), ("layered", layered)]:
        counts = ", ".join(f"{len(texts)} {set_name}" for set_name, texts in sets.items())
        print(f"scanning {len(records)} corpus, {counts} records with {name}...", file=sys.stderr)
        calls_before, tokens_before = counter.calls, counter.tokens
        began = time.perf_counter()
        scored = await outcomes(scanner, records, by_surface=False)
        result = {**rates(scored), "hard_negatives": hard_negatives(scored)}
        result["scan_seconds"] = round(time.perf_counter() - began, 1)
        calls, tokens = counter.calls - calls_before, counter.tokens - tokens_before
        result["judge_tokens_per_1000"] = round(1000 * tokens / len(records), 1)
        result["judge_calls_per_1000"] = round(1000 * calls / len(records), 1)
        set_results = {}
        for set_name, texts in sets.items():
            scored_set = await outcomes(scanner, texts, by_surface=True)
            set_results[set_name] = {**rates(scored_set), "per_surface": per_surface(scored_set)}
        loaded.clear_cache()  # latency of fresh texts, not of the cache
        for size, texts in ((200, short), (2000, long)):
            p50, p99 = await latency(scanner, texts)
            if name == "rules":
                rules_p50[size] = p50
            result[f"p50_ms_{size}"], result[f"p99_ms_{size}"] = p50, p99
            result[f"p50_ratio_to_rules_{size}"] = round(p50 / rules_p50[size], 1) if rules_p50[size] else None
        if name == "layered":
            summary["layered"] = result
        else:
            summary["layers"][name] = result
        print(f"{name}: {json.dumps(result)}", file=sys.stderr)
        for set_name, set_result in set_results.items():
            if name == "layered":
                summary[set_name]["layered"] = set_result
            else:
                summary[set_name]["layers"][name] = set_result
            print(f"{name} {set_name}: {json.dumps(set_result)}", file=sys.stderr, flush=True)
    summary["split"] = args.split or "all"
    summary["records"] = len(records)
    for set_name, texts in sets.items():
        summary[set_name]["records"] = len(texts)
    summary["load_seconds"] = load_seconds
    summary["thresholds"] = {
        "rules": rules.threshold,
        "classifier": {name: vars(bars) for name, bars in loaded.spec.thresholds.items()},
    }
    summary["model"] = str(args.weights) if args.weights else classifier_module.DEFAULT_SPEC.name
    return summary


def report(summary: dict[str, Any]) -> list[str]:
    """The figures a reader looks for, one line per scanner and set: blocked (flagged) per kind, and latency."""
    lines = ["set / scanner: direct, indirect, jailbreak recall, benign FPR; blocked (blocked or marked)"]
    for set_name, part in (("corpus", summary), *((name, summary[name]) for name in NEVER_TUNED)):
        for name, result in [*part["layers"].items(), ("layered", part["layered"])]:
            cells = [
                f"{result[f'{kind}_recall']} ({result[f'{kind}_flagged']})"
                for kind in ("direct", "indirect", "jailbreak")
            ]
            cells.append(f"{result['benign_fpr']} ({result['benign_flagged']})")
            lines.append(f"{set_name} / {name}: " + ", ".join(cells))
    for set_name in NEVER_TUNED:
        surfaces = summary[set_name]["layered"]["per_surface"]
        cells = [
            f"{surface} {found['benign_fpr']} ({found['benign_flagged']}) of {found['benign_n']}"
            for surface, found in surfaces.items()
            if found["benign_n"]
        ]
        lines.append(f"{set_name} / layered, benign per surface: " + ", ".join(cells))
    hard = summary["layered"]["hard_negatives"]
    lines.append(f"corpus hard negatives (n={hard['n']}), layered: FPR {hard['fpr']} (flagged {hard['flagged']})")
    for name, result in [*summary["layers"].items(), ("layered", summary["layered"])]:
        lines.append(
            f"latency {name}: p50 {result['p50_ms_2000']} ms per 2,000 characters "
            f"({result['p50_ratio_to_rules_2000']} x rules), p50 {result['p50_ms_200']} ms per 200"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--split", choices=["holdout", "train"], help="score only this part of the corpus")
    parser.add_argument(
        "--holdout",
        type=Path,
        default=HOLDOUT,
        help="the never-tuned set (holdout.txt format), or a training file (*.jsonl.gz) to score its calib part",
    )
    parser.add_argument("--fresh", type=Path, default=FRESH, help="the second never-tuned set (same format)")
    parser.add_argument("--blind", type=Path, default=BLIND, help="the third never-tuned set (same format)")
    parser.add_argument("--unseen", type=Path, default=UNSEEN, help="the fourth never-tuned set (same format)")
    parser.add_argument("--later", type=Path, default=LATER, help="the fifth never-tuned set (same format)")
    parser.add_argument("--sixth", type=Path, default=SIXTH, help="the sixth never-tuned set (same format)")
    parser.add_argument("--seventh", type=Path, default=SEVENTH, help="the seventh never-tuned set (same format)")
    parser.add_argument("--weights", type=Path, help="a classifier spec to score instead of the shipped one")
    parser.add_argument("--max-windows", type=int, default=classifier_module.DEFAULT_MAX_WINDOWS)
    parser.add_argument("--judge-model", help="litellm model of an LLM judge to include (costs tokens)")
    parser.add_argument("--judge-api-base", help="the judge's server")
    args = parser.parse_args()
    summary = asyncio.run(run(args))
    print("\n".join(report(summary)))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
