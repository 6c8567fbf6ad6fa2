"""The words two facts do not share, as the encoder route (memorizer_mcp/attributes.py) reads them. Pure."""

from __future__ import annotations

from memorizer_mcp.attributes import Difference, words


def test_a_script_without_spaces_is_read_as_characters_and_pairs_and_vowel_signs_stay_in_their_word() -> None:
    assert words("阿明住在南京。") == ["阿", "明", "住", "在", "南", "京", "阿明", "明住", "住在", "在南", "南京"]
    assert words("मैं पुणे में रहता हूँ।") == ["मैं", "पुणे", "में", "रहता", "हूँ"]
    assert words("Иван живёт в Омске.") == ["иван", "живёт", "в", "омске"]


def test_facts_opening_with_different_people_are_told_from_an_update_of_one_person() -> None:
    assert Difference.of("Иван живёт в Омске.", "Ольга живёт в Томске.").openings == ("иван", "ольга")
    assert Difference.of("민수는 서울에 산다.", "지영은 부산에 산다.").openings is not None
    # The same person, a change announced before them, or their name inflected: not someone else.
    assert Difference.of("Иван живёт в Омске.", "Иван переехал в Томск.").openings is None
    assert Difference.of("Я працюю бухгалтером.", "Тепер я працюю дизайнером.").openings is None
    assert Difference.of("Моего начальника зовут Олег.", "Мой новый начальник — Виктор.").openings is None
    assert Difference.of("用户住在成都。", "用户搬到了重庆。").openings is None


def test_the_difference_holds_the_words_each_side_lacks_and_whether_only_a_number_changed() -> None:
    moved = Difference.of("Иван живёт в Омске.", "Иван переехал в Томск.")
    assert (moved.old, moved.new) == (("живёт", "омске"), ("переехал", "томск"))
    assert not moved.number_changed
    assert Difference.of("Моему сыну 7 лет.", "Ошибся: моему сыну 8 лет.").number_changed
    assert not Difference.of("Моему сыну 7 лет.", "Моей дочери 8 лет.").number_changed
