"""Where a text came from and how it is built: the surface, and windows cut along its structure.

Pure functions, no I/O; shared by the scanner and by training, so both see the same windows.

- `surface(source)`: `chat`, `email`, `web`, `file` or `tool`, read from the `source` the hub passes
  (`telegram:inbound`, `gmail_get_email:output`, `searcher_web_fetch:output`, `filer_read_file:output`, ...);
  `other` when it says nothing (a direct call).
- `segments(text)`: the text as *blocks*: runs of lines of one kind (`text`, `quoted` for `>` lines, `code`
  inside a fence, `header` for markdown headings and mail headers), split at blank lines; a block longer than
  a window is cut at sentence ends (then at spaces).
- `is_prose(text)`: whether a text could be read as sentences at all. One ASCII token (an id, a hash, a path, a
  URL, a number, a date) cannot: the classifier, trained on prose, scores such tokens at random (a fresh
  `exec_96f4c365bbb0` reached 0.96), so they are left to the rules.
- `windows(text)`: consecutive blocks packed into windows of at most `budget` characters. A window carries the
  kinds of the blocks it holds (`tags`), and its `prefix` (surface and tags, e.g. `email quoted: `) is what the
  encoder reads before the window's text: the same sentence means different things in an owner's message, a
  quoted reply and a code comment.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

SURFACES = ("chat", "email", "web", "file", "tool")
DEFAULT_BUDGET = 480
"""Characters per window: about 110–130 word pieces of European prose, under the encoder's 128."""
MIN_BUDGET = 64

_SURFACE_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("chat", (":inbound", "telegram", "chat", "message")),
    ("email", ("gmail", "mail", "imap", "inbox", "calendar")),
    ("web", ("searcher", "search", "web", "fetch", "browser", "page", "url")),
    ("file", ("filer", "file", "document", "drive", "notes")),
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADER = re.compile(
    r"^\s{0,3}(#{1,6}\s|(from|to|cc|subject|date|von|an|betreff|de|para|asunto|objet|temat|od|do|assunto)\s*:)", re.I
)
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n")
_INVISIBLE = dict.fromkeys([0x00AD, 0x034F, 0x061C, 0x180E, 0xFEFF, *range(0x200B, 0x2010), *range(0x202A, 0x202F)])
_INVISIBLE.update(dict.fromkeys(range(0x2060, 0x2070)))


def surface(source: str) -> str:
    """The surface a `source` string names: chat, email, web, file, tool, or other when it is empty."""
    lowered = source.lower()
    if not lowered.strip() or lowered in {"benchmark", "test"}:
        return "other"
    for name, hints in _SURFACE_HINTS:
        if any(hint in lowered for hint in hints):
            return name
    return "tool"


def clean(text: str) -> str:
    """The text without invisible characters (zero-width, bidi controls, soft hyphens) that split words."""
    return text.translate(_INVISIBLE)


def is_prose(text: str) -> bool:
    """Two words or more, or any non-ASCII character (scripts such as Chinese write sentences without spaces)."""
    words = clean(text).split()
    return len(words) > 1 or any(not ch.isascii() for ch in "".join(words))


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class Window:
    start: int
    end: int
    tags: tuple[str, ...]

    def prefix(self, surface_name: str) -> str:
        return " ".join((surface_name, *self.tags)) + ": "


def _line_kind(line: str, in_code: bool) -> str:
    if in_code:
        return "code"
    stripped = line.lstrip()
    if stripped.startswith(">"):
        return "quoted"
    if _HEADER.match(line):
        return "header"
    return "text"


def _split_long(text: str, start: int, end: int, budget: int) -> list[tuple[int, int]]:
    """Cut [start, end) into pieces of at most `budget` characters at sentence ends, else at spaces."""
    cuts = [start]
    last = start
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.end() - cuts[-1] > budget and last > cuts[-1]:
            cuts.append(last)
        last = match.end()
    pieces: list[tuple[int, int]] = []
    bounds = [*cuts, end]
    for a, b in itertools.pairwise(bounds):
        while b - a > budget:
            cut = text.rfind(" ", a + budget // 2, a + budget)
            cut = cut + 1 if cut > a else a + budget
            pieces.append((a, cut))
            a = cut
        if b > a:
            pieces.append((a, b))
    return pieces


def segments(text: str, budget: int = DEFAULT_BUDGET) -> list[Block]:
    """The text's blocks in order (blank lines dropped), none longer than `budget` characters."""
    blocks: list[Block] = []
    in_code = False
    run_start, run_kind, position = -1, "", 0

    def close(end: int) -> None:
        nonlocal run_start
        if run_start >= 0 and text[run_start:end].strip():
            for a, b in _split_long(text, run_start, end, budget):
                if text[a:b].strip():
                    blocks.append(Block(a, b, run_kind))
        run_start = -1

    for line in text.splitlines(keepends=True):
        line_end = position + len(line)
        fence = bool(_FENCE.match(line))
        kind = "code" if fence else _line_kind(line, in_code)
        if fence:
            in_code = not in_code
        if not line.strip():
            close(position)
        elif kind != run_kind or run_start < 0:
            close(position)
            run_start, run_kind = position, kind
        position = line_end
    close(len(text))
    return blocks


def windows(text: str, budget: int = DEFAULT_BUDGET, max_windows: int | None = None) -> list[Window]:
    """Blocks packed into windows of at most `budget` characters (at least one window for a non-blank text)."""
    budget = max(budget, MIN_BUDGET)
    out: list[Window] = []
    start, end, kinds = -1, -1, []
    for block in segments(text, budget):
        if start >= 0 and block.end - start > budget:
            out.append(Window(start, end, _tags(kinds)))
            start, kinds = -1, []
        if start < 0:
            start = block.start
        end = block.end
        kinds.append(block.kind)
    if start >= 0:
        out.append(Window(start, end, _tags(kinds)))
    if max_windows is not None:
        out = out[:max_windows]
    return out


def _tags(kinds: list[str]) -> tuple[str, ...]:
    return tuple(kind for kind in ("quoted", "code", "header") if kind in kinds)
