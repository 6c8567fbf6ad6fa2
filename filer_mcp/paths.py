"""Path safety: turn the path string a caller sent into a location the Filer may touch, or refuse it.

Two steps, both free of file I/O except symlink resolution (injected as `realpath`, so tests can fake it):

1. `parse_path` applies string rules: no `..`, no NUL or invisible characters, no look-alike dots and slashes,
   no `~`, no backslashes or drive letters, bounded length. It normalises to NFC, so the composed and decomposed
   spellings of a name reach the same file.
2. `resolve_path` joins the parsed path to the workspace (or takes it as absolute), resolves symlinks, and
   decides by whole path components (`Path.is_relative_to`, never a string prefix, so `/ws-evil` is not inside
   `/ws`) whether the real target lies in the workspace or under a grant, and not in a protected location.

The result names a base directory and a symlink-free relative path under it. `fsops` walks that relative path
from the base with `O_NOFOLLOW`, so a symlink swapped in after this check makes the operation fail, not escape.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

from shared.text import shorten

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255

Permission = Literal["read", "read-write"]
Zone = Literal["workspace", "granted"]
RealPath = Callable[[str | os.PathLike[str]], str]

# Characters with a meaning in path syntax. A non-ASCII character whose compatibility form contains one of
# these (U+FF0E FULLWIDTH FULL STOP, U+2024 ONE DOT LEADER, U+FF0F FULLWIDTH SOLIDUS...) is refused: a later
# NFKC step anywhere (a sync tool, another OS) would turn it into a real `.` or `/`.
_PATH_SYNTAX = frozenset("./\\%")
# Look-alikes of these only matter at the very start (`~user`, `C:`), and U+FF5E and U+FF1A are ordinary in
# Japanese titles, so they are allowed further in.
_LEADING_SYNTAX = frozenset("~:")
# Non-ASCII characters that NFKC leaves alone but that look like a slash or backslash: the division and
# fraction slashes, big solidi, box-drawing diagonals, the combining long solidus overlay, the Philippine single
# punctuation.
_SLASH_LOOKALIKES = frozenset("\u2215\u2044\u29f8\u29f9\u2571\u2572\u0338\u1735")
_DRIVE_LETTER = re.compile(r"^[A-Za-z]:")
_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# Percent-escapes are never decoded here, but a file named `%2e%2e%2f` would become `../` for anything
# downstream that does decode: refuse escapes of path syntax, of `%` itself (double encoding) and of
# non-ASCII bytes (overlong UTF-8 such as `%c0%ae`).
_DANGEROUS_ESCAPED_BYTES = frozenset(b"./\\%:~\x00")
# Unicode categories that are invisible or unencodable in a file name.
_REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Cs": "a lone surrogate",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


class PathError(Exception):
    """A path was refused; the message is a sentence the caller can act on."""


class InvalidPath(PathError):
    """The string is not a usable path (empty, malformed, too long, invisible characters)."""


class PathNotAllowed(PathError):
    """The path would leave the workspace and its grants, or reach a protected location."""


class NoGrant(PathNotAllowed):
    """An absolute path outside the workspace that no grant covers."""


class Access(StrEnum):
    READ = "read"
    """Reading and listing: the workspace and, for absolute paths, any grant."""
    WRITE = "write"
    """Creating, changing, moving or deleting: the workspace only."""


@dataclass(frozen=True)
class ParsedPath:
    """A path string that passed the string rules: NFC, no `.` or `..` or empty components."""

    absolute: bool
    parts: tuple[str, ...]

    @property
    def text(self) -> str:
        joined = "/".join(self.parts)
        if self.absolute:
            return "/" + joined
        return joined or "."


@dataclass(frozen=True)
class GrantRule:
    """A resolved grant: `path` has no symlinks left in it."""

    path: Path
    permission: Permission


@dataclass(frozen=True)
class PathPolicy:
    """Everything a resolution decision depends on; all paths already resolved."""

    workspace: Path
    grants: tuple[GrantRule, ...] = ()
    protected: tuple[Path, ...] = ()

    def is_protected(self, path: Path, zone: Zone) -> bool:
        """Whether `path` lies at or under a protected location.

        A protected location that contains the workspace itself (say `/var`, for a workspace in
        `/var/lib/annabelle/workspace`) only guards what lies outside the workspace; otherwise the whole
        workspace would be unusable.
        """
        for protected in self.protected:
            if zone == "workspace" and self.workspace.is_relative_to(protected):
                continue
            if path.is_relative_to(protected):
                return True
        return False

    def contains_protected(self, path: Path, zone: Zone) -> bool:
        """Whether a protected location lies strictly inside the directory `path` (moving it would move that)."""
        for protected in self.protected:
            if zone == "workspace" and self.workspace.is_relative_to(protected):
                continue
            if protected != path and protected.is_relative_to(path):
                return True
        return False

    def grant_for(self, path: Path) -> GrantRule | None:
        """The most specific grant covering `path`."""
        covering = [grant for grant in self.grants if path.is_relative_to(grant.path)]
        return max(covering, key=lambda grant: len(grant.path.parts), default=None)


@dataclass(frozen=True)
class SafePath:
    """A location the Filer may touch: `base` (workspace or grant root) plus a symlink-free relative path."""

    base: Path
    parts: tuple[str, ...]
    zone: Zone
    grant: GrantRule | None = None

    @property
    def absolute(self) -> Path:
        return self.base.joinpath(*self.parts)

    @property
    def is_base(self) -> bool:
        return not self.parts

    @property
    def display(self) -> str:
        """How results and messages name it: relative for the workspace, absolute for a grant."""
        if self.zone == "workspace":
            return printable("/".join(self.parts) or ".")
        return printable(str(self.absolute))


def printable(text: str | os.PathLike[str]) -> str:
    """`text` safe to send as UTF-8.

    A file name that is not valid UTF-8 reaches Python with lone surrogates (`surrogateescape`), which no JSON
    encoder will send; such bytes are shown as U+FFFD instead. (Such a file cannot be named back to the Filer:
    `parse_path` refuses surrogates.)
    """
    return os.fspath(text).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def describe_char(char: str) -> str:
    name = unicodedata.name(char, "unnamed")
    return f"U+{ord(char):04X} {name}"


def _check_characters(text: str) -> None:
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if category in _REFUSED_CATEGORIES:
            raise InvalidPath(
                f"The path contains {_REFUSED_CATEGORIES[category]} ({describe_char(char)}); "
                "type the name with visible characters only."
            )
        if char.isascii():
            continue
        compatible = set(unicodedata.normalize("NFKC", char))
        if char in _SLASH_LOOKALIKES or _PATH_SYNTAX & compatible or (index == 0 and _LEADING_SYNTAX & compatible):
            raise PathNotAllowed(
                f"The path contains {describe_char(char)}, which some systems read as path syntax "
                "(a dot, slash, tilde or colon); use plain ASCII '.' and '/'."
            )


def _check_percent_escapes(text: str) -> None:
    for match in _PERCENT_ESCAPE.finditer(text):
        value = int(match.group(1), 16)
        if value >= 0x80 or value in _DANGEROUS_ESCAPED_BYTES:
            raise PathNotAllowed(
                f"The path contains the percent-escape {match.group(0)}; escapes are never decoded here, "
                "so write the character itself (and '..' is not allowed at all)."
            )


def parse_path(raw: str) -> ParsedPath:
    """Apply the string rules to `raw`; raise `InvalidPath` or `PathNotAllowed` with the reason."""
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidPath("The path is empty: give a path relative to the workspace, e.g. 'notes/todo.md'.")
    if "\x00" in raw:
        raise InvalidPath("The path contains a NUL byte, which no file name can hold.")
    _check_characters(raw)
    text = unicodedata.normalize("NFC", raw)
    if "\\" in text:
        raise InvalidPath("The path contains a backslash: separate folders with '/'.")
    if _DRIVE_LETTER.match(text):
        raise InvalidPath("Windows drive letters are not paths here: give a path relative to the workspace.")
    if text.startswith("~"):
        raise InvalidPath(
            "'~' is not expanded: give a path relative to the workspace, or a full absolute path under a grant."
        )
    _check_percent_escapes(text)
    if len(text.encode("utf-8")) > MAX_PATH_BYTES:
        raise InvalidPath(f"The path is longer than {MAX_PATH_BYTES} bytes.")
    absolute = text.startswith("/")
    parts: list[str] = []
    for part in text.split("/"):
        if part in ("", "."):
            continue
        # `..` and names of only dots and spaces (`...`, `.. `), which Windows and SMB shares trim to `..`.
        if not part.rstrip(". "):
            raise PathNotAllowed(
                f"The path contains {part!r}: '..' and names made only of dots are not allowed; "
                "give the path from the workspace root instead."
            )
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise InvalidPath(f"A name in the path is longer than {MAX_NAME_BYTES} bytes: {part[:40]!r}...")
        parts.append(part)
    return ParsedPath(absolute=absolute, parts=tuple(parts))


def resolve_path(
    parsed: ParsedPath,
    policy: PathPolicy,
    access: Access,
    *,
    follow_final: bool = True,
    realpath: RealPath = os.path.realpath,
) -> SafePath:
    """Decide where `parsed` really leads and whether that is allowed for `access`.

    `follow_final=False` resolves only the parent, for operations on a directory entry itself (deleting or
    moving a symlink must not touch what it points to).
    """
    shown = shorten(parsed.text, 200)
    lexical = (Path("/") if parsed.absolute else policy.workspace).joinpath(*parsed.parts)
    if follow_final or not parsed.parts:
        real = Path(realpath(lexical))
    else:
        real = Path(realpath(lexical.parent)) / lexical.name

    in_workspace = real.is_relative_to(policy.workspace)
    zone: Zone = "workspace" if in_workspace else "granted"
    # Checked first so that a refusal names the real reason, not a missing grant.
    if policy.is_protected(real, zone) or policy.is_protected(lexical, zone):
        raise PathNotAllowed(
            f"'{shown}' is in a protected location (keys, credentials, system or Annabelle's own data); "
            "it is never accessible, not even with a grant."
        )
    if in_workspace:
        return SafePath(policy.workspace, real.relative_to(policy.workspace).parts, "workspace")
    if not parsed.absolute:
        raise PathNotAllowed(f"'{shown}' leads outside the workspace through a symbolic link; refused.")
    if access is Access.WRITE:
        raise PathNotAllowed(
            f"'{shown}' is outside the workspace, and files are only created, changed, moved or deleted "
            "inside it: give a path relative to the workspace."
        )
    grant = policy.grant_for(real)
    if grant is None:
        raise NoGrant(
            f"'{shown}' is outside the workspace and no grant covers it. "
            "Call request_grant to get the steps the user must take to allow it."
        )
    return SafePath(grant.path, real.relative_to(grant.path).parts, "granted", grant)


def protected_locations(
    *,
    user_home: Path | None,
    annabelle_home: Path,
    extra: Iterable[Path] = (),
    broad: bool = True,
    realpath: RealPath = os.path.realpath,
) -> tuple[Path, ...]:
    """The locations no path may reach, each in its written and its symlink-resolved form.

    `broad=False` leaves out `/var` and `~/.config`, which may legitimately hold a workspace
    (`/var/lib/annabelle/workspace` in a container); everything else may never hold one.
    """
    personal = [".ssh", ".gnupg", ".aws", *([".config"] if broad else [])]
    written: Sequence[Path] = (
        *([] if user_home is None else [user_home / name for name in personal]),
        Path("/etc"),
        *([Path("/var")] if broad else []),
        Path("/proc"),
        Path("/sys"),
        annabelle_home / "data",
        annabelle_home / "annabelle.token",
        *extra,
    )
    found: dict[Path, None] = {}
    for path in written:
        absolute = Path(os.path.abspath(path))
        found[absolute] = None
        found[Path(realpath(absolute))] = None
    return tuple(found)


def workspace_problem(
    workspace: Path,
    *,
    user_home: Path | None,
    annabelle_home: Path,
    realpath: RealPath = os.path.realpath,
) -> str | None:
    """Why `workspace` (resolved) must not be the workspace, or None when it is fine."""
    home = Path(realpath(os.path.abspath(annabelle_home)))
    if home.is_relative_to(workspace):
        return (
            f"the workspace {workspace} contains ANNABELLE_HOME ({home}), so the assistant could rewrite its own "
            "data, skills and settings. Set FILER_WORKSPACE to a folder that does not contain it "
            "(the default is $ANNABELLE_HOME/workspace)."
        )
    for location in protected_locations(
        user_home=user_home, annabelle_home=annabelle_home, broad=False, realpath=realpath
    ):
        if workspace.is_relative_to(location):
            return (
                f"the workspace {workspace} lies inside {location}, a protected location. "
                "Set FILER_WORKSPACE to another folder."
            )
    return None
