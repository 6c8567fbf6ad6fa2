"""Train the classifier layer: `python -m guardian_mcp.train --corpus PATH [--out FILE] [--cache FILE]`.

The corpus is a JSONL file of `{"text", "label": "injection"|"benign", "kind", "source"}` records (the one in
`shared/bench/guardian/`); it is read, never copied. Steps:

1. **Split by hash, fixed**: a record whose text's sha256, read as a number, is 0 mod 5 is *holdout* (about a
   fifth); the rest is *train*. Nothing below looks at holdout except the final report of its metrics.
2. **Windows**: every text is cut as the scanner cuts it (`windows.py`) and each window embedded with the local
   all-MiniLM-L6-v2.
3. **Multiple-instance logistic regression** (NumPy, full-batch Adam, L2) on each window's embedding and
   hashed phrasing features: a benign text's windows are all benign;
   an attack's label goes to its riskiest window, picked again after each round, since most windows of a long
   e-mail with one injected paragraph are ordinary e-mail.
4. **Piece head**: the same multiple-instance fit on the hashed phrasing of each sentence-like piece (an
   instruction of one sentence slipped into an e-mail is a sliver of its window but the whole of its piece).
5. **Calibration and threshold by 5-fold cross-validation inside train**: out-of-fold highest window and piece
   logits get one Platt scaling each; a text's risk is the higher of the two; these risks give the blocking
   threshold (the lowest risk at which at most `--target-fpr` of benign train texts are
   blocked) and the uncertain band's lower edge (`--band-fpr`).
6. The final heads are fitted on all of train and written with the model hash, corpus version, split rule, the
   range of the embedding part of the window logit over the train windows (for the scanner's cascade) and the
   metrics (cross-validated on train, and on holdout at the chosen threshold).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from guardian_mcp.classifier import (
    DEFAULT_WEIGHTS,
    EMBEDDING_DIMENSION,
    ClassifierWeights,
    LinearHead,
    features,
    piece_features,
    sigmoid,
    text_pieces,
)
from guardian_mcp.windows import DEFAULT_OVERLAP, DEFAULT_SIZE, window_spans

HOLDOUT_MOD = 5
FOLDS = 5
KINDS = ("direct", "indirect", "jailbreak", "benign")
SPLIT_RULE = "holdout when int(sha256(text utf-8), 16) % 5 == 0; train otherwise"
Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Record:
    text: str
    kind: str
    attack: bool
    digest: int

    @property
    def split(self) -> str:
        return "holdout" if self.digest % HOLDOUT_MOD == 0 else "train"

    @property
    def fold(self) -> int:
        """Cross-validation fold inside train, independent of the holdout rule."""
        return (self.digest // HOLDOUT_MOD) % FOLDS


def text_digest(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def read_corpus(path: Path) -> list[Record]:
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        data = json.loads(line)
        kind = data.get("kind") or ("benign" if data["label"] == "benign" else "direct")
        if kind not in KINDS:
            raise ValueError(f"{path}:{number}: unknown kind {kind!r}")
        records.append(Record(data["text"], kind, data["label"] != "benign", text_digest(data["text"])))
    return records


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- pure fitting --------------------------------------------------------------------------------------------


def fit_logistic(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None, l2: float = 1.0, steps: int = 25
) -> LinearHead:
    """L2-regularised logistic regression by Newton's method (the bias is not penalised)."""
    n, d = x.shape
    design = np.hstack([np.asarray(x, dtype=np.float64), np.ones((n, 1))])
    sample = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    theta = np.zeros(d + 1)
    for _ in range(steps):
        p = sigmoid(design @ theta)
        gradient = design.T @ (sample * (p - y)) + penalty * theta
        curvature = sample * p * (1 - p)
        hessian = (design * curvature[:, None]).T @ design + np.diag(penalty + 1e-9)
        delta = np.linalg.solve(hessian, gradient)
        theta -= delta
        if np.max(np.abs(delta)) < 1e-7:
            break
    return LinearHead(coef=theta[:-1], bias=float(theta[-1]))


def fit_logistic_adam(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None, l2: float = 1e-4, steps: int = 400
) -> LinearHead:
    """The same model for thousands of features: full-batch Adam on the mean weighted loss, from zero.

    Deterministic (no sampling), and fast where Newton's method would invert a matrix of features squared.
    """
    n, d = x.shape
    sample = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    sample = sample / sample.sum()
    coef, bias = np.zeros(d), 0.0
    m_coef, v_coef, m_bias, v_bias = np.zeros(d), np.zeros(d), 0.0, 0.0
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, steps + 1):
        residual = sample * (sigmoid(x @ coef + bias) - y)
        g_coef, g_bias = x.T @ residual + l2 * coef, float(residual.sum())
        m_coef = beta1 * m_coef + (1 - beta1) * g_coef
        v_coef = beta2 * v_coef + (1 - beta2) * g_coef**2
        m_bias = beta1 * m_bias + (1 - beta1) * g_bias
        v_bias = beta2 * v_bias + (1 - beta2) * g_bias**2
        scale = rate * np.sqrt(1 - beta2**step) / (1 - beta1**step)
        coef -= scale * m_coef / (np.sqrt(v_coef) + 1e-8)
        bias -= scale * m_bias / (np.sqrt(v_bias) + 1e-8)
    return LinearHead(coef=coef, bias=bias)


def fit_platt(logits: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """`(a, b)` such that sigmoid(a · logit + b) is calibrated on these labels."""
    head = fit_logistic(np.asarray(logits, dtype=np.float64)[:, None], np.asarray(y, dtype=np.float64), l2=1e-6)
    return float(head.coef[0]), head.bias


def threshold_for_fpr(benign_risks: np.ndarray, target_fpr: float) -> float:
    """The lowest risk threshold (blocking at risk ≥ t) that blocks at most `target_fpr` of these benign texts."""
    ordered = np.sort(np.asarray(benign_risks, dtype=np.float64))[::-1]
    allowed = int(np.floor(target_fpr * len(ordered)))
    if allowed >= len(ordered):
        return float(ordered[-1])
    # Just above the (allowed+1)-th highest benign risk: that text and all below it pass.
    return float(min(np.nextafter(ordered[allowed], 1.0), 1.0 - 1e-9))


def weighted_balance(labels: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Weights giving each text the same total weight, and both classes the same total weight."""
    _, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    weight = 1.0 / counts[inverse]
    for value in (0.0, 1.0):
        chosen = labels == value
        if chosen.any():
            weight[chosen] *= len(np.unique(groups)) / 2 / weight[chosen].sum()
    return weight


@dataclass(frozen=True)
class Windows:
    """Every window of a set of texts: vectors, and for each the index of its text."""

    vectors: np.ndarray
    owner: np.ndarray


def fit_heads(
    windows: Windows, records: Sequence[Record], chosen: np.ndarray, l2: float, rounds: int = 3
) -> tuple[LinearHead, LinearHead]:
    """The attack head (multiple-instance rounds) and the kind head, on the texts with indexes in `chosen`."""
    keep = np.isin(windows.owner, chosen)
    vectors, owner = windows.vectors[keep], windows.owner[keep]
    attack = np.array([records[i].attack for i in owner], dtype=np.float64)
    # Round 0: every window of an attack counts as an attack; later rounds keep only each attack's riskiest.
    use = np.ones(len(owner), dtype=bool)
    head = LinearHead(np.zeros(vectors.shape[1]), 0.0)
    for _ in range(rounds):
        weight = weighted_balance(attack[use], owner[use])
        head = fit_logistic_adam(vectors[use], attack[use], weight, l2=l2)
        logits = head.logits(vectors)
        use = attack == 0
        for text in np.unique(owner[attack == 1]):
            rows = np.flatnonzero(owner == text)
            use[rows[np.argmax(logits[rows])]] = True
    positives = use & (attack == 1)
    jailbreak = np.array([records[i].kind == "jailbreak" for i in owner[positives]], dtype=np.float64)
    kind = fit_logistic_adam(vectors[positives], jailbreak, weighted_balance(jailbreak, owner[positives]), l2=l2)
    return head, kind


def fit_piece_head(
    pieces: Windows, records: Sequence[Record], chosen: np.ndarray, l2: float, rounds: int = 3
) -> LinearHead:
    """The piece head, multiple-instance like the attack head: an attack's label goes to its riskiest piece."""
    keep = np.isin(pieces.owner, chosen)
    vectors, owner = pieces.vectors[keep], pieces.owner[keep]
    attack = np.array([records[i].attack for i in owner], dtype=np.float64)
    use = np.ones(len(owner), dtype=bool)
    head = LinearHead(np.zeros(vectors.shape[1]), 0.0)
    for _ in range(rounds):
        head = fit_logistic_adam(vectors[use], attack[use], weighted_balance(attack[use], owner[use]), l2=l2)
        logits = head.logits(vectors)
        order = np.lexsort((-logits, owner))
        first = np.ones(len(order), dtype=bool)
        first[1:] = owner[order][1:] != owner[order][:-1]
        best = order[first]
        use = attack == 0
        use[best[attack[best] == 1]] = True
    return head


def piece_windows(records: Sequence[Record]) -> Windows:
    """Every sentence-like piece of every text, as the scanner cuts them, with its hashed phrasing features."""
    parts: list[str] = []
    owner: list[int] = []
    for index, record in enumerate(records):
        found = text_pieces(record.text)
        parts.extend(found)
        owner.extend([index] * len(found))
    return Windows(piece_features(parts), np.array(owner))


def combined_risk(
    window: np.ndarray, piece: np.ndarray, calibration: tuple[float, float], piece_calibration: tuple[float, float]
) -> np.ndarray:
    """The text risks the classifier gives: the higher of the Platt-scaled window and piece risks."""
    return np.maximum(
        sigmoid(calibration[0] * window + calibration[1]), sigmoid(piece_calibration[0] * piece + piece_calibration[1])
    )


def cascade_margin(
    risk: np.ndarray,
    phrasing: np.ndarray,
    piece: np.ndarray,
    calibration: tuple[float, float],
    piece_calibration: tuple[float, float],
    band_low: float,
) -> float:
    """The smallest margin for the scanner's cascade that changes no decision on these (cross-validated) texts.

    Every text whose risk reaches the band, and whose piece risk alone does not, must still be embedded: its
    phrasing-only window logit plus the margin must reach the window logit at which the band starts.
    """
    a, b = calibration
    if a <= 0:
        return float("inf")
    start = (np.log(band_low / (1 - band_low)) - b) / a
    piece_risk = sigmoid(piece_calibration[0] * piece + piece_calibration[1])
    needed = (risk >= band_low) & (piece_risk < band_low)
    if not needed.any():
        return 0.0
    return float(np.nextafter(max(0.0, float((start - phrasing[needed]).max())), np.inf))


def text_max(values: np.ndarray, owner: np.ndarray, texts: np.ndarray) -> np.ndarray:
    return np.array([values[owner == text].max() for text in texts])


# --- metrics ---------------------------------------------------------------------------------------------------


def rates(records: Sequence[Record], indexes: np.ndarray, risks: np.ndarray, threshold: float) -> dict[str, float]:
    blocked = risks >= threshold
    out: dict[str, float] = {}
    for kind in KINDS:
        mask = np.array([records[i].kind == kind for i in indexes])
        if mask.any():
            key = "benign_fpr" if kind == "benign" else f"{kind}_recall"
            out[key] = round(float(blocked[mask].mean()), 4)
            out[f"{kind}_n"] = int(mask.sum())
    return out


# --- embedding with an optional on-disk cache (for reruns; never inside the repository) -------------------------


def embed_windows(records: Sequence[Record], embed: Embed, cache: Path | None, log: Callable[[str], None]) -> Windows:
    texts: list[str] = []
    owner: list[int] = []
    for index, record in enumerate(records):
        for start, end in window_spans(record.text, DEFAULT_SIZE, DEFAULT_OVERLAP):
            texts.append(record.text[start:end])
            owner.append(index)
    keys = [hashlib.sha256(text.encode("utf-8")).hexdigest()[:32] for text in texts]
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.exists():
        with np.load(cache) as stored:
            known = dict(zip(stored["keys"].tolist(), stored["vectors"], strict=True))
    missing = sorted({key: text for key, text in zip(keys, texts, strict=True) if key not in known}.items())
    log(f"{len(texts)} windows from {len(records)} texts; {len(missing)} to embed")
    started = time.perf_counter()
    for start in range(0, len(missing), 64):
        batch = missing[start : start + 64]
        for (key, _), vector in zip(batch, embed([text for _, text in batch]), strict=True):
            known[key] = vector
        log(f"  embedded {min(start + 64, len(missing))}/{len(missing)} ({time.perf_counter() - started:.0f} s)")
    if cache is not None and missing:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, keys=np.array(list(known)), vectors=np.stack(list(known.values())))
    return Windows(features(np.stack([known[key] for key in keys]), texts), np.array(owner))


# --- the whole run --------------------------------------------------------------------------------------------


def train(
    records: Sequence[Record],
    windows: Windows,
    pieces: Windows,
    *,
    target_fpr: float,
    band_fpr: float,
    l2_grid: Sequence[float],
    log: Callable[[str], None],
) -> tuple[ClassifierWeights, dict[str, object]]:
    train_idx = np.array([i for i, r in enumerate(records) if r.split == "train"])
    holdout_idx = np.array([i for i, r in enumerate(records) if r.split == "holdout"])
    labels = np.array([r.attack for r in records], dtype=np.float64)
    folds = np.array([records[i].fold for i in train_idx])

    best: (
        tuple[float, float, np.ndarray, tuple[tuple[float, float], tuple[float, float]], np.ndarray, np.ndarray] | None
    ) = None
    for l2 in l2_grid:
        oof_window = np.zeros(len(train_idx))
        oof_piece = np.zeros(len(train_idx))
        oof_phrasing = np.zeros(len(train_idx))
        for fold in range(FOLDS):
            fitted = train_idx[folds != fold]
            held = train_idx[folds == fold]
            head, _ = fit_heads(windows, records, fitted, l2)
            oof_window[folds == fold] = text_max(head.logits(windows.vectors), windows.owner, held)
            phrasing = windows.vectors[:, EMBEDDING_DIMENSION:] @ head.coef[EMBEDDING_DIMENSION:] + head.bias
            oof_phrasing[folds == fold] = text_max(phrasing, windows.owner, held)
            piece = fit_piece_head(pieces, records, fitted, l2)
            oof_piece[folds == fold] = text_max(piece.logits(pieces.vectors), pieces.owner, held)
        calibrations = (fit_platt(oof_window, labels[train_idx]), fit_platt(oof_piece, labels[train_idx]))
        risk = combined_risk(oof_window, oof_piece, *calibrations)
        threshold = threshold_for_fpr(risk[labels[train_idx] == 0], target_fpr)
        recall = float((risk[labels[train_idx] == 1] >= threshold).mean())
        log(f"l2={l2}: cross-validated attack recall {recall:.4f} at benign FPR <= {target_fpr}")
        if best is None or recall > best[1]:
            best = (l2, recall, risk, calibrations, oof_phrasing, oof_piece)
    assert best is not None
    l2, _, oof_risk, (calibration, piece_calibration), oof_phrasing, oof_piece = best
    benign_oof = oof_risk[labels[train_idx] == 0]
    threshold = threshold_for_fpr(benign_oof, target_fpr)
    band_low = min(threshold, threshold_for_fpr(benign_oof, band_fpr))
    attack, kind = fit_heads(windows, records, train_idx, l2)
    piece = fit_piece_head(pieces, records, train_idx, l2)
    margin = cascade_margin(oof_risk, oof_phrasing, oof_piece, calibration, piece_calibration, band_low)
    weights = ClassifierWeights(
        model="all-MiniLM-L6-v2",
        model_sha256="",
        dimension=windows.vectors.shape[1],
        attack=attack,
        kind=kind,
        calibration=calibration,
        threshold=threshold,
        band_low=band_low,
        piece=piece,
        piece_calibration=piece_calibration,
        cascade_margin=margin,
    )
    holdout_risk = combined_risk(
        text_max(attack.logits(windows.vectors), windows.owner, holdout_idx),
        text_max(piece.logits(pieces.vectors), pieces.owner, holdout_idx),
        calibration,
        piece_calibration,
    )
    metrics: dict[str, object] = {
        "l2": l2,
        "target_benign_fpr": target_fpr,
        "band_benign_fpr": band_fpr,
        "train_cross_validated": rates(records, train_idx, oof_risk, threshold),
        "holdout": rates(records, holdout_idx, holdout_risk, threshold),
        "holdout_in_band": round(float(((holdout_risk >= band_low) & (holdout_risk < threshold)).mean()), 4),
        "owner_block_benign_fpr": {
            f"{t:.2f}": {
                "train_cross_validated": round(float((benign_oof >= t).mean()), 4),
                "holdout": round(float((holdout_risk[labels[holdout_idx] == 0] >= t).mean()), 4),
            }
            for t in (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)
        },
    }
    return weights, metrics


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m guardian_mcp.train", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="the labelled JSONL corpus (read only)")
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS, help="weights file to write")
    parser.add_argument("--cache", type=Path, help="npz file caching window embeddings between runs")
    parser.add_argument("--target-fpr", type=float, default=0.015, help="benign false-positive rate to block at")
    parser.add_argument("--band-fpr", type=float, default=0.05, help="benign rate sent to the judge (band)")
    parser.add_argument("--l2", type=float, nargs="+", default=[1e-4], help="L2 strengths to try")
    args = parser.parse_args(argv)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    from shared.embeddings.local import MODEL_FILES, LocalEmbedder

    records = read_corpus(args.corpus)
    windows = embed_windows(records, LocalEmbedder().embed_blocking, args.cache, log)
    pieces = piece_windows(records)
    log(f"{len(pieces.owner)} pieces")
    weights, metrics = train(
        records, windows, pieces, target_fpr=args.target_fpr, band_fpr=args.band_fpr, l2_grid=args.l2, log=log
    )
    counts = {split: sum(r.split == split for r in records) for split in ("train", "holdout")}
    weights = ClassifierWeights(
        **{
            **weights.__dict__,
            "model_sha256": MODEL_FILES["model.safetensors"],
            "meta": {
                "corpus": {
                    "file": args.corpus.name,
                    "sha256": file_sha256(args.corpus),
                    "records": len(records),
                    **counts,
                },
                "split": SPLIT_RULE,
                "trained": datetime.now(UTC).strftime("%Y-%m-%d"),
                "metrics": metrics,
            },
        }
    )
    args.out.write_text(json.dumps(weights.to_json(), indent=1) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")
    print(json.dumps(metrics))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
