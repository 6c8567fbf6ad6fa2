"""Which benign training records are hard negatives: texts that talk about instructions, attacks or security
without addressing the assistant (articles about injection, security alerts, system-prompt drafts, detection
code, recipes and games that say "forget everything", screenplays, "ignore …" shopping lists and preferences).

`train.py` sets each surface's bars on the hard negatives of the calibration part alone. Set on every benign
calibration text, the bars followed whatever easy text the mix held: adding thousands of interface lines that the
model scores near zero (`--everyday`) let the bars fall, and the never-tuned sets' hard negatives, which are what
ordinary mail looks like to this model, were blocked more often.

A record is a hard negative when it holds one of the hard items it was composed from: an authored `benign.HARD`
item (its placeholders filled at composition), or a public item that is documentation (role `document`: prose
about jailbreaks and injection) or one of bastioncorpus's false-positive traps. The record does not say which
items it used (except `quoted.py`'s data files, which carry `"hard": true` and are counted by `train.py`
without a search), so an item is found by its longest literal line (placeholders cut out): a line of 16 characters or
more that ordinary text does not write by chance. Tool outputs are JSON, so their strings are decoded first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from guardian_mcp.training import benign
from guardian_mcp.training.sources import Item

MIN_NEEDLE = 16
PLACEHOLDER = re.compile(r"\{[a-z_]*\}")
TRAPS = "bastioncorpus:"
"""Public benign items from this source are false-positive traps ("ignore", "forget", "act as", role play)."""


def needle(template: str) -> str | None:
    """The longest line of `template`'s literal text (what composition leaves unchanged), if long enough."""
    literal = PLACEHOLDER.sub("\n", template).replace("{{", "{").replace("}}", "}")
    longest = max((line.strip() for line in literal.splitlines()), key=len, default="")
    return longest if len(longest) >= MIN_NEEDLE else None


def strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def haystack(text: str) -> str:
    """The text, and for a JSON document also its decoded strings (escaped quotes and newlines undone)."""
    if text.lstrip().startswith(("{", "[")):
        try:
            return text + "\n" + "\n".join(strings(json.loads(text)))
        except ValueError:
            return text
    return text


def hard_items(public: Sequence[Item] = ()) -> list[str]:
    """The texts that make a record a hard negative: the authored hard pool, and the public documentation and
    false-positive traps among `public`."""
    authored = [item for items in benign.HARD.values() for item in items]
    others = [
        item.text
        for item in public
        if item.role == "document" or (item.role == "benign" and item.source.startswith(TRAPS))
    ]
    return authored + others


class HardNegatives:
    """`hard(text)`: whether a composed text holds one of the hard items."""

    def __init__(self, items: Iterable[str]) -> None:
        self.needles = sorted({found for item in items if (found := needle(item))}, key=len, reverse=True)

    def __call__(self, text: str) -> bool:
        hay = haystack(text)
        return any(found in hay for found in self.needles)
