"""The server's own operations in the sandbox folder never follow a link the sandboxed code planted there."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codexec_mcp.host import UnsafeFolder, ensure_folder, read_small_file, remove_if_empty, snapshot, tree_rss_mb


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "sandbox").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret")
    return tmp_path / "sandbox"


def test_folders_are_created_one_level_at_a_time(root: Path) -> None:
    ensure_folder(root, ("a", "b", "c"), os.getuid(), os.getgid())
    assert (root / "a" / "b" / "c").is_dir()
    ensure_folder(root, ("a", "b", "c"), os.getuid(), os.getgid())  # already there: fine


@pytest.mark.parametrize("depth", [1, 2])
def test_a_link_where_a_folder_should_be_is_refused_and_its_target_untouched(root: Path, depth: int) -> None:
    outside = root.parent / "outside"
    if depth == 1:
        (root / "proj").symlink_to(outside)
        parts: tuple[str, ...] = ("proj", "new")
    else:
        (root / "proj").mkdir()
        (root / "proj" / "link").symlink_to(outside)
        parts = ("proj", "link", "new")
    with pytest.raises(UnsafeFolder, match="not a folder"):
        ensure_folder(root, parts, os.getuid(), os.getgid())
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_a_file_where_a_folder_should_be_is_refused(root: Path) -> None:
    (root / "proj").write_text("x")
    with pytest.raises(UnsafeFolder):
        ensure_folder(root, ("proj", "x"), os.getuid(), os.getgid())


def test_a_snapshot_lists_regular_files_only_and_never_looks_through_links(root: Path) -> None:
    (root / "run").mkdir()
    (root / "run" / "out.csv").write_text("1,2")
    (root / "run" / "to-outside").symlink_to(root.parent / "outside")
    (root / "run" / "to-secret").symlink_to(root.parent / "outside" / "secret.txt")
    (root / "run" / "sub").mkdir()
    found = snapshot(root, ("run",))
    assert list(found) == ["out.csv"]
    (root / "linked").symlink_to(root.parent / "outside")
    assert snapshot(root, ("linked",)) == {}


def test_only_an_empty_run_folder_is_removed(root: Path) -> None:
    (root / "empty").mkdir()
    (root / "full").mkdir()
    (root / "full" / "x").write_text("x")
    (root / "link").symlink_to(root.parent / "outside")
    assert remove_if_empty(root, ("empty",)) is True and not (root / "empty").exists()
    assert remove_if_empty(root, ("full",)) is False and (root / "full" / "x").exists()
    assert remove_if_empty(root, ("link",)) is False and (root.parent / "outside" / "secret.txt").exists()


def test_a_small_file_is_read_only_when_no_link_leads_to_it(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "package.json").write_text('{"version": "1.2.3"}')
    assert read_small_file(root, ("pkg", "package.json")) == b'{"version": "1.2.3"}'
    (root / "pkg" / "evil.json").symlink_to(root.parent / "outside" / "secret.txt")
    (root / "via").symlink_to(root.parent / "outside")
    assert read_small_file(root, ("pkg", "evil.json")) is None
    assert read_small_file(root, ("via", "secret.txt")) is None
    assert read_small_file(root, ("pkg", "missing.json")) is None
    os.mkfifo(root / "pkg" / "fifo")
    assert read_small_file(root, ("pkg", "fifo")) is None  # a FIFO must not block the server


def test_the_memory_of_a_process_tree_is_summed_and_a_gone_process_is_none() -> None:
    mine = tree_rss_mb(os.getpid())
    assert mine is not None and mine > 1
    assert tree_rss_mb(2**22 + 12345) is None


def fake_etc(tmp_path: Path) -> Path:
    etc = tmp_path / "etc"
    (etc / "ssl" / "certs").mkdir(parents=True)
    (etc / "ssl" / "certs" / "bundle.crt").write_text("CERTS")
    (etc / "ssl" / "certs" / "one.pem").symlink_to("/usr/share/ca-certificates/one.crt")
    (etc / "ssl" / "private").mkdir(mode=0o700)
    (etc / "ssl" / "private" / "key.pem").write_text("PRIVATE")
    (etc / "ssl" / "secret.conf").write_text("SECRET")
    (etc / "ssl" / "secret.conf").chmod(0o600)
    (etc / "os-release").symlink_to("../usr/lib/os-release")
    (etc / "shadow").write_text("root:hash")
    (etc / "passwd").write_text("root:x:0:0\nann:x:1000:1000\n")
    (etc / "python3.11").mkdir()
    (etc / "python3.11" / "sitecustomize.py").write_text("# debian")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "resolv.conf").write_text("nameserver 127.0.0.53\n")
    (etc / "resolv.conf").symlink_to(tmp_path / "run" / "resolv.conf")
    return etc


def test_the_sandbox_etc_copies_only_what_everyone_may_read_and_names_only_the_sandbox_user(tmp_path: Path) -> None:
    from codexec_mcp.host import build_etc

    etc = build_etc(tmp_path / "state", 65534, 65534, network=False, source=fake_etc(tmp_path))
    names = sorted(str(p.relative_to(etc)) for p in etc.rglob("*"))
    assert names == [
        "group",
        "hosts",
        "os-release",
        "passwd",
        "python3.11",
        "python3.11/sitecustomize.py",
        "ssl",
        "ssl/certs",
        "ssl/certs/bundle.crt",
        "ssl/certs/one.pem",
    ]
    assert os.readlink(etc / "os-release") == "../usr/lib/os-release"  # resolved inside the sandbox
    assert "ann" not in (etc / "passwd").read_text() and "sandbox:x:65534" in (etc / "passwd").read_text()
    assert "localhost" in (etc / "hosts").read_text()
    assert oct(etc.stat().st_mode & 0o777) == "0o700"  # private, like everything under ANNABELLE_HOME
    assert {oct(p.lstat().st_mode & 0o777) for p in etc.rglob("*") if not p.is_symlink()} == {"0o700", "0o600"}


def test_with_the_network_on_the_resolver_files_are_copied_as_they_are(tmp_path: Path) -> None:
    from codexec_mcp.host import build_etc

    source = fake_etc(tmp_path)
    (source / "hosts").write_text("127.0.0.1 localhost\n10.0.0.2 nas\n")
    first = build_etc(tmp_path / "state", 1000, 1000, network=True, source=source)
    assert (first / "resolv.conf").read_text() == "nameserver 127.0.0.53\n" and not (first / "resolv.conf").is_symlink()
    assert "nas" in (first / "hosts").read_text()
    again = build_etc(tmp_path / "state", 1000, 1000, network=False, source=source)
    assert again == first and not (again / "resolv.conf").exists()
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["etc"]
