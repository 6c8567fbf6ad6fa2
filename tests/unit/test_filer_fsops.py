"""File operations below a checked base folder: symlink-proof walks and all-or-nothing writes."""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from filer_mcp import fsops


@pytest.fixture
def base(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "canary.txt").write_text("canary")
    return folder


def _leftovers(folder: Path) -> list[str]:
    return [path.name for path in folder.rglob(f"*{fsops.TEMP_SUFFIX}")]


def test_an_atomic_write_creates_missing_folders_and_leaves_no_temporary_file(base: Path) -> None:
    written = fsops.atomic_write(base, ("a", "b", "c.txt"), [b"hello ", b"world"], overwrite=False)
    assert written == 11
    assert (base / "a" / "b" / "c.txt").read_text() == "hello world"
    assert _leftovers(base) == []


def test_creating_over_an_existing_file_fails_and_keeps_the_old_content(base: Path) -> None:
    (base / "f.txt").write_text("old")
    with pytest.raises(FileExistsError):
        fsops.atomic_write(base, ("f.txt",), [b"new"], overwrite=False)
    assert (base / "f.txt").read_text() == "old"
    assert _leftovers(base) == []


def test_creating_over_a_dangling_symlink_fails_instead_of_writing_where_it_points(base: Path, outside: Path) -> None:
    (base / "dangling").symlink_to(outside / "planted.txt")
    with pytest.raises(FileExistsError):
        fsops.atomic_write(base, ("dangling",), [b"x"], overwrite=False)
    assert not (outside / "planted.txt").exists()


def test_replacing_a_symlink_replaces_the_link_and_never_writes_through_it(base: Path, outside: Path) -> None:
    (base / "link").symlink_to(outside / "canary.txt")
    fsops.atomic_write(base, ("link",), [b"new"], overwrite=True)
    assert (outside / "canary.txt").read_text() == "canary"
    assert not (base / "link").is_symlink()
    assert (base / "link").read_text() == "new"


def test_a_write_that_fails_midway_leaves_the_old_file_whole_and_no_temporary_file(base: Path) -> None:
    (base / "f.txt").write_text("old content")

    def chunks() -> Iterator[bytes]:
        yield b"partial"
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        fsops.atomic_write(base, ("f.txt",), chunks(), overwrite=True)
    assert (base / "f.txt").read_text() == "old content"
    assert _leftovers(base) == []


def test_a_parent_folder_swapped_for_a_symlink_after_the_check_stops_the_write(base: Path, outside: Path) -> None:
    # The race: the path was checked while `sub` was a real folder, then `sub` became a link to outside.
    (base / "sub").symlink_to(outside)
    with pytest.raises(OSError) as caught:
        fsops.atomic_write(base, ("sub", "planted.txt"), [b"x"], overwrite=True)
    assert caught.value.errno == errno.ELOOP
    assert sorted(path.name for path in outside.iterdir()) == ["canary.txt"]


def test_a_final_component_swapped_for_a_symlink_after_the_check_is_not_read(base: Path, outside: Path) -> None:
    (base / "f.txt").symlink_to(outside / "canary.txt")
    with pytest.raises(OSError) as caught:
        fsops.read_bytes(base, ("f.txt",), 1000)
    assert caught.value.errno == errno.ELOOP


def test_reading_refuses_what_is_not_a_regular_file(base: Path) -> None:
    os.mkfifo(base / "pipe")
    (base / "folder").mkdir()
    with pytest.raises(fsops.NotRegularFile) as caught:
        fsops.read_bytes(base, ("pipe",), 1000)
    assert caught.value.kind == "other"
    with pytest.raises(fsops.NotRegularFile) as caught:
        fsops.read_bytes(base, ("folder",), 1000)
    assert caught.value.kind == "directory"
    with pytest.raises(fsops.NotRegularFile):
        fsops.read_bytes(base, (), 1000)


def test_reading_refuses_a_file_above_the_limit(base: Path) -> None:
    (base / "big.txt").write_bytes(b"x" * 101)
    with pytest.raises(fsops.FileTooLarge) as caught:
        fsops.read_bytes(base, ("big.txt",), 100)
    assert (caught.value.size, caught.value.limit) == (101, 100)
    assert fsops.read_bytes(base, ("big.txt",), 101)[0] == b"x" * 101


def test_replacing_keeps_a_backup_and_the_file_mode(base: Path) -> None:
    (base / "f.txt").write_text("v1")
    (base / "f.txt").chmod(0o640)
    fsops.backup_and_replace(base, ("f.txt",), b"v2", backup_name="f.txt.bak")
    assert (base / "f.txt").read_text() == "v2"
    assert (base / "f.txt.bak").read_text() == "v1"
    assert stat.S_IMODE((base / "f.txt").stat().st_mode) == 0o640


def test_replacing_a_hard_linked_file_never_changes_the_other_link(base: Path, outside: Path) -> None:
    # A hard link into the workspace shares the inode; an atomic replace gives the workspace a new inode.
    os.link(outside / "canary.txt", base / "hard.txt")
    fsops.backup_and_replace(base, ("hard.txt",), b"changed", backup_name=None)
    assert (outside / "canary.txt").read_text() == "canary"
    assert (base / "hard.txt").read_text() == "changed"


def test_removing_a_symlink_removes_the_link_not_its_target(base: Path, outside: Path) -> None:
    (base / "link").symlink_to(outside)
    assert fsops.remove_entry(base, ("link",)) == "symlink"
    assert (outside / "canary.txt").exists()
    assert not (base / "link").exists()


def test_removing_refuses_a_folder_that_is_not_empty_and_the_base_itself(base: Path) -> None:
    (base / "d").mkdir()
    (base / "d" / "f.txt").write_text("x")
    with pytest.raises(OSError) as caught:
        fsops.remove_entry(base, ("d",))
    assert caught.value.errno in (errno.ENOTEMPTY, errno.EEXIST)
    with pytest.raises(IsADirectoryError):
        fsops.remove_entry(base, ())
    (base / "d" / "f.txt").unlink()
    assert fsops.remove_entry(base, ("d",)) == "directory"


def test_renaming_never_replaces_an_existing_entry(base: Path) -> None:
    (base / "a.txt").write_text("a")
    (base / "b.txt").write_text("b")
    with pytest.raises(FileExistsError):
        fsops.rename_entry(base, ("a.txt",), ("b.txt",))
    assert fsops.rename_entry(base, ("a.txt",), ("new", "c.txt")) == "file"
    assert (base / "new" / "c.txt").read_text() == "a"
    assert (base / "b.txt").read_text() == "b"


def test_copying_makes_a_new_file_and_never_replaces(base: Path) -> None:
    (base / "a.txt").write_text("content")
    assert fsops.copy_file(base, ("a.txt",), base, ("copies", "a.txt")) == 7
    with pytest.raises(FileExistsError):
        fsops.copy_file(base, ("a.txt",), base, ("copies", "a.txt"))
    assert (base / "copies" / "a.txt").read_text() == "content"


def test_walking_lists_symlinks_without_descending_into_them(base: Path, outside: Path) -> None:
    (base / "d").mkdir()
    (base / "d" / "f.txt").write_text("x")
    (base / "link").symlink_to(outside)
    found = fsops.walk(base, (), recursive=True, max_entries=100)
    assert [(entry.parts, entry.kind) for entry in found.entries] == [
        (("d",), "directory"),
        (("d", "f.txt"), "file"),
        (("link",), "symlink"),
    ]
    assert not found.truncated


def test_walking_hides_skipped_entries_and_reports_truncation(base: Path) -> None:
    for name in ("a", "b", "c"):
        (base / name).mkdir()
        (base / name / "f.txt").write_text("x")
    found = fsops.walk(base, (), recursive=True, max_entries=100, skip=lambda parts: parts[0] == "b")
    assert all(entry.parts[0] != "b" for entry in found.entries)
    limited = fsops.walk(base, (), recursive=True, max_entries=3)
    assert len(limited.entries) == 3
    assert limited.truncated


def test_walking_a_folder_reached_through_a_symlink_fails(base: Path, outside: Path) -> None:
    (base / "link").symlink_to(outside)
    with pytest.raises(OSError) as caught:
        fsops.walk(base, ("link",), recursive=False, max_entries=10)
    assert caught.value.errno == errno.ELOOP


def test_old_files_are_removed_from_temp_and_new_ones_and_folders_kept(base: Path, outside: Path) -> None:
    temp = base / "temp"
    (temp / "nested").mkdir(parents=True)
    old, new = temp / "nested" / "old.txt", temp / "new.txt"
    old.write_text("old")
    new.write_text("new")
    (temp / "old_link").symlink_to(outside / "canary.txt")
    week_ago = time.time() - 8 * 86_400
    os.utime(old, (week_ago, week_ago))
    os.utime(temp / "old_link", (week_ago, week_ago), follow_symlinks=False)
    assert fsops.remove_files_older_than(base, ("temp",), time.time() - 7 * 86_400) == 2
    assert not old.exists()
    assert new.exists()
    assert (temp / "nested").is_dir()
    assert (outside / "canary.txt").read_text() == "canary"


def test_cleaning_a_missing_temp_folder_removes_nothing(base: Path) -> None:
    assert fsops.remove_files_older_than(base, ("temp",), time.time()) == 0


def test_a_base_folder_swapped_for_a_symlink_after_it_was_resolved_is_refused(tmp_path: Path, outside: Path) -> None:
    granted = tmp_path / "granted"
    granted.symlink_to(outside)
    with pytest.raises(OSError) as caught:
        fsops.read_bytes(granted, ("canary.txt",), 1000)
    assert caught.value.errno == errno.ELOOP
