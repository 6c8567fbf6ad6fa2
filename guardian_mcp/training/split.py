"""Which part of the training data a pool item belongs to: `fit` (the network is trained on it) or `calib`
(calibration and bars are set on it). By a hash of the item's text, so the split holds across runs and records:
a record is built from one part's items only, and calibration texts share no authored sentence with fitted ones.
"""

from __future__ import annotations

import zlib

CALIB_MOD = 5


def part_of(item: str) -> str:
    return "calib" if zlib.crc32(item.encode()) % CALIB_MOD == 0 else "fit"
