"""Hundreds of hostile paths through every path-taking Filer tool: nothing outside the workspace is read or changed.

The stage: a workspace full of traps (symlinks out of it, to protected files, to a granted folder, a dangling
link, a loop, a FIFO), an outside folder and a sibling `ws-evil` holding canary files, a granted folder with a
symlink escaping it, and Annabelle's own data, token and grants file (whose folder is itself granted). Each
hostile path goes through every tool that takes a path, on both sides of move and copy, against a freshly built
workspace. Then: no canary appears in any answer or in the audit log, nothing outside the workspace changed,
and no input crashed a tool.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import secrets
import shutil
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from filer_mcp.server import server

CANARY = f"CANARY-{secrets.token_hex(8)}"
MIN_HOSTILE_PATHS = 300
ERROR_CODES = {"NOT_ALLOWED", "INVALID_ARGUMENTS", "TOOL_ERROR"}


# -- the stage -----------------------------------------------------------------------------------------------


def build_outside(root: Path, home: Path) -> None:
    (root / "outside" / "deep").mkdir(parents=True)
    (root / "outside" / "canary.txt").write_text(CANARY)
    (root / "outside" / "deep" / "canary2.txt").write_text(CANARY)
    (root / "ws-evil").mkdir()
    (root / "ws-evil" / "canary.txt").write_text(CANARY)
    (root / "granted").mkdir()
    (root / "granted" / "ok.txt").write_text("granted and harmless")
    (root / "granted" / "escape").symlink_to(root / "outside")
    (home / "data").mkdir()
    (home / "data" / "memory.db").write_text(CANARY)
    (home / "annabelle.token").write_text(CANARY)
    (home / "filer").mkdir()
    # Made now, so that the audit log appearing in it does not count as a change to `home`.
    (home / "logs").mkdir()
    grants = [{"path": str(root / "granted"), "permission": "read-write"}, {"path": str(home), "permission": "read"}]
    (home / "filer" / "grants.json").write_text(json.dumps({"grants": grants}))


def build_workspace(root: Path, home: Path) -> None:
    workspace = root / "ws"
    if workspace.exists():
        shutil.rmtree(workspace)
    (workspace / "sub").mkdir(parents=True)
    (workspace / "temp").mkdir()
    (workspace / "victim.txt").write_text("victim")
    (workspace / "sub" / "inner.txt").write_text("inner")
    links = {
        "link_out": root / "outside",
        "link_canary": root / "outside" / "canary.txt",
        "dangling": root / "outside" / "planted.txt",
        "link_evil": root / "ws-evil",
        "link_data": home / "data",
        "link_token": home / "annabelle.token",
        "link_grants": home / "filer" / "grants.json",
        "link_granted": root / "granted",
        "link_root": Path("/"),
        "link_etc": Path("/etc"),
    }
    for name, target in links.items():
        (workspace / name).symlink_to(target)
    (workspace / "sub" / "up").symlink_to("../../outside")
    (workspace / "loop").symlink_to("loop")
    os.mkfifo(workspace / "pipe")


def snapshot(root: Path, skip: tuple[Path, ...]) -> dict[str, tuple[object, ...]]:
    """Every entry under `root` except `skip`: kind, size, mtime and content hash (or link target)."""
    found: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        dirs[:] = [name for name in dirs if here / name not in skip]
        for name in [*dirs, *files]:
            path = here / name
            if path in skip:
                continue
            status = path.lstat()
            if path.is_symlink():
                detail: object = os.readlink(path)
            elif path.is_file():
                detail = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                detail = None
            found[str(path.relative_to(root))] = (status.st_mode, status.st_size, status.st_mtime_ns, detail)
    return found


# -- the corpus ----------------------------------------------------------------------------------------------

DOTS = [
    "..",
    "\uff0e\uff0e",
    "\u2025",
    "\u2024\u2024",
    "\ufe52\ufe52",
    "%2e%2e",
    "%2E%2E",
    ".%2e",
    "%252e%252e",
    "%c0%ae%c0%ae",
    "....",
    ".. ",
    "..\u200b",
]
SEPARATORS = ["/", "\\", "//", "/./", "\uff0f", "\u2215", "\u2044", "%2f", "%5c", "%252f"]
TRAVERSAL_TARGETS = ["outside/canary.txt", "ws-evil/canary.txt"]


def traversal_paths() -> Iterator[str]:
    for dots, separator, depth, target in itertools.product(DOTS, SEPARATORS, (1, 3), TRAVERSAL_TARGETS):
        yield (dots + separator) * depth + target.replace("/", separator)
    for prefix, depth in itertools.product(("", "./", "sub/", "sub/./", "victim.txt/", "temp/"), range(1, 7)):
        yield prefix + "../" * depth + "outside/canary.txt"
        yield prefix + "../" * depth + "home/annabelle.token"


def absolute_paths(root: Path, home: Path) -> Iterator[str]:
    workspace, outside = root / "ws", root / "outside"
    targets = [
        outside / "canary.txt",
        outside,
        outside / "deep" / "canary2.txt",
        outside / "planted.txt",
        root / "ws-evil" / "canary.txt",
        root / "ws-evil",
        root / "granted" / "escape" / "canary.txt",
        root / "granted" / "escape",
        workspace / "link_out" / "canary.txt",
        workspace / "link_canary",
        workspace / "dangling",
        workspace / "link_token",
        workspace / "link_data" / "memory.db",
        home / "data" / "memory.db",
        home / "data",
        home / "annabelle.token",
        home / "filer" / "grants.json",
        home / "logs" / "fileops-audit.jsonl",
        Path.home() / ".ssh" / "id_rsa",
        Path.home() / ".aws" / "credentials",
        Path.home() / ".config",
        Path("/etc/passwd"),
        Path("/etc/shadow"),
        Path("/proc/self/environ"),
        Path("/proc/self/cwd"),
        Path("/sys/kernel"),
        Path("/var/log"),
        Path("/"),
        root,
    ]
    for target in targets:
        text = str(target)
        yield text
        yield text + "/"
        yield "/" + text
        yield text.replace("/", "//")
        yield text.replace("/", "/./")
    yield str(workspace) + "/../outside/canary.txt"
    yield str(workspace) + "-evil/canary.txt"
    yield str(workspace) + "/./../ws-evil/canary.txt"
    yield "file://" + str(outside / "canary.txt")


def symlink_paths() -> Iterator[str]:
    base = [
        "link_out",
        "link_out/",
        "link_out/canary.txt",
        "link_out/deep/canary2.txt",
        "link_out/new.txt",
        "link_out/deep",
        "link_canary",
        "sub/up",
        "sub/up/canary.txt",
        "sub/up/new.txt",
        "dangling",
        "loop",
        "loop/x",
        "link_evil/canary.txt",
        "link_data/memory.db",
        "link_data",
        "link_token",
        "link_grants",
        "link_granted/ok.txt",
        "link_granted/escape/canary.txt",
        "link_root/etc/passwd",
        "link_etc/passwd",
        "link_etc",
        "pipe",
    ]
    for path in base:
        yield path
        yield "./" + path
        yield path.replace("/", "//")
        yield path.replace("link", "LINK")
        yield unicodedata.normalize("NFD", path + "/é.txt")
        yield path + "/."
        yield "sub/../" + path


def unicode_and_odd_paths() -> Iterator[str]:
    yield from [
        "",
        " ",
        "\t",
        "\n",
        "\r\n../outside",
        "\x00",
        "\x00../outside/canary.txt",
        "victim.txt\x00../../outside/canary.txt",
        "canary.txt\x00.md",
        "\ud800",
        "\udc00../outside",
        "~",
        "~/",
        "~root",
        "~/.ssh/id_rsa",
        "~" + os.sep + ".aws/credentials",
        "\uff5e/.ssh/id_rsa",
        "C:\\Windows\\win.ini",
        "C:/outside",
        "c:..\\outside",
        "\\\\server\\share\\canary.txt",
        "\\\\?\\C:\\outside",
        "\\",
        "/..",
        "/../..",
        "//..//..",
        "...",
        ". . /outside",
        "./.",
        "..;/outside/canary.txt",
        "..%00/outside",
        "%2e%2e%2f%2e%2e%2foutside%2fcanary.txt",
        "..\\/outside",
        "\u202e../outside",
        "\u2066../outside",
        "\ufeff../outside",
        "\u00ad../outside",
        "\u200d/../outside",
        "\uff0e\uff0e\uff0foutside\uff0fcanary.txt",
        "..\u0338/outside",
        "\u0338../outside",
        ".\u0307./outside",
        "a" * 256,
        "a/" * 2100,
        "a" * 5000,
        "sub/" * 60 + "../" * 62 + "outside/canary.txt",
        "x/" * 200 + "../" * 201 + "outside",
        ".",
        "temp/../../outside/canary.txt",
    ]


def hostile_corpus(root: Path, home: Path) -> list[str]:
    found = itertools.chain(traversal_paths(), absolute_paths(root, home), symlink_paths(), unicode_and_odd_paths())
    return list(dict.fromkeys(found))


def calls_for(path: str) -> list[tuple[str, dict[str, Any]]]:
    """Reading tools first, writes after, the destructive ones last, so each gets the traps intact."""
    return [
        ("read_file", {"path": path}),
        ("list_files", {"path": path, "recursive": True}),
        ("search_files", {"query": path, "search_in": "all", "search_type": "content"}),
        ("search_files", {"query": path, "search_in": "all", "file_types": [path]}),
        ("check_grant", {"path": path}),
        ("request_grant", {"path": path, "permission": "read-write", "reason": "hostile corpus"}),
        ("copy_file", {"source": path, "destination": "copied.txt"}),
        ("create_file", {"path": path, "content": "PWNED", "overwrite": True}),
        ("update_file", {"path": path, "content": "PWNED"}),
        ("copy_file", {"source": "victim.txt", "destination": path}),
        ("move_file", {"source": "victim.txt", "destination": path}),
        ("delete_file", {"path": path}),
        ("move_file", {"source": path, "destination": "moved.txt"}),
    ]


# -- the run -------------------------------------------------------------------------------------------------


@pytest.fixture
def stage(tmp_path: Path, annabelle_home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    root = tmp_path.resolve()
    home = annabelle_home.resolve()
    build_outside(root, home)
    build_workspace(root, home)
    monkeypatch.setenv("FILER_WORKSPACE", str(root / "ws"))
    return root, home


def outside_snapshot(root: Path, home: Path) -> dict[str, tuple[object, ...]]:
    # The workspace changes by design, and the audit log grows with every call.
    return snapshot(root, skip=(root / "ws", home / "logs"))


def audit_text(home: Path) -> str:
    return (home / "logs" / "fileops-audit.jsonl").read_text(encoding="utf-8")


async def test_no_hostile_path_reads_writes_or_deletes_anything_outside_the_workspace(
    stage: tuple[Path, Path],
) -> None:
    root, home = stage
    corpus = hostile_corpus(root, home)
    before = outside_snapshot(root, home)
    attempts = 0
    outcomes: dict[str, int] = {}
    async with Client(server) as client:
        for path in corpus:
            build_workspace(root, home)
            for tool, arguments in calls_for(path):
                result = await client.call_tool(tool, arguments)
                attempts += 1
                text = " ".join(getattr(block, "text", "") for block in result.content)
                assert CANARY not in text, (tool, path)
                envelope = json.loads(text)
                assert "unexpectedly" not in envelope.get("error", ""), (tool, path, envelope)
                code = "OK" if envelope["success"] else envelope["errorCode"]
                assert code == "OK" or code in ERROR_CODES, envelope
                outcomes[code] = outcomes.get(code, 0) + 1
    after = outside_snapshot(root, home)
    print(f"\nhostile paths: {len(corpus)}, tool calls: {attempts}, outcomes: {dict(sorted(outcomes.items()))}")
    assert len(corpus) >= MIN_HOSTILE_PATHS
    assert attempts == len(corpus) * len(calls_for(""))
    assert after == before
    assert CANARY not in audit_text(home)
    # Most attempts must be refusals; the few successes are paths that really are inside the workspace.
    assert outcomes.get("NOT_ALLOWED", 0) > attempts // 2


async def test_a_content_search_everywhere_never_finds_the_canaries(stage: tuple[Path, Path]) -> None:
    async with Client(server) as client:
        for search_in in ("workspace", "granted", "all"):
            result = await client.call_tool(
                "search_files", {"query": CANARY, "search_in": search_in, "search_type": "content"}
            )
            envelope = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert envelope["success"], envelope
            assert envelope["data"]["results"] == [], search_in
        listing = await client.call_tool("list_files", {"path": ".", "recursive": True})
        assert CANARY not in listing.content[0].text  # type: ignore[union-attr]


async def test_the_granted_folder_itself_stays_readable_so_the_refusals_above_are_not_blanket(
    stage: tuple[Path, Path],
) -> None:
    root, _home = stage
    async with Client(server) as client:
        result = await client.call_tool("read_file", {"path": str(root / "granted" / "ok.txt")})
        inside = await client.call_tool("read_file", {"path": "sub/inner.txt"})
    assert json.loads(result.content[0].text)["data"]["content"] == "granted and harmless"  # type: ignore[union-attr]
    assert json.loads(inside.content[0].text)["data"]["content"] == "inner"  # type: ignore[union-attr]
