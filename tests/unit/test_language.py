"""`shared.language`: the chance that a text is in one of some languages (py3langid's bundled model)."""

from __future__ import annotations

import pytest

from shared.language import share_in

USE = frozenset({"ar", "zh", "nl", "en", "fr", "de", "it", "ja", "ko", "pl", "pt", "es", "th", "tr", "ru"})


@pytest.mark.parametrize(
    ("text", "in_them"),
    [
        ("Could you move the dentist appointment to Friday afternoon, please?", True),
        ("Erinnere mich bitte jeden Montag um acht an den Wochenbericht.", True),
        ("明日の午後三時に歯医者の予約を入れてください。", True),
        ("Přesuň prosím schůzku se zubařem na pátek odpoledne.", False),
        ("Μπορείς να μετακινήσεις το ραντεβού με τον οδοντίατρο την Παρασκευή;", False),
        ("Nhắc tôi gọi cho mẹ lúc tám giờ tối nay nhé.", False),
    ],
)
def test_a_sentence_is_almost_surely_in_the_languages_or_almost_surely_not(text: str, in_them: bool) -> None:
    share = share_in(text, USE)
    assert share is not None
    assert share > 0.9 if in_them else share < 0.1


def test_a_text_with_nothing_to_go_on_has_no_share_and_a_long_one_is_read_from_its_opening() -> None:
    assert share_in("", USE) is None
    assert share_in("12345 !!!", USE) is None
    long = "Please move the meeting to Friday. " * 5_000  # 175,000 characters: only the opening is read
    assert share_in(long, USE) == pytest.approx(share_in(long[:2_000], USE))
