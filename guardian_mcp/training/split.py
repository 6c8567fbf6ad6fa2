"""Which part of the training data a pool item belongs to: `fit` (the network is trained on it) or `calib`
(calibration and bars are set on it). By a hash of the item's text, so the split holds across runs and records:
a record is built from one part's items only, and calibration texts share no authored sentence with fitted ones.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

CALIB_MOD = 5


def part_of(item: str) -> str:
    return "calib" if zlib.crc32(item.encode()) % CALIB_MOD == 0 else "fit"


@dataclass
class Pools:
    """The pool items of one part (fit or calib) for one language, English as fallback when a pool is empty."""

    part: str
    lang: str

    def pick(self, rng: random.Random, pool: dict[str, list[str]], fallback: bool = True) -> str:
        items = [item for item in pool.get(self.lang, []) if part_of(item) == self.part]
        if not items:
            items = pool.get(self.lang, [])
        if not items and fallback:
            items = [item for item in pool["en"] if part_of(item) == self.part] or pool["en"]
        return rng.choice(items)

    def pick_list(self, rng: random.Random, items: Sequence[str]) -> str:
        mine = [item for item in items if part_of(item) == self.part]
        return rng.choice(mine or list(items))
