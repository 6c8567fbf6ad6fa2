"""Undo the disguises an instruction can wear, so the rules see the words a model would read.

Pure functions, no I/O. `normalize(text)` returns one comparable string: escapes, percent-encoding and HTML
entities decoded; invisible characters (zero-width, bidi controls, variation selectors) removed and Unicode
"tag" characters turned back into the ASCII they smuggle; NFKC folding (fullwidth, mathematical letters,
ligatures); accents and other combining marks dropped; Cyrillic and Greek look-alikes folded to Latin; letters
spaced out (`i g n o r e`) joined; leetspeak (`1gn0r3`) folded for the few words the rules care about.

`views(text)` adds what is hidden *inside* the text: base64 and hex blobs that decode to readable text, and the
text reversed when it contains reversed trigger words. Each view is scanned by the rules.

The result is only ever matched, never shown as the original: folding "привет" into mixed scripts is harmless.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote_plus

# Deleted outright: zero-width characters, joiners, bidi embeddings/overrides/isolates, soft hyphen, fillers,
# variation selectors. None of them is visible, all of them can split a word so that a regex misses it.
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xE0001, 0xE0001),
    (0xE007F, 0xE007F),
    (0xE0100, 0xE01EF),
)

# Latin look-alikes from Cyrillic, Greek and a few IPA/Latin-extended letters that NFKC leaves alone.
_HOMOGLYPHS = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ɡ": "g", "ӏ": "l", "ո": "n", "ս": "u", "ց": "g", "զ": "q", "ʏ": "y",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "Ё": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ї": "I", "Ј": "J", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W",
    "Ӏ": "I", "Һ": "H",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "s",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Latin extended / IPA
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɩ": "i", "ʋ": "v", "ɪ": "i", "ᴅ": "d", "ᴇ": "e", "ɴ": "n", "ʀ": "r",
}  # fmt: skip


def _build_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for low, high in _INVISIBLE_RANGES:
        for code in range(low, high + 1):
            table[code] = None
    # Unicode tag characters mirror ASCII 0x20-0x7E at U+E0020-U+E007E and render as nothing ("ASCII
    # smuggling"): give the hidden text back instead of deleting it.
    for code in range(0xE0020, 0xE007F):
        table[code] = chr(code - 0xE0000)
    return table


_INVISIBLE_TABLE = _build_table()
_HOMOGLYPH_TABLE = str.maketrans(_HOMOGLYPHS)
_COMBINING = re.compile(r"[\u0300-\u036f\u0483-\u0489\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")

_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([nrt]))")
_PERCENT = re.compile(r"%[0-9a-fA-F]{2}")
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")

# Four or more single letters separated by one separator each (`i g n o r e`, `I.G.N.O.R.E`); two or more
# spaces (or a slash or bar) mark the gaps between the hidden words.
_SPACED = re.compile(r"(?<![\w.])(?:[A-Za-z](?:[ .\-_*·]|\s{2,4}|\s*[/|]\s*)){3,}[A-Za-z](?![\w])")
_WORD_GAP = re.compile(r"\s{2,}|\s*[/|]\s*")
_SEPARATORS = re.compile(r"[ .\-_*·]")

# Leetspeak is folded only where the result is a word the rules look for: folding every digit would turn
# "sha256" or "mp3" into noise and "user@example.org" into a non-address.
_LEET_TOKEN = re.compile(r"(?<![\w@$])(?=[\w@$]*[A-Za-z])(?=[\w@$]*[0-9@$])[\w@$]{3,}")
_LEET_AS_I = str.maketrans("013457@$", "oieastas")
_LEET_AS_L = str.maketrans("013457@$", "oleastas")
LEET_VOCABULARY = frozenset((
    "ignore", "ignoring", "disregard", "forget", "override", "bypass", "previous", "prior", "above", "earlier",
    "instructions", "instruction", "prompt", "prompts", "system", "rules", "guidelines", "restrictions",
    "filters", "jailbreak", "jailbroken", "developer", "mode", "unfiltered", "uncensored", "unrestricted",
    "reveal", "secret", "secrets", "password", "passwords", "credentials", "token", "tokens", "admin", "root",
    "sudo", "execute", "exploit", "hack", "hacked", "hacking", "malware", "ransomware", "keylogger", "pwned",
    "unlock", "unlocked", "policy", "policies", "delete", "exfiltrate", "leak", "send", "forward", "ethics",
    "ethical", "moral", "illegal", "all", "any", "the", "and", "you", "your", "are", "now", "new", "task",
    "tasks",
))  # fmt: skip

_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_BASE64_URLSAFE = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9_-]{16,}={0,2}(?![A-Za-z0-9+/=])")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){12,}(?![0-9A-Za-z])")
_REVERSED_TRIGGERS = re.compile(r"snoitcurtsni|erongi|dragersid|tpmorp|suoiverp|kaerbliaj|metsys")

_MAX_DECODE_ROUNDS = 3
_MAX_BLOBS = 16
_PROBE_CHARS = 256
_MAX_BLOB_CHARS = 65_536


@dataclass(frozen=True)
class View:
    """One way of reading a text: the text itself (`label == ""`) or something decoded from it."""

    text: str
    label: str = ""


def _unescape(match: re.Match[str]) -> str:
    code, byte, letter = match.groups()
    if code is not None:
        return chr(int(code, 16))
    if byte is not None:
        return chr(int(byte, 16))
    return " " if letter else ""


def decode_layers(text: str) -> str:
    """Decode `\\u` escapes (`\\u0041`), percent-encoding and HTML entities, repeatedly (double encoding is common)."""
    for _ in range(_MAX_DECODE_ROUNDS):
        before = text
        if "\\" in text:
            text = _ESCAPE.sub(_unescape, text)
        if "%" in text and _PERCENT.search(text):
            text = unquote_plus(text, errors="replace")
        if "&" in text and _ENTITY.search(text):
            text = html.unescape(text)
        if text == before:
            break
    return text


def _fold_unicode(text: str) -> str:
    text = text.translate(_INVISIBLE_TABLE)
    text = unicodedata.normalize("NFKD", text)
    text = _COMBINING.sub("", text)
    text = unicodedata.normalize("NFKC", text)
    return text.translate(_HOMOGLYPH_TABLE)


def _join_spaced(match: re.Match[str]) -> str:
    words = (_SEPARATORS.sub("", part) for part in _WORD_GAP.split(match.group()))
    return " ".join(word for word in words if word)


def _fold_leet(match: re.Match[str]) -> str:
    token = match.group()
    lower = token.lower()
    for table in (_LEET_AS_I, _LEET_AS_L):
        folded = lower.translate(table)
        if folded in LEET_VOCABULARY:
            return folded
    return token


def normalize(text: str) -> str:
    """The text as the rules should read it (see the module docstring for every step)."""
    text = decode_layers(text)
    if not text.isascii():
        text = _fold_unicode(text)
    text = _SPACED.sub(_join_spaced, text)
    return _LEET_TOKEN.sub(_fold_leet, text)


def _readable(decoded: bytes) -> str | None:
    """The decoded bytes as text when they are printable (binary data, such as an image, is not), else None."""
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 8:
        return None
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\r\t")
    return text if printable / len(text) >= 0.95 else None


def _decode_base64(blob: str) -> str | None:
    # Probe a prefix first: a 100 kB image decodes to binary within its first bytes, so it costs nothing.
    padded = blob + "=" * (-len(blob) % 4)
    probe = padded[: _PROBE_CHARS - _PROBE_CHARS % 4]
    try:
        decoder = base64.urlsafe_b64decode if ("-" in blob or "_" in blob) else base64.b64decode
        if _readable(decoder(probe)) is None:
            return None
        return _readable(decoder(padded[:_MAX_BLOB_CHARS]))
    except (binascii.Error, ValueError):
        return None


def _decode_hex(blob: str) -> str | None:
    try:
        return _readable(bytes.fromhex(blob[:_MAX_BLOB_CHARS]))
    except ValueError:
        return None


def _hidden_texts(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for label, pattern, decode in (
        ("base64", _BASE64, _decode_base64),
        ("base64", _BASE64_URLSAFE, _decode_base64),
        ("hex", _HEX, _decode_hex),
    ):
        for match in pattern.finditer(text):
            blob = match.group()
            if (label, blob) in seen:
                continue
            seen.add((label, blob))
            if len(seen) > _MAX_BLOBS * 3:
                return found
            decoded = decode(blob)
            if decoded is not None:
                found.append((label, decoded))
    return found


def views(text: str, *, depth: int = 2) -> list[View]:
    """The normalised text first, then every readable text hidden inside it (nested up to `depth`)."""
    decoded = decode_layers(text)
    main = normalize(decoded)
    result = [View(main)]
    if _REVERSED_TRIGGERS.search(main.lower()):
        result.append(View(main[::-1], "reversed"))
    if depth > 0:
        for label, hidden in _hidden_texts(decoded):
            result.extend(
                View(inner.text, f"{label}/{inner.label}" if inner.label else label)
                for inner in views(hidden, depth=depth - 1)
            )
    return result
