"""Benchmark: Guardian's detection quality and latency, per layer and layered, at the shipped thresholds.

For each layer (`rules`, `classifier`, and `judge` when `--judge-model` is given) and for the layered scanner
(rules → classifier → judge for the uncertain band), every corpus record is scanned by the real scanner object
and counted as blocked or not: recall per attack kind (direct, indirect, jailbreak) and the false-positive
rate on benign records, each with a 95 % Wilson interval. `--split holdout` scores only the records the
classifier never saw (sha256 of the text mod 5 == 0, the rule in `guardian_mcp/train.py`); without it every
record is scored, including those the classifier was trained on.

Latency: p50/p99 of one scan of 200- and 2,000-character slices of the corpus's benign texts (ordinary prose,
which every layer reads in full), with the classifier's model loaded beforehand. Timings are also given as a
ratio to the rule layer's p50 measured in the same run (these machines are shared and noisy).

Judge cost: `judge_tokens_per_1000` counts the tokens the judge's answers reported per 1,000 scans (0 without
`--judge-model`); `judge_calls_per_1000` says how many scans reach the judge at all (for the layered scanner
without a judge, how many *would*: the uncertain band). `embedded_share` (layered, per kind) is the share of the
texts the rules clear whose windows the classifier's cascade still embedded.

    python benchmarks/guardian.py --corpus ../shared/bench/guardian/corpus.jsonl [--split holdout]
        [--judge-model MODEL --judge-api-base URL]

The last line printed is the JSON summary `{"layered": G, "layers": {name: G}}`.
"""

from __future__ import annotations

import argparse
import asyncio
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

from guardian_mcp.classifier import load_classifier  # noqa: E402
from guardian_mcp.judge import JudgeConfig, Message, style_for_model  # noqa: E402
from guardian_mcp.scanner import ClassifierScanner, JudgeScanner, LayeredScanner, RuleScanner, Scanner  # noqa: E402
from guardian_mcp.train import KINDS, Record, read_corpus  # noqa: E402

LATENCY_SAMPLES = 40


def wilson(hits: int, total: int, z: float = 1.96) -> list[float]:
    """95 % Wilson score interval of a proportion."""
    if total == 0:
        return [0.0, 1.0]
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


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


async def detection(scanner: Scanner, records: Sequence[Record]) -> dict[str, Any]:
    blocked = dict.fromkeys(KINDS, 0)
    totals = dict.fromkeys(KINDS, 0)
    for record in records:
        verdict = await scanner.scan(record.text, source="benchmark")
        totals[record.kind] += 1
        blocked[record.kind] += not verdict.safe
    out: dict[str, Any] = {}
    for kind in KINDS:
        key = "benign_fpr" if kind == "benign" else f"{kind}_recall"
        out[key] = round(blocked[kind] / totals[kind], 4) if totals[kind] else None
        out[f"{key}_ci95"] = wilson(blocked[kind], totals[kind])
        out[f"{kind}_n"] = totals[kind]
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


async def run(args: argparse.Namespace) -> dict[str, Any]:
    records = read_corpus(args.corpus)
    if args.split:
        records = [record for record in records if record.split == args.split]
    rules = RuleScanner()
    classifier = ClassifierScanner(load_classifier())
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

    await classifier.scan("load the model before timing anything")
    short, long = slices(records, 200, LATENCY_SAMPLES), slices(records, 2000, LATENCY_SAMPLES)
    summary: dict[str, Any] = {"layers": {}}
    rules_p50: dict[int, float] = {}
    for name, scanner in [*layers.items(), ("layered", layered)]:
        print(f"scanning {len(records)} records with {name}...", file=sys.stderr, flush=True)
        calls_before, tokens_before = counter.calls, counter.tokens
        started = time.perf_counter()
        result = await detection(scanner, records)
        result["scan_seconds"] = round(time.perf_counter() - started, 1)
        calls, tokens = counter.calls - calls_before, counter.tokens - tokens_before
        result["judge_tokens_per_1000"] = round(1000 * tokens / len(records), 1)
        result["judge_calls_per_1000"] = round(1000 * calls / len(records), 1)
        if name == "layered" and judge is None:
            in_band = 0
            reached = {kind: [0, 0] for kind in KINDS}
            for record in records:
                if (await rules.scan(record.text)).safe:
                    assessment = await classifier.assess(record.text)
                    in_band += classifier.band_low <= assessment.risk < classifier.threshold
                    reached[record.kind][0] += 1
                    reached[record.kind][1] += assessment.embedded
            result["judge_calls_per_1000_if_configured"] = round(1000 * in_band / len(records), 1)
            # The cascade: the share of texts the rules clear whose windows still had to be embedded.
            result["embedded_share"] = {kind: round(e / n, 3) if n else None for kind, (n, e) in reached.items()}
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
        print(f"{name}: {json.dumps(result)}", file=sys.stderr, flush=True)
    summary["split"] = args.split or "all"
    summary["records"] = len(records)
    summary["thresholds"] = {
        "rules": rules.threshold,
        "classifier": classifier.threshold,
        "band_low": classifier.band_low,
    }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--split", choices=["holdout", "train"], help="score only this part of the corpus")
    parser.add_argument("--judge-model", help="litellm model of an LLM judge to include (costs tokens)")
    parser.add_argument("--judge-api-base", help="the judge's server")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
