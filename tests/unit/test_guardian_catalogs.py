"""Guardian's everyday training text: lines read from gettext catalogs inside a wheel, and the benign records
composed from them."""

from __future__ import annotations

import re

import pytest

from guardian_mcp.training import catalogs
from guardian_mcp.training.sources import Item
from tests.fakes.wheel import wheel

CATALOG = r"""
msgid ""
msgstr ""
"Language: de\n"
"Content-Type: text/plain; charset=UTF-8\n"

msgid "Your password has been reset."
msgstr "Ihr Passwort wurde zurückgesetzt."

#, python-format
msgid "In case you forgot, your username is %(username)s."
msgstr "Falls Sie ihn vergessen haben: Ihr Benutzername lautet %(username)s."

#, python-format
msgid "Ensure this value has at most %(limit_value)d characters."
msgstr "Dieser Wert darf höchstens %(limit_value)d Zeichen haben."

#, python-format
msgid "The %(model)s with ID “%(key)s” does not exist."
msgstr "%(model)s mit ID „%(key)s“ existiert nicht."

msgid "You don't have <b>permission</b> to view or edit anything."
msgstr "Sie haben keine <b>Berechtigung</b>, irgendetwas anzusehen oder zu ändern."

msgid "Yes"
msgstr "Ja"

#, fuzzy
msgid "This line's translation is only a guess."
msgstr "Diese Übersetzung ist nur geraten worden."

msgid "Not translated in this catalog yet."
msgstr ""
"""


def test_catalog_lines_are_read_filled_and_tagged_by_language() -> None:
    archive = wheel({"django/contrib/auth/locale/de_AT/LC_MESSAGES/django.po": CATALOG, "django/x.py": ""})
    items = list(catalogs.django(archive))
    texts = [(item.text, item.lang) for item in items]
    assert texts == [
        ("Your password has been reset.", "en"),
        ("Ihr Passwort wurde zurückgesetzt.", "de"),
        ("In case you forgot, your username is anna.nowak.", "en"),
        ("Falls Sie ihn vergessen haben: Ihr Benutzername lautet anna.nowak.", "de"),
        ("Ensure this value has at most 3 characters.", "en"),
        ("Dieser Wert darf höchstens 3 Zeichen haben.", "de"),
        ("You don't have permission to view or edit anything.", "en"),
        ("Sie haben keine Berechtigung, irgendetwas anzusehen oder zu ändern.", "de"),
    ]  # no placeholder without a plain value, no label of one word, no fuzzy or missing translation
    assert {item.role for item in items} == {"everyday"}
    assert items[1].source == "django:django/contrib/auth/de_AT"
    assert items[0].source == "django:django/contrib/auth"


def test_percent_signs_in_plain_lines_are_text_not_placeholders() -> None:
    assert catalogs.filled("Save 50% des frais", formatted=False) == "Save 50% des frais"
    assert catalogs.filled("Save 50% des frais", formatted=True) == "Save 50% des frais"  # "% d" is no conversion
    assert catalogs.filled("Saved %(percent)d%% of %(total)s", formatted=True) is None  # `total`: no plain value
    assert catalogs.filled("Saved %(percent)d%% of it", formatted=True) == "Saved 3% of it"
    assert catalogs.filled("Only {count} left, {name}", formatted=True) is None
    assert catalogs.filled("Sent to {email}: {n:d} codes", formatted=True) is None
    assert catalogs.filled("Sent to {email}", formatted=True) == "Sent to anna.nowak@example.org"


def test_scripts_without_spaces_count_characters_not_words() -> None:
    assert catalogs.says_something("以下のメールアドレスがアカウントに登録されています")
    assert not catalogs.says_something("はい")
    assert not catalogs.says_something("Log out")


def test_everyday_lines_make_benign_records_in_one_language_and_one_part() -> None:
    pytest.importorskip("faker")
    from guardian_mcp.training import mix
    from guardian_mcp.training.split import part_of

    langs = ("en", "de", "pl", "ja")
    items = [
        Item(f"Line L{lang}{n:02d}X of the {lang} catalog, about your password.", "everyday", f"t:{lang}", lang)
        for lang in langs
        for n in range(40)
    ]
    items += [
        Item(f"Public {role} text T{role}{n:02d}X.", role, f"t:{role}")
        for role in ("benign", "document")
        for n in range(30)
    ]
    records = mix.compose(5, items, {"benign": 20, "everyday": 30})
    assert len(records) == 50
    assert {record["kind"] for record in records} == {"benign"}
    everyday = [record for record in records if not re.search(r"T(benign|document)\d{2}X", str(record["text"]))]
    assert len(everyday) >= 30
    lines = {re.search(r"L[a-z]{2}\d{2}X", item.text)[0]: item for item in items if item.role == "everyday"}  # type: ignore[index]
    for record in everyday:
        used = [lines[token] for token in re.findall(r"L[a-z]{2}\d{2}X", str(record["text"]))]
        assert used and record["label"] == "benign"
        assert {item.lang for item in used} == {record["lang"]}
        assert {part_of(item.text) for item in used} == {record["part"]}
