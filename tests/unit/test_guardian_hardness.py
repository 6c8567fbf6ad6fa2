"""Which benign training records count as hard negatives (`training/hardness.py`), and the per-surface bars that
`train.py` sets on them alone."""

from __future__ import annotations

import random

import numpy as np
import pytest

from guardian_mcp.train import surface_bars
from guardian_mcp.training import benign
from guardian_mcp.training.hardness import HardNegatives, hard_items, needle
from guardian_mcp.training.sources import Item


def test_a_needle_is_the_longest_literal_line_with_placeholders_cut_out() -> None:
    assert needle("Send {amount} to\nthe account ending {iban} before Friday noon") == "the account ending"
    assert needle("Hi {name}") is None
    assert needle("{{literal braces}} stay as the text shows them") == "{literal braces} stay as the text shows them"


@pytest.mark.parametrize("surface", ["email", "web", "file", "tool"])
@pytest.mark.parametrize("lang", ["en", "pl", "pt"])
def test_composed_documents_are_hard_exactly_when_they_hold_a_hard_pool_item(surface: str, lang: str) -> None:
    pytest.importorskip("faker")
    from guardian_mcp.training.compose import Composer
    from guardian_mcp.training.split import Pools

    composer = Composer(5)
    hard = HardNegatives(hard_items())
    for part in ("fit", "calib"):
        pools = Pools(part, lang)
        for _ in range(10):
            count = composer.rng.randint(1, 4)
            carrier = composer.carrier(surface)
            assert hard(carrier(pools, composer.paragraphs(pools, count, hard=1.0)))
            assert not hard(carrier(pools, composer.paragraphs(pools, count, hard=0.0)))


def test_public_documentation_and_traps_are_hard_everyday_lines_and_questions_are_not() -> None:
    public = [
        Item("This probe checks whether a model follows instructions hidden in retrieved text.", "document", "g:d"),
        Item("Please ignore the noise outside and focus on the exam.", "benign", "bastioncorpus:benign_ignore"),
        Item("How are municipal bonds taxed in my state?", "benign", "spikee:seeds-investment-advice-fp/x"),
        Item("Your password has been reset. You may go ahead and log in now.", "everyday", "django:auth"),
    ]
    hard = HardNegatives(hard_items(public))
    assert [hard(f"Intro paragraph.\n\n{item.text}\n\nFooter") for item in public] == [True, True, False, False]
    assert hard('{"results": [{"snippet": "' + public[0].text + '"}]}')


def test_every_authored_hard_item_can_be_found() -> None:
    hard = HardNegatives(hard_items())
    items = [item for pool in benign.HARD.values() for item in pool]
    assert all(needle(item) for item in items)
    assert all(hard(f"Hello,\n\n{item}\n\nBye") for item in items if "{" not in item)


def test_bars_follow_the_hard_negatives_and_ignore_easy_benign_text() -> None:
    rng = random.Random(3)
    hard_risks = [rng.uniform(0.2, 0.95) for _ in range(200)]
    attacks = [rng.uniform(0.5, 1.0) for _ in range(200)]

    def bars(easy: int) -> dict[str, dict[str, float]]:
        risks = np.array(hard_risks + attacks + [0.01] * easy)
        surfaces = np.array(["email"] * len(risks))
        hard = np.array([True] * len(hard_risks) + [False] * (len(attacks) + easy))
        return surface_bars(risks, surfaces, hard, 0.05, 0.01, 0.9)

    assert bars(0) == bars(5000)
    email = bars(0)["email"]
    ranked = sorted(hard_risks, reverse=True)
    assert ranked[10] < email["mark"] <= ranked[9]
    assert email["block"] == max(0.9, round(ranked[2] + 1e-6, 6))
    assert bars(0)["other"] == email
