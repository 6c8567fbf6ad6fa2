"""Evaluation sets as records: the shared corpus (JSONL), the never-tuned sets (`holdout.txt`, `fresh.txt`,
`blind.txt`, `unseen.txt`, `later.txt`, `sixth.txt`, `seventh.txt`) and, for checking a change before the never-tuned sets are scored, the training data's
`calib` part (`read_set`).

Pure parsing, no model: used by `benchmarks/guardian.py` and its tests.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

KINDS = ("direct", "indirect", "jailbreak", "benign")
HOLDOUT = Path(__file__).resolve().parents[2] / "datasets" / "guardian" / "holdout.txt"
FRESH = HOLDOUT.with_name("fresh.txt")
"""The second never-tuned set, written after the shipped model and its bars were fixed."""
BLIND = HOLDOUT.with_name("blind.txt")
"""The third never-tuned set, written in another style and committed before the hard-negative bars were set."""
UNSEEN = HOLDOUT.with_name("unseen.txt")
"""The fourth never-tuned set, written in a fourth style and committed before a calibration change was judged on it."""
LATER = HOLDOUT.with_name("later.txt")
"""The fifth never-tuned set, written by another author before the third retraining candidate was scored."""
SIXTH = HOLDOUT.with_name("sixth.txt")
"""The sixth never-tuned set, written by another author before the fourth round's shipped model was scored on it."""
SEVENTH = HOLDOUT.with_name("seventh.txt")
"""The seventh never-tuned set, written by another author before the fifth round's candidate was trained."""


@dataclass(frozen=True)
class Record:
    text: str
    kind: str
    surface: str = "other"
    lang: str = ""
    source: str = ""
    """Where a corpus record comes from (its `source` field); empty for the held-out sets."""

    @property
    def attack(self) -> bool:
        return self.kind != "benign"


def read_corpus(path: Path) -> list[Record]:
    """`{"text", "label", "kind", "source"?}` lines; the surface is unknown (`other`)."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        data = json.loads(line)
        kind = data.get("kind") or ("benign" if data["label"] == "benign" else "direct")
        if kind not in KINDS:
            raise ValueError(f"{path}:{number}: unknown kind {kind!r}")
        records.append(Record(data["text"], kind, source=str(data.get("source", ""))))
    return records


def parse_holdout(text: str) -> list[Record]:
    """Records of the holdout format: `### kind surface lang` starts one; its text runs to the next header."""
    records: list[Record] = []
    header: list[str] | None = None
    lines: list[str] = []

    def close() -> None:
        if header is not None:
            body = "\n".join(lines).strip()
            if not body:
                raise ValueError(f"empty record after '### {' '.join(header)}'")
            records.append(Record(body, header[0], header[1], header[2]))

    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("### "):
            close()
            header = line[4:].split()
            if len(header) != 3 or header[0] not in KINDS:
                raise ValueError(f"line {number}: expected '### kind surface lang', found {line!r}")
            lines = []
        elif header is not None:
            lines.append(line)
    close()
    return records


def read_holdout(path: Path = HOLDOUT) -> list[Record]:
    return parse_holdout(path.read_text(encoding="utf-8"))


def read_calibration(path: Path) -> list[Record]:
    """The `calib` part of training records (`train.jsonl.gz`): the development set, where the bars were set."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [Record(row["text"], row["kind"], row["surface"], row["lang"]) for row in rows if row["part"] == "calib"]


def read_set(path: Path) -> list[Record]:
    """A set in the holdout format, or the calibration part of a training file (`*.jsonl.gz`)."""
    return read_calibration(path) if path.name.endswith(".jsonl.gz") else read_holdout(path)
