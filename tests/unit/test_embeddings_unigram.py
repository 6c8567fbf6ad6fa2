"""The plain-Python unigram tokeniser cuts text exactly as `tokenizers`' Unigram model does on the e5 vocabulary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shared.embeddings._unigram import Unigram
from shared.embeddings.e5_base import BaseModel

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
ODD = [
    "Überweise 500 €  auf das Konto",
    "ﾃｽﾄ ＡＢＣ ½",
    "emoji 🦫 and a rare script ꦧꦱꦗꦮ",
    "x" * 60,
    "",
    "   ",
    "query: напомни мне завтра в 8 утра позвонить в банк",
]


def test_every_text_of_the_project_sets_is_cut_as_tokenizers_cuts_it() -> None:
    base = BaseModel()
    reference = base.tokenizer()
    ours = Unigram(base.vocabulary(), base.unk, (base.bos, base.eos, base.pad))
    table = base.normalisation()
    texts = [json.loads(line)["text"] for path in sorted(DATA.glob("*.jsonl")) for line in path.open()]
    assert len(texts) > 400
    for text in [*texts, *ODD]:
        normalised = " ".join(text.translate(table).split())
        assert ours.encode(normalised) == reference.encode(normalised, add_special_tokens=False).ids, text


def test_unknown_characters_in_a_row_are_one_unknown() -> None:
    tokeniser = Unigram([("<unk>", 0.0), ("\u2581", -1.0), ("a", -2.0), ("\u2581a", -1.5)], unk=0)
    assert tokeniser.encode("a") == [3]
    assert tokeniser.encode("a§§a") == [3, 0, 2]
    assert tokeniser.encode("") == []


@pytest.mark.parametrize("text", ["a b", "b a"])
def test_words_are_cut_one_by_one_with_the_space_marker(text: str) -> None:
    tokeniser = Unigram([("<unk>", 0.0), ("\u2581a", -1.0), ("\u2581b", -1.0), ("\u2581a\u2581b", 5.0)], unk=0)
    assert tokeniser.encode(text) == [1 if w == "a" else 2 for w in text.split()]
