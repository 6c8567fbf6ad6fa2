"""shared.text: every cut text stays within its limit, marker included."""

from __future__ import annotations

import pytest

from shared.text import ELIDED, clip, shorten


def test_a_text_that_fits_is_returned_as_it_is() -> None:
    assert shorten("short\ntext ", 20) == "short\ntext "
    assert clip("a  b\n\tc", 20) == "a b c"


@pytest.mark.parametrize("marker", ["…", "...", ELIDED])
def test_a_long_text_is_cut_to_the_limit_with_its_marker(marker: str) -> None:
    cut = shorten("word " * 100_000, 80, marker)
    assert len(cut) <= 80 and cut.endswith(marker)
    assert cut.startswith("word word") and not cut[: -len(marker)].endswith(" ")


def test_clip_makes_one_line_before_cutting() -> None:
    line = clip("first line\n" * 1_000, 40)
    assert "\n" not in line and len(line) <= 40 and line.endswith("…")


def test_a_limit_no_longer_than_the_marker_cuts_without_it() -> None:
    assert shorten("abcdef", 3, "...") == "abc"
