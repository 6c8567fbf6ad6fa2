"""The path-safety rules of the Filer, as pure decisions (with real and with injected symlink resolution)."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from filer_mcp.paths import (
    MAX_NAME_BYTES,
    MAX_PATH_BYTES,
    Access,
    GrantRule,
    InvalidPath,
    NoGrant,
    ParsedPath,
    PathNotAllowed,
    PathPolicy,
    parse_path,
    printable,
    protected_locations,
    resolve_path,
    workspace_problem,
)

# -- parse_path: strings that are fine --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "absolute", "parts"),
    [
        ("notes.txt", False, ("notes.txt",)),
        ("notes/todo.md", False, ("notes", "todo.md")),
        ("./notes/./todo.md", False, ("notes", "todo.md")),
        ("notes//todo.md/", False, ("notes", "todo.md")),
        (".", False, ()),
        ("./", False, ()),
        (".hidden", False, (".hidden",)),
        ("file.", False, ("file.",)),
        ("a b.txt", False, ("a b.txt",)),
        ("notes~", False, ("notes~",)),
        ("a/~b", False, ("a", "~b")),
        ("50%.txt", False, ("50%.txt",)),
        ("report%20final.txt", False, ("report%20final.txt",)),
        ("日本語/メモ.txt", False, ("日本語", "メモ.txt")),
        ("Rechnung_März.pdf", False, ("Rechnung_März.pdf",)),
        ("会議～議事録.txt", False, ("会議～議事録.txt",)),
        ("メモ：2024.txt", False, ("メモ：2024.txt",)),
        ("ジョン・スミス.txt", False, ("ジョン・スミス.txt",)),
        ("/home/me/Documents/a.txt", True, ("home", "me", "Documents", "a.txt")),
        ("/", True, ()),
        ("//server/share", True, ("server", "share")),
        ("a" * MAX_NAME_BYTES, False, ("a" * MAX_NAME_BYTES,)),
    ],
)
def test_ordinary_paths_parse_into_their_components(raw: str, absolute: bool, parts: tuple[str, ...]) -> None:
    assert parse_path(raw) == ParsedPath(absolute=absolute, parts=parts)


def test_decomposed_unicode_is_normalised_to_the_composed_form_so_both_spellings_reach_one_file() -> None:
    decomposed = unicodedata.normalize("NFD", "café.txt")
    assert decomposed != "café.txt"
    assert parse_path(decomposed).parts == ("café.txt",)


@pytest.mark.parametrize(
    ("parsed", "text"),
    [
        (ParsedPath(False, ()), "."),
        (ParsedPath(False, ("a", "b")), "a/b"),
        (ParsedPath(True, ()), "/"),
        (ParsedPath(True, ("etc", "x")), "/etc/x"),
    ],
)
def test_a_parsed_path_prints_in_its_normal_form(parsed: ParsedPath, text: str) -> None:
    assert parsed.text == text


# -- parse_path: malformed input (INVALID_ARGUMENTS) ------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "\x00",
        "notes\x00.txt",
        "notes.txt\x00../../etc/passwd",
        "a\tb",
        "a\nb",
        "line\rbreak",
        "\x1b[31mred",
        "\x7f",
        "\u0085next-line",
        "\u200bnotes.txt",
        "no\u200dtes.txt",
        "\ufeffnotes.txt",
        "\u202etxt.exe",
        "a\u2066b",
        "soft\u00adhyphen",
        "a\u2028b",
        "a\u2029b",
        "\ud800",
        "a\\b",
        "..\\..\\etc\\passwd",
        "C:/Windows/system32",
        "c:notes.txt",
        "C:",
        "~",
        "~/notes.txt",
        "~root/.ssh/id_rsa",
        "a" * (MAX_NAME_BYTES + 1),
        "é" * (MAX_NAME_BYTES // 2 + 1),
        "a/" * (MAX_PATH_BYTES // 2 + 1),
    ],
)
def test_malformed_path_strings_are_refused_as_invalid(raw: str) -> None:
    with pytest.raises(InvalidPath):
        parse_path(raw)


def test_a_non_string_path_is_refused_as_invalid() -> None:
    with pytest.raises(InvalidPath):
        parse_path(None)  # type: ignore[arg-type]


# -- parse_path: disguised traversal (NOT_ALLOWED) ---------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "..",
        "../notes.txt",
        "notes/../../etc/passwd",
        "notes/..",
        "notes/../notes.txt",
        "/home/me/../../etc/passwd",
        "...",
        "....//x",
        ". .",
        ".. ",
        "..  /x",
        "\uff0e\uff0e/x",
        "\uff0e\uff0e\uff0fx",
        "..\uff0fx",
        "\u2024\u2024/x",
        "\u2025/x",
        "\ufe52\ufe52/x",
        "a\u2215b",
        "..\u2215..\u2215x",
        "a\u2044b",
        "a\u29f8b",
        "..\u0338/x",
        "\uff5e/x",
        "\uff1a/x",
        "\uff3cx",
        "%2e%2e/x",
        "%2E%2E%2Fx",
        "..%2fx",
        "%2fetc%2fpasswd",
        "%5c",
        "%00",
        "%252e%252e",
        "%c0%ae%c0%ae/x",
        "..%c0%afx",
        "%e0%80%ae",
    ],
)
def test_traversal_in_any_disguise_is_refused_as_not_allowed(raw: str) -> None:
    with pytest.raises(PathNotAllowed):
        parse_path(raw)


def test_a_refusal_names_the_offending_character() -> None:
    with pytest.raises(PathNotAllowed, match="U\\+FF0E FULLWIDTH FULL STOP"):
        parse_path("\uff0e\uff0e/x")
    with pytest.raises(InvalidPath, match="U\\+200B ZERO WIDTH SPACE"):
        parse_path("\u200bx")


# -- resolve_path with real directories and symlinks -------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """A workspace with symlinks in and out, an outside folder, a sibling named like the workspace."""
    workspace = tmp_path / "ws"
    outside = tmp_path / "outside"
    evil = tmp_path / "ws-evil"
    for folder in (workspace / "sub", outside / "deep", evil):
        folder.mkdir(parents=True)
    (workspace / "sub" / "inner.txt").write_text("inner")
    (outside / "canary.txt").write_text("canary")
    (evil / "canary.txt").write_text("canary")
    (workspace / "link_out").symlink_to(outside)
    (workspace / "link_canary").symlink_to(outside / "canary.txt")
    (workspace / "link_in").symlink_to(workspace / "sub" / "inner.txt")
    (workspace / "sub" / "relative_up").symlink_to("../../outside")
    (workspace / "dangling_out").symlink_to(outside / "missing.txt")
    (workspace / "loop").symlink_to("loop")
    return {"workspace": workspace, "outside": outside, "evil": evil, "root": tmp_path}


def _policy(tree: dict[str, Path], grants: tuple[GrantRule, ...] = ()) -> PathPolicy:
    return PathPolicy(tree["workspace"], grants, ())


@pytest.mark.parametrize(
    ("raw", "parts"),
    [
        ("sub/inner.txt", ("sub", "inner.txt")),
        ("sub/new/file.txt", ("sub", "new", "file.txt")),
        (".", ()),
        ("link_in", ("sub", "inner.txt")),
    ],
)
def test_workspace_paths_resolve_to_symlink_free_parts_under_the_workspace(
    tree: dict[str, Path], raw: str, parts: tuple[str, ...]
) -> None:
    safe = resolve_path(parse_path(raw), _policy(tree), Access.WRITE)
    assert safe.zone == "workspace"
    assert safe.base == tree["workspace"]
    assert safe.parts == parts


@pytest.mark.parametrize(
    "raw",
    [
        "link_out",
        "link_out/canary.txt",
        "link_out/new.txt",
        "link_out/deep/new.txt",
        "link_canary",
        "sub/relative_up/canary.txt",
        "sub/relative_up/new.txt",
        "dangling_out",
    ],
)
@pytest.mark.parametrize("access", list(Access))
def test_symlinks_that_lead_outside_the_workspace_are_refused(tree: dict[str, Path], raw: str, access: Access) -> None:
    with pytest.raises(PathNotAllowed, match="outside the workspace"):
        resolve_path(parse_path(raw), _policy(tree), access)


def test_a_symlink_entry_itself_can_be_addressed_without_following_it(tree: dict[str, Path]) -> None:
    safe = resolve_path(parse_path("link_out"), _policy(tree), Access.WRITE, follow_final=False)
    assert safe.parts == ("link_out",)
    assert safe.zone == "workspace"


def test_not_following_the_final_link_still_resolves_every_parent(tree: dict[str, Path]) -> None:
    with pytest.raises(PathNotAllowed):
        resolve_path(parse_path("link_out/canary.txt"), _policy(tree), Access.WRITE, follow_final=False)


def test_a_symlink_loop_stays_inside_and_is_left_for_the_file_walk_to_refuse(tree: dict[str, Path]) -> None:
    safe = resolve_path(parse_path("loop/x"), _policy(tree), Access.READ)
    assert safe.zone == "workspace"


def test_an_absolute_path_inside_the_workspace_is_a_workspace_path(tree: dict[str, Path]) -> None:
    raw = str(tree["workspace"] / "sub" / "inner.txt")
    safe = resolve_path(parse_path(raw), _policy(tree), Access.WRITE)
    assert (safe.zone, safe.parts, safe.display) == ("workspace", ("sub", "inner.txt"), "sub/inner.txt")


def test_a_sibling_folder_whose_name_starts_like_the_workspace_is_outside_it(tree: dict[str, Path]) -> None:
    raw = str(tree["evil"] / "canary.txt")
    assert raw.startswith(str(tree["workspace"]))
    with pytest.raises(NoGrant):
        resolve_path(parse_path(raw), _policy(tree), Access.READ)
    with pytest.raises(PathNotAllowed):
        resolve_path(parse_path(raw), _policy(tree), Access.WRITE)


def test_an_absolute_path_outside_needs_a_grant_to_be_read(tree: dict[str, Path]) -> None:
    raw = str(tree["outside"] / "canary.txt")
    with pytest.raises(NoGrant, match="request_grant"):
        resolve_path(parse_path(raw), _policy(tree), Access.READ)
    granted = _policy(tree, (GrantRule(tree["outside"], "read"),))
    safe = resolve_path(parse_path(raw), granted, Access.READ)
    assert (safe.zone, safe.base, safe.parts) == ("granted", tree["outside"], ("canary.txt",))
    assert safe.display == raw


@pytest.mark.parametrize("permission", ["read", "read-write"])
def test_no_grant_allows_writing_outside_the_workspace(tree: dict[str, Path], permission: str) -> None:
    granted = _policy(tree, (GrantRule(tree["outside"], permission),))  # type: ignore[arg-type]
    with pytest.raises(PathNotAllowed, match="only created, changed, moved or deleted inside it"):
        resolve_path(parse_path(str(tree["outside"] / "new.txt")), granted, Access.WRITE)


def test_a_grant_does_not_extend_to_a_symlink_inside_it_that_leads_elsewhere(tree: dict[str, Path]) -> None:
    (tree["outside"] / "escape").symlink_to(tree["evil"])
    granted = _policy(tree, (GrantRule(tree["outside"], "read"),))
    with pytest.raises(NoGrant):
        resolve_path(parse_path(str(tree["outside"] / "escape" / "canary.txt")), granted, Access.READ)


def test_relative_paths_never_use_a_grant_even_when_a_symlink_leads_into_one(tree: dict[str, Path]) -> None:
    granted = _policy(tree, (GrantRule(tree["outside"], "read"),))
    with pytest.raises(PathNotAllowed, match="outside the workspace"):
        resolve_path(parse_path("link_out/canary.txt"), granted, Access.READ)


def test_the_most_specific_grant_wins(tree: dict[str, Path]) -> None:
    grants = (GrantRule(tree["root"], "read"), GrantRule(tree["outside"], "read-write"))
    safe = resolve_path(parse_path(str(tree["outside"] / "canary.txt")), _policy(tree, grants), Access.READ)
    assert safe.grant == GrantRule(tree["outside"], "read-write")
    assert safe.base == tree["outside"]


# -- protected locations -----------------------------------------------------------------------------------

_FAKE_LINKS = {"/ws/link_ssh": "/home/me/.ssh", "/docs/etc_link": "/etc"}


def _fake_realpath(path: str | os.PathLike[str]) -> str:
    """Resolves the symlinks of `_FAKE_LINKS` (as prefixes) and nothing else: no file system involved."""
    text = os.fspath(path)
    for link, target in _FAKE_LINKS.items():
        if text == link or text.startswith(link + "/"):
            return target + text[len(link) :]
    return text


_PROTECTED = protected_locations(
    user_home=Path("/home/me"),
    annabelle_home=Path("/home/me/.annabelle"),
    extra=(Path("/home/me/.annabelle/filer/grants.json"),),
    realpath=_fake_realpath,
)
_EVERYTHING_GRANTED = PathPolicy(Path("/ws"), (GrantRule(Path("/"), "read-write"),), _PROTECTED)


@pytest.mark.parametrize(
    "raw",
    [
        "/etc/passwd",
        "/etc",
        "/var/log/syslog",
        "/proc/self/environ",
        "/sys/kernel",
        "/home/me/.ssh/id_ed25519",
        "/home/me/.ssh",
        "/home/me/.gnupg/private-keys-v1.d/x.key",
        "/home/me/.aws/credentials",
        "/home/me/.config/gh/hosts.yml",
        "/home/me/.annabelle/data/memory.db",
        "/home/me/.annabelle/annabelle.token",
        "/home/me/.annabelle/filer/grants.json",
        "/docs/etc_link/shadow",
    ],
)
def test_protected_locations_are_refused_even_under_a_grant_of_everything(raw: str) -> None:
    with pytest.raises(PathNotAllowed, match="protected location"):
        resolve_path(parse_path(raw), _EVERYTHING_GRANTED, Access.READ, realpath=_fake_realpath)


@pytest.mark.parametrize(
    "raw",
    ["/home/me/Documents/a.txt", "/home/me/.sshkeys-notes.txt", "/home/me/.annabelle/logs/filer.log", "/etcetera"],
)
def test_neighbours_of_protected_locations_stay_readable_under_a_grant(raw: str) -> None:
    safe = resolve_path(parse_path(raw), _EVERYTHING_GRANTED, Access.READ, realpath=_fake_realpath)
    assert safe.zone == "granted"


def test_a_workspace_symlink_to_a_protected_location_is_refused() -> None:
    with pytest.raises(PathNotAllowed):
        resolve_path(parse_path("link_ssh/id_rsa"), _EVERYTHING_GRANTED, Access.READ, realpath=_fake_realpath)


def test_a_workspace_inside_a_protected_folder_still_works_while_that_folder_stays_closed_outside_it() -> None:
    policy = PathPolicy(Path("/var/lib/annabelle/workspace"), (GrantRule(Path("/var"), "read"),), _PROTECTED)
    safe = resolve_path(parse_path("notes.txt"), policy, Access.WRITE, realpath=_fake_realpath)
    assert safe.parts == ("notes.txt",)
    with pytest.raises(PathNotAllowed, match="protected location"):
        resolve_path(parse_path("/var/lib/other/secret"), policy, Access.READ, realpath=_fake_realpath)


def test_protected_locations_inside_the_workspace_stay_protected() -> None:
    # A workspace set to ANNABELLE_HOME itself must not expose the database or the token.
    policy = PathPolicy(Path("/home/me/.annabelle"), (), _PROTECTED)
    for raw in ("data/memory.db", "annabelle.token", "filer/grants.json", "data"):
        with pytest.raises(PathNotAllowed, match="protected location"):
            resolve_path(parse_path(raw), policy, Access.WRITE, realpath=_fake_realpath)
    assert resolve_path(parse_path("notes.txt"), policy, Access.WRITE, realpath=_fake_realpath).zone == "workspace"


def test_a_folder_holding_a_protected_location_is_recognised_as_such() -> None:
    policy = PathPolicy(Path("/home/me"), (), _PROTECTED)
    assert policy.contains_protected(Path("/home/me/.annabelle"), "workspace")
    assert not policy.contains_protected(Path("/home/me/Documents"), "workspace")
    assert not policy.contains_protected(Path("/home/me/.ssh"), "workspace")


def test_protected_locations_are_listed_in_written_and_resolved_form() -> None:
    found = protected_locations(
        user_home=Path("/home/me"),
        annabelle_home=Path("/srv/annabelle"),
        realpath=lambda path: "/private" + os.fspath(path) if os.fspath(path).startswith("/etc") else os.fspath(path),
    )
    assert Path("/etc") in found
    assert Path("/private/etc") in found
    assert Path("/srv/annabelle/annabelle.token") in found
    assert Path("/home/me/.ssh") in found


def test_without_a_known_home_the_system_locations_are_still_protected() -> None:
    found = protected_locations(user_home=None, annabelle_home=Path("/srv/annabelle"), realpath=os.fspath)
    assert Path("/etc") in found
    assert not any(path.name == ".ssh" for path in found)


def test_names_that_are_not_utf8_are_printed_with_a_replacement_character() -> None:
    name = os.fsdecode(b"bad\xff.txt")
    assert printable(name) == "bad\ufffd.txt"
    assert printable(Path("/srv") / name) == "/srv/bad\ufffd.txt"
    assert printable("ordinary é.txt") == "ordinary é.txt"


@pytest.mark.parametrize(
    ("workspace", "problem"),
    [
        ("/home/me/.annabelle/workspace", None),
        ("/srv/files", None),
        ("/var/lib/annabelle/workspace", None),
        ("/home/me/.config/annabelle/workspace", None),
        ("/home/me/.annabelle", "contains ANNABELLE_HOME"),
        ("/home/me", "contains ANNABELLE_HOME"),
        ("/", "contains ANNABELLE_HOME"),
        ("/home/me/.ssh/work", "inside /home/me/.ssh"),
        ("/home/me/.aws", "inside /home/me/.aws"),
        ("/etc/annabelle", "inside /etc"),
        ("/proc/self", "inside /proc"),
        ("/home/me/.annabelle/data/files", "inside /home/me/.annabelle/data"),
    ],
)
def test_a_workspace_that_would_expose_protected_locations_or_annabelles_home_is_refused(
    workspace: str, problem: str | None
) -> None:
    found = workspace_problem(
        Path(workspace), user_home=Path("/home/me"), annabelle_home=Path("/home/me/.annabelle"), realpath=os.fspath
    )
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found and "FILER_WORKSPACE" in found
