"""The NumPy pieces under the local model: erf/GELU, LayerNorm, softmax, the safetensors reader."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from shared.embeddings import EmbeddingError
from shared.embeddings._bert import BertConfig, erf, gelu_, layer_norm, softmax_
from shared.embeddings._safetensors import load_safetensors, parse_header


def _math_erf(values: np.ndarray) -> np.ndarray:
    return np.array([math.erf(float(value)) for value in values.reshape(-1)]).reshape(values.shape)


def test_erf_is_within_half_a_float32_ulp_of_math_erf_across_its_whole_range() -> None:
    grid = np.concatenate([np.linspace(-9, 9, 400_001), [0.0, 1e-30, -1e-30, 3.99999, 4.0, 4.00001]])
    values = grid.astype(np.float32)
    error = np.abs(erf(values).astype(np.float64) - _math_erf(values))
    assert error.max() < 6.5e-8


def test_erf_is_odd_saturates_and_keeps_nan() -> None:
    values = np.array([-np.inf, -50, -4, 0, 4, 50, np.inf, np.nan], dtype=np.float32)
    result = erf(values)
    assert result[:7].tolist() == [-1.0, -1.0, -1.0, 0.0, 1.0, 1.0, 1.0]
    assert np.isnan(result[7])
    sample = np.linspace(0, 5, 1001, dtype=np.float32)
    assert np.array_equal(erf(-sample), -erf(sample))


def test_gelu_is_the_exact_erf_form_not_the_tanh_shortcut() -> None:
    x = np.linspace(-8, 8, 20_000, dtype=np.float32).reshape(100, -1)
    expected = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.reshape(-1).astype(np.float64)])
    got = gelu_(x.copy()).reshape(-1).astype(np.float64)
    assert np.abs(got - expected).max() < 1e-6
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(tanh_form.reshape(-1) - expected).max() > 1e-4  # the shortcut would have been detectable


def test_gelu_works_in_place_on_its_argument() -> None:
    x = np.array([[-1.0, 0.0, 2.0]], dtype=np.float32)
    assert gelu_(x) is x
    assert x[0, 1] == 0.0 and x[0, 2] == pytest.approx(2 * 0.5 * (1 + math.erf(2 / math.sqrt(2))), rel=1e-6)


def test_layer_norm_matches_the_textbook_formula_with_biased_variance() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 5, 8)).astype(np.float32) * 4 + 2
    gain, bias = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    x64 = x.astype(np.float64)
    expected = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-12) * gain + bias
    assert np.allclose(layer_norm(x, gain, bias, 1e-12), expected, atol=1e-5)


def test_softmax_survives_the_padding_bias_and_sums_to_one() -> None:
    scores = np.array([[3.0, 1.0, np.finfo(np.float32).min]], dtype=np.float32)
    probabilities = softmax_(scores)
    assert probabilities[0, 2] == 0.0 and probabilities.sum() == pytest.approx(1.0)
    assert probabilities[0, 0] == pytest.approx(math.exp(2) / (math.exp(2) + 1), rel=1e-6)


def test_a_config_that_is_not_bert_with_gelu_is_refused() -> None:
    with pytest.raises(EmbeddingError, match="exact GELU"):
        BertConfig.from_json({"model_type": "bert", "hidden_act": "gelu_new"}, "c.json")
    with pytest.raises(EmbeddingError, match="hidden_size"):
        BertConfig.from_json({"model_type": "bert"}, "c.json")


# --- safetensors ---------------------------------------------------------------------------------------------------
def _write_safetensors(
    path: Path, tensors: dict[str, np.ndarray], *, header_patch: dict[str, object] | None = None
) -> None:
    names = {np.dtype("<f4"): "F32", np.dtype("<i8"): "I64", np.dtype("<f2"): "F16"}
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {
            "dtype": names[array.dtype],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    header.update(header_patch or {})
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)  # the format pads the header to 8 bytes with spaces
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))


def test_safetensors_round_trip_gives_read_only_views_with_dtype_and_shape(tmp_path: Path) -> None:
    path = tmp_path / "t.safetensors"
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    ids = np.array([[0, 1, 2]], dtype=np.int64)
    half = np.array([0.5, -2.0], dtype=np.float16)
    _write_safetensors(path, {"w": weights, "ids": ids, "h": half})
    loaded = load_safetensors(path)
    assert set(loaded) == {"w", "ids", "h"}
    assert np.array_equal(loaded["w"], weights) and loaded["w"].dtype == np.float32
    assert np.array_equal(loaded["ids"], ids) and np.array_equal(loaded["h"], half)
    assert not loaded["w"].flags.writeable


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"w": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 40]}}, "has 40 bytes but shape"),
        ({"w": {"dtype": "F32", "shape": [3, 4], "data_offsets": [0, 4800]}}, "points outside the file"),
        ({"w": {"dtype": "BF16", "shape": [3, 4], "data_offsets": [0, 24]}}, "unsupported"),
        ({"w": {"shape": [3, 4]}}, "unsupported"),
        ({"w": {"dtype": "F32", "shape": [-1, 4], "data_offsets": [0, 48]}}, "points outside"),
    ],
)
def test_a_damaged_safetensors_header_is_refused_naming_the_tensor(
    tmp_path: Path, patch: dict[str, object], message: str
) -> None:
    path = tmp_path / "bad.safetensors"
    _write_safetensors(path, {"w": np.zeros((3, 4), dtype=np.float32)}, header_patch=patch)
    with pytest.raises(EmbeddingError, match=message) as caught:
        load_safetensors(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"\x01\x02", "shorter than"),
        (struct.pack("<Q", 10**12) + b"{}", "impossible"),
        (struct.pack("<Q", 4) + b"nope", "not JSON"),
        (struct.pack("<Q", 2) + b"[]", "not a JSON object"),
    ],
)
def test_a_file_that_is_not_safetensors_is_refused(blob: bytes, message: str) -> None:
    with pytest.raises(EmbeddingError, match=message):
        parse_header(blob, len(blob), "x.safetensors")


def test_a_missing_or_tiny_weights_file_is_an_embedding_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="Cannot read"):
        load_safetensors(tmp_path / "absent.safetensors")
    (tmp_path / "tiny.safetensors").write_bytes(b"abc")
    with pytest.raises(EmbeddingError, match="only 3 bytes"):
        load_safetensors(tmp_path / "tiny.safetensors")
