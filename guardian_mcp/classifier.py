"""The learned layer: a fine-tuned multilingual encoder scoring the windows of a text, read in its context.

A text is cut into windows along its structure (`segment.windows`); each window is read with a prefix naming
the surface it came from and the structure it sits in (`email quoted: …`, `file code: …`). The encoder
(`encoder.py`: the first layers of multilingual-e5-small fine-tuned for this job, int8 ONNX) gives each
window an attack logit; the text's logit is its riskiest window's, so one injected paragraph in a long page is
judged on itself and a long benign article is not blamed for one quoted line's wording elsewhere.

**risk** = sigmoid(a · logit + b), Platt-scaled on the calibration part of the training data (about half
attacks): the estimated probability that the text is an attack *at that base rate*. On real traffic, where
attacks are rare, read it as a score: what it is for is the two bars per surface, both chosen on training
data only, `mark` (about 1 % of benign calibration texts of that surface reach it) and `block` (about 0.2 %,
never below 0.9). `action` is `block`, `mark` or `pass`.

The evidence (the snippet of a flagged text) is the sentence or line of its riskiest window that the model
scores highest. When a text has more windows than `max_windows`, the fast pre-filter (`prefilter.py`) picks which ones the
encoder reads (the first window and the riskiest-looking others); it never clears a text on its own.
Assessments are cached per (content hash, surface).

`guard_model.json` (written by `make guardian-train`) holds the thresholds, the calibration, the pre-filter
and the sha256 of the ONNX file and of the base model file it was trained with; a mismatch is refused with a
sentence naming both hashes, and the layered scanner runs without this layer.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from guardian_mcp.prefilter import Prefilter
from guardian_mcp.segment import SURFACES, Window, clean, windows
from guardian_mcp.verdict import ThreatType

log = logging.getLogger(__name__)

FORMAT = 2
MODEL_FILE = "guard_model.onnx"
SPEC_FILE = "guard_model.json"
DEFAULT_SPEC = Path(__file__).with_name(SPEC_FILE)
DEFAULT_MAX_WINDOWS = 24
CACHE_SIZE = 2048
MAX_EVIDENCE_PARTS = 32
_PARTS = re.compile(r"\n+|(?<=[.!?])\s+")
Action = Literal["block", "mark", "pass"]
_FIX = "retrain with `make guardian-train`, reinstall with `make install`, or set GUARDIAN_CLASSIFIER=off"


class ClassifierError(Exception):
    """The model files are missing, unreadable, or do not belong together."""


def sigmoid(x: float) -> float:
    return float(0.5 * (1.0 + np.tanh(0.5 * x)))


@dataclass(frozen=True)
class Bars:
    mark: float
    block: float

    def action(self, risk: float) -> Action:
        if risk >= self.block:
            return "block"
        return "mark" if risk >= self.mark else "pass"


@dataclass(frozen=True)
class ModelSpec:
    """What `guard_model.json` holds."""

    calibration: tuple[float, float]
    thresholds: Mapping[str, Bars]
    prefilter: Prefilter
    model_sha256: str = ""
    base_sha256: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def bars(self, surface: str) -> Bars:
        return self.thresholds.get(surface) or self.thresholds["other"]

    def risk(self, logit: float) -> float:
        a, b = self.calibration
        return sigmoid(a * logit + b)

    @classmethod
    def placeholder(cls, layers: int, prefilter: Prefilter) -> ModelSpec:
        """A spec before calibration (training scores with it, thresholds unknown)."""
        bars = Bars(0.5, 0.9)
        return cls((1.0, 0.0), dict.fromkeys((*SURFACES, "other"), bars), prefilter, meta={"layers": layers})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelSpec:
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r} is not {FORMAT}")
        thresholds = {name: Bars(float(b["mark"]), float(b["block"])) for name, b in data["thresholds"].items()}
        if "other" not in thresholds:
            raise ValueError("no thresholds for the surface 'other'")
        for name, bars in thresholds.items():
            if not 0.0 < bars.mark <= bars.block < 1.0:
                raise ValueError(f"need 0 < mark <= block < 1 for {name}, found {bars.mark} and {bars.block}")
        return cls(
            calibration=(float(data["calibration"]["a"]), float(data["calibration"]["b"])),
            thresholds=thresholds,
            prefilter=Prefilter.from_json(data["prefilter"]),
            model_sha256=str(data["model"]["sha256"]),
            base_sha256=str(data["base"]["sha256"]),
            meta={key: data[key] for key in ("trained", "model", "base", "data", "settings") if key in data},
        )


def read_spec(path: Path) -> ModelSpec:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ClassifierError(f"Cannot read the classifier spec {path} ({exc.strerror or exc}); {_FIX}.") from None
    except ValueError as exc:
        raise ClassifierError(f"The classifier spec {path} is not valid JSON ({exc}); {_FIX}.") from None
    try:
        return ModelSpec.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ClassifierError(f"The classifier spec {path} is malformed ({exc}); {_FIX}.") from None


@dataclass(frozen=True)
class Assessment:
    """The classifier's view of one text."""

    risk: float
    action: Action
    type: ThreatType
    snippet: str
    windows: int
    read: int
    """Windows the encoder read: fewer than `windows` when the text had more than `max_windows`."""
    surface: str = "other"
    spans: tuple[tuple[int, int, float], ...] = ()
    """(start, end, risk) of every window the encoder read, as offsets into `segment.clean(text)`: lets a caller
    ask what the model thinks of one place in the text (where the rules found something), not only its riskiest."""


class Scorer:
    """What the classifier needs from the encoder: attack and kind logits per window text."""

    def logits(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]: ...


class Classifier:
    def __init__(self, spec: ModelSpec, encoder: Scorer, *, max_windows: int = DEFAULT_MAX_WINDOWS) -> None:
        self.spec = spec
        self.encoder = encoder
        self.max_windows = max_windows
        self._cache: OrderedDict[tuple[str, str], Assessment] = OrderedDict()
        self._lock = threading.Lock()

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def _chosen(self, text: str, found: list[Window]) -> list[Window]:
        if len(found) <= self.max_windows:
            return found
        scores = self.spec.prefilter.scores([text[w.start : w.end] for w in found])
        ranked = [int(i) for i in np.argsort(-scores) if i != 0][: self.max_windows - 1]
        return [found[i] for i in sorted([0, *ranked])]

    def best_logit(self, text: str, surface: str) -> float:
        """The text's logit (its riskiest window's), before calibration; for training."""
        text = clean(text)
        chosen = self._chosen(text, windows(text))
        if not chosen:
            return -20.0
        attack, _ = self.encoder.logits([w.prefix(surface) + text[w.start : w.end] for w in chosen])
        return float(attack.max())

    def assess(self, text: str, surface: str = "other") -> Assessment:
        """Risk, action, type and evidence for `text` read as coming from `surface` (blocking; cached)."""
        return self.assess_many([text], surface)[0]

    def assess_many(self, texts: list[str], surface: str = "other") -> list[Assessment]:
        """`assess` for several texts of one content: every uncached window goes to the encoder in one batch."""
        surface = surface if surface in SURFACES else "other"
        keys = [(hashlib.sha256(t.encode("utf-8", errors="surrogatepass")).hexdigest(), surface) for t in texts]
        results: list[Assessment | None] = [None] * len(texts)
        with self._lock:
            for index, key in enumerate(keys):
                cached = self._cache.get(key)
                if cached is not None:
                    self._cache.move_to_end(key)
                    results[index] = cached
        todo = [index for index, result in enumerate(results) if result is None]
        cleaned = {index: clean(texts[index]) for index in todo}
        chosen = {index: self._chosen(cleaned[index], windows(cleaned[index])) for index in todo}
        totals = {index: len(windows(cleaned[index])) for index in todo}
        batch = [w.prefix(surface) + cleaned[index][w.start : w.end] for index in todo for w in chosen[index]]
        attack, kind = self.encoder.logits(batch)
        offset = 0
        for index in todo:
            count = len(chosen[index])
            results[index] = self._decide(
                cleaned[index], surface, chosen[index], totals[index], attack[offset : offset + count],
                kind[offset : offset + count],
            )  # fmt: skip
            offset += count
        with self._lock:
            for index in todo:
                self._cache[keys[index]] = results[index]  # type: ignore[assignment]
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return [result for result in results if result is not None]

    def _decide(
        self, text: str, surface: str, chosen: list[Window], total: int, attack: np.ndarray, kind: np.ndarray
    ) -> Assessment:
        if not chosen:
            return Assessment(0.0, "pass", ThreatType.PROMPT_INJECTION, "", 0, 0, surface)
        best = int(np.argmax(attack))
        risk = self.spec.risk(float(attack[best]))
        action = self.spec.bars(surface).action(risk)
        threat = ThreatType.JAILBREAK if kind[best] > 0 else ThreatType.PROMPT_INJECTION
        window = chosen[best]
        # Only flagged texts need evidence: then the model reads the window's sentences to find the culprit.
        evidence = self._evidence(text[window.start : window.end], surface) if action != "pass" else ""
        spans = tuple((w.start, w.end, self.spec.risk(float(logit))) for w, logit in zip(chosen, attack, strict=True))
        return Assessment(risk, action, threat, evidence, total, len(chosen), surface, spans)

    def _evidence(self, window_text: str, surface: str) -> str:
        """The line or sentence of the riskiest window that the model itself finds riskiest."""
        parts = [part.strip() for part in _PARTS.split(window_text) if len(part.strip()) > 2]
        if len(parts) <= 1:
            return window_text.strip()
        prefix = f"{surface}: "
        attack, _ = self.encoder.logits([prefix + part for part in parts[:MAX_EVIDENCE_PARTS]])
        return parts[int(np.argmax(attack))]


def check_files(spec: ModelSpec, model_path: Path, base_path: Path, base_sha256: str, model_sha256: str) -> None:
    if spec.base_sha256 != base_sha256:
        raise ClassifierError(
            f"The classifier was trained on the base model file with sha256 {spec.base_sha256}, but the installed "
            f"{base_path} has sha256 {base_sha256}: its scores would mean nothing; {_FIX}."
        )
    if spec.model_sha256 != model_sha256:
        raise ClassifierError(
            f"The classifier spec expects {model_path.name} with sha256 {spec.model_sha256}, found {model_sha256}; "
            f"{_FIX}."
        )


@functools.lru_cache(maxsize=4)
def _encoder(model_path: Path, base_sha256: str, model_sha256: str, threads: int) -> Any:
    """One encoder per process and model file: the ONNX session and the tokeniser are shared by every scanner."""
    from guardian_mcp.encoder import Encoder
    from shared.embeddings.e5_base import BaseModel, BaseModelError
    from shared.embeddings.package_files import file_sha256

    try:
        base = BaseModel(expected_sha256=base_sha256)
    except BaseModelError as exc:
        raise ClassifierError(str(exc)) from None
    spec_like = ModelSpec((1.0, 0.0), {}, Prefilter(np.zeros(0, dtype=np.float32), 0.0), model_sha256, base_sha256)
    check_files(spec_like, model_path, base.path, base_sha256, file_sha256(model_path))
    try:
        encoder = Encoder(model_path, base, threads=threads)
    except Exception as exc:  # onnxruntime raises its own exception types for a corrupt graph
        raise ClassifierError(f"The classifier model {model_path} cannot be loaded ({exc}); {_FIX}.") from None
    # The tokeniser (0.6-0.8 s of CPU) is built by the first scan that reads text with the model, not here: built
    # on a background thread at start it held the GIL for the whole build (`tokenizers` does not release it), so
    # Guardian could not answer the hub's handshake meanwhile and was the last MCP ready by a second or more.
    return encoder


def load_classifier(
    spec_path: Path | None = None, *, max_windows: int = DEFAULT_MAX_WINDOWS, threads: int = 0
) -> Classifier:
    """The shipped classifier (or the one beside `spec_path`), its files checked; `ClassifierError` if unusable."""
    source = spec_path or DEFAULT_SPEC
    spec = read_spec(source)
    model_path = source.with_name(MODEL_FILE)
    if not model_path.is_file():
        raise ClassifierError(f"The classifier model {model_path} is missing; {_FIX}.")
    return Classifier(
        spec, _encoder(model_path.resolve(), spec.base_sha256, spec.model_sha256, threads), max_windows=max_windows
    )
