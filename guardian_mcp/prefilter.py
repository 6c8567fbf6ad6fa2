"""The fast pre-filter: a linear model on hashed phrasing features of each window (a few ms per 2,000 chars).

It never clears a text on its own. Its one job is to rank windows: when a text has more windows than the
encoder reads (`GUARDIAN_CLASSIFIER_MAX_WINDOWS`), the encoder reads the ones the pre-filter finds riskiest
(plus the first), so an instruction buried deep in a long page is still read by the model.

Features: word 1–2-grams and character 4-grams of the lower-cased window, hashed with CRC-32 (stable across
runs) into `DIMENSION` signed buckets and scaled to about unit length.
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

DIMENSION = 1 << 13
_WORD = re.compile(r"\w+")


def features(texts: Sequence[str], dimension: int = DIMENSION) -> np.ndarray:
    out = np.zeros((len(texts), dimension), dtype=np.float32)
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


@dataclass(frozen=True)
class Prefilter:
    coef: np.ndarray
    bias: float

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        return features(texts) @ self.coef + self.bias

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": DIMENSION,
            "bias": round(float(self.bias), 6),
            "coef": [float(f"{v:.4g}") for v in self.coef],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Prefilter:
        coef = np.asarray(data["coef"], dtype=np.float32)
        if int(data["dimension"]) != DIMENSION or coef.shape != (DIMENSION,):
            raise ValueError(f"the pre-filter needs {DIMENSION} coefficients")
        return cls(coef=coef, bias=float(data["bias"]))


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-4, steps: int = 60) -> Prefilter:
    """Logistic regression by full-batch Adam (deterministic), classes weighted to balance."""
    # float32 throughout: a float64 coefficient would make NumPy copy the whole feature matrix at every step.
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float32)
    positives = max(float(y.sum()), 1.0)
    weight = np.where(y > 0, 0.5 / positives, 0.5 / max(len(y) - positives, 1.0)).astype(np.float32)
    coef, bias = np.zeros(x.shape[1], dtype=np.float32), 0.0
    m_coef, v_coef, m_bias, v_bias = np.zeros_like(coef), np.zeros_like(coef), 0.0, 0.0
    rate, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, steps + 1):
        residual = (weight * (0.5 * (1.0 + np.tanh(0.5 * (x @ coef + np.float32(bias)))) - y)).astype(np.float32)
        g_coef, g_bias = x.T @ residual + np.float32(l2) * coef, float(residual.sum())
        m_coef = np.float32(beta1) * m_coef + np.float32(1 - beta1) * g_coef
        v_coef = np.float32(beta2) * v_coef + np.float32(1 - beta2) * g_coef**2
        m_bias = beta1 * m_bias + (1 - beta1) * g_bias
        v_bias = beta2 * v_bias + (1 - beta2) * g_bias**2
        scale = float(rate * np.sqrt(1 - beta2**step) / (1 - beta1**step))
        coef = (coef - np.float32(scale) * m_coef / (np.sqrt(v_coef) + np.float32(1e-8))).astype(np.float32)
        bias = float(bias - scale * m_bias / (np.sqrt(v_bias) + 1e-8))
    return Prefilter(coef=coef.astype(np.float32), bias=bias)
