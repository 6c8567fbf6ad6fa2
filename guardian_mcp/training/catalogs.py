"""Everyday text in many languages from the translation catalogs inside PyPI wheels (training only; benign).

The public attack text (`sources.py`) comes with hard negatives that are nearly all English documentation about
attacks; a model trained with it flagged more ordinary texts in other languages and styles. Web frameworks ship
their user interface in about a hundred languages as gettext catalogs written and reviewed by many translators:
account and security messages ("Your password has been reset", "It can be safely ignored if you did not request
a password reset", "You don't have permission to view or edit anything", CSRF failures), form errors, e-mail
bodies, confirmations, labels and dates. Those are the benign security talk Guardian must let through, in the
languages its owners write. Each catalog is read with polib (a maintained gettext reader) straight from the
pinned wheel; every entry gives its English source line and its translation as two items with role `everyday`.

Placeholders are filled with plain values when their meaning is clear (an address, a name, a number) and the
entry is skipped otherwise; markup tags are removed. Lines shorter than three words (labels such as "Yes",
month and language names) say nothing about instructions and are dropped.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator

import polib

from guardian_mcp.training.sources import Item, Package, names, read

PACKAGES: tuple[Package, ...] = (
    Package("django", "5.2.19", "BSD-3-Clause", "5965d974a5218a2b68a11dd1276434707f23886525c23f0598eccedaf4f4ca00"),
    Package("django-allauth", "65.21.1", "MIT", "7bdf018c9f3f0a32c80677f84e7777272d9c833b180bd6734314c4831c802a9e"),
)

CATALOG = re.compile(r"(?P<app>.+)/locale/(?P<tag>[A-Za-z_]+)/LC_MESSAGES/django\.po")
PLACEHOLDER = re.compile(
    r"%(?:\((?P<name>\w+)\))?[-#0+]*\d*(?:\.\d+)?(?P<type>[sdrif])|\{(?P<brace>\w*)(?:![rsa])?(?::[^{}]*)?\}"
)
TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
# Values for the placeholders whose meaning the name makes plain; any other placeholder skips the entry.
VALUES = {
    "email": "anna.nowak@example.org",
    "username": "anna.nowak",
    "user_display": "Anna Nowak",
    "name": "Anna Nowak",
    "site_name": "example.org",
    "site_domain": "example.org",
    "provider": "Google",
    "phone": "+48 601 234 567",
    "code": "481 516",
}
NUMBER = "3"
WIDE_SCRIPT = re.compile(r"[\u0e00-\u0e7f\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def language(tag: str) -> str:
    """`pt_BR` → `pt`, `zh_Hans` → `zh`, `sr_Latn` → `sr`: the composer's languages are bare ISO 639-1 codes."""
    return tag.split("_")[0].lower()


def filled(text: str, formatted: bool) -> str | None:
    """The line with its placeholders filled (when the catalog marks it `python-format` or
    `python-brace-format`) and its tags removed, or None when a placeholder has no safe value."""
    missing = False

    def value(match: re.Match[str]) -> str:
        nonlocal missing
        if match["type"] in ("d", "i", "f"):
            return NUMBER
        name = match["name"] or match["brace"]
        if name in VALUES:
            return VALUES[name]
        missing = True
        return ""

    out = PLACEHOLDER.sub(value, text) if formatted else text
    if missing:
        return None
    return re.sub(r"[ \t\xa0]+", " ", TAG.sub("", out).replace("%%", "%")).strip()


def says_something(text: str) -> bool:
    """Three words or more, or, in scripts written without spaces (Thai, Chinese, Japanese…), ten characters."""
    return len(text.split()) >= 3 or (len(text) >= 10 and WIDE_SCRIPT.search(text) is not None)


def catalog_items(wheel: zipfile.ZipFile, package: str) -> Iterator[Item]:
    for name in names(wheel, CATALOG.pattern):
        match = CATALOG.fullmatch(name)
        assert match is not None  # `names` matched the same pattern
        tag, app = match["tag"], match["app"]
        catalog = polib.pofile(read(wheel, name))
        for entry in catalog.translated_entries():
            if entry.obsolete or "fuzzy" in entry.flags:
                continue
            translation = entry.msgstr or entry.msgstr_plural.get(0, "")
            formatted = bool({"python-format", "python-brace-format"} & set(entry.flags))
            pairs = [(entry.msgid, "en", f"{package}:{app}"), (translation, language(tag), f"{package}:{app}/{tag}")]
            for text, lang, source in pairs:
                line = filled(text, formatted)
                if line and says_something(line):
                    yield Item(line, "everyday", source, lang)


def django(wheel: zipfile.ZipFile) -> Iterator[Item]:
    return catalog_items(wheel, "django")


def django_allauth(wheel: zipfile.ZipFile) -> Iterator[Item]:
    return catalog_items(wheel, "django-allauth")


EXTRACTORS = {"django": django, "django-allauth": django_allauth}
