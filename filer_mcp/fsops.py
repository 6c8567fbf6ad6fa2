"""File operations that cannot be redirected by symlinks, and writes that are never seen half-done.

Every operation starts from an already-resolved base directory (the workspace or a grant root) and walks the
relative path one component at a time with `O_NOFOLLOW | O_DIRECTORY`, each step relative to the previous
directory's descriptor. A component that became a symlink after `paths.resolve_path` checked it makes the walk
fail with `ELOOP` instead of leaving the base. Final components are opened with `O_NOFOLLOW` too; renames and
unlinks act on the directory entry itself, never on a symlink's target.

Writes go to a fresh temporary file in the destination directory, are fsynced, then moved into place with
`rename` (replace) or `link` (create only if absent), so readers see the old file or the new one, never a mix.

OS errors propagate as `OSError`; the service turns them into sentences.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shared.private_files import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE

EntryKind = Literal["file", "directory", "symlink", "other"]

CHUNK_BYTES = 1024 * 1024
TEMP_SUFFIX = ".filer-tmp"

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO planted in the workspace must not hang the server; regular files ignore it.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# Filesystems without hard links answer these; creation then falls back to check-and-rename.
_NO_HARDLINK_ERRNOS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV})


class FsError(Exception):
    """A file-level refusal that is not an `OSError`."""


class FileTooLarge(FsError):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size} bytes is more than the limit of {limit}")
        self.size = size
        self.limit = limit


class NotRegularFile(FsError):
    def __init__(self, kind: EntryKind) -> None:
        super().__init__(f"not a regular file but a {kind}")
        self.kind = kind


@dataclass(frozen=True)
class Entry:
    """One directory entry found by `walk`; `parts` are relative to the walked directory."""

    parts: tuple[str, ...]
    kind: EntryKind
    size: int
    mtime: float


@dataclass(frozen=True)
class WalkResult:
    entries: list[Entry]
    truncated: bool


def kind_of(mode: int) -> EntryKind:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


@contextlib.contextmanager
def open_directory(base: Path, parts: Sequence[str], *, create: bool = False) -> Iterator[int]:
    """A descriptor of the directory `base/parts`, reached without following any symlink below `base`.

    `base` itself was resolved when it was checked; `O_NOFOLLOW` makes a base later swapped for a symlink fail too.
    """
    fd = _open_directory_nofollow(base)
    try:
        for part in parts:
            try:
                child = _open_directory_nofollow(part, fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, PRIVATE_DIR_MODE, dir_fd=fd)
                child = _open_directory_nofollow(part, fd)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _open_directory_nofollow(name: str | Path, dir_fd: int | None = None) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except NotADirectoryError:
        # Linux answers ENOTDIR for a symlink under O_DIRECTORY | O_NOFOLLOW; report it as the symlink it is.
        if stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, "symbolic link refused", name) from None
        raise


def lstat_entry(base: Path, parts: Sequence[str]) -> os.stat_result:
    """The entry's own status (a symlink is reported as a symlink)."""
    if not parts:
        return os.stat(base)
    with open_directory(base, parts[:-1]) as dir_fd:
        return os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)


def exists(base: Path, parts: Sequence[str]) -> bool:
    try:
        lstat_entry(base, parts)
    except FileNotFoundError:
        return False
    return True


@contextlib.contextmanager
def open_regular_file(base: Path, parts: Sequence[str]) -> Iterator[tuple[int, os.stat_result]]:
    """An open descriptor of a regular file, with its status; anything else raises."""
    if not parts:
        raise NotRegularFile("directory")
    with open_directory(base, parts[:-1]) as dir_fd:
        fd = os.open(parts[-1], _READ_FLAGS, dir_fd=dir_fd)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotRegularFile(kind_of(status.st_mode))
        yield fd, status
    finally:
        os.close(fd)


def read_chunks(fd: int) -> Iterator[bytes]:
    while chunk := os.read(fd, CHUNK_BYTES):
        yield chunk


def _read_all(fd: int, status: os.stat_result, max_bytes: int) -> bytes:
    if status.st_size > max_bytes:
        raise FileTooLarge(status.st_size, max_bytes)
    chunks: list[bytes] = []
    total = 0
    for chunk in read_chunks(fd):
        total += len(chunk)
        # The file may grow between fstat and read.
        if total > max_bytes:
            raise FileTooLarge(total, max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def read_bytes(base: Path, parts: Sequence[str], max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The whole content of a regular file, refused with `FileTooLarge` above `max_bytes`."""
    with open_regular_file(base, parts) as (fd, status):
        return _read_all(fd, status, max_bytes), status


def atomic_write(
    base: Path,
    parts: Sequence[str],
    chunks: Iterable[bytes],
    *,
    overwrite: bool,
    make_parents: bool = True,
    mode: int | None = None,
) -> int:
    """Write `chunks` to `base/parts` atomically; return the bytes written.

    With `overwrite=False` an existing entry raises `FileExistsError` and is left untouched.
    """
    if not parts:
        raise IsADirectoryError(errno.EISDIR, "the base directory itself is not a file")
    name = parts[-1]
    with open_directory(base, parts[:-1], create=make_parents) as dir_fd:
        temp = f".{secrets.token_hex(8)}{TEMP_SUFFIX}"
        fd = os.open(temp, _TEMP_FLAGS, PRIVATE_FILE_MODE, dir_fd=dir_fd)
        placed = False
        try:
            written = 0
            try:
                if mode is not None:
                    os.fchmod(fd, stat.S_IMODE(mode))
                for chunk in chunks:
                    view = memoryview(chunk)
                    while view:
                        count = os.write(fd, view)
                        view = view[count:]
                        written += count
                os.fsync(fd)
            finally:
                os.close(fd)
            if overwrite:
                os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                placed = True
            else:
                _place_without_replacing(dir_fd, temp, name)
        finally:
            if not placed:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=dir_fd)
        # The rename is durable only once the directory itself is on disk.
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)
        return written


def _place_without_replacing(dir_fd: int, temp: str, name: str) -> None:
    """Give the temporary file its final name only if that name is free; the temp name is removed after."""
    try:
        os.link(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in _NO_HARDLINK_ERRNOS:
            raise
        # No hard links here: a small window remains between the check and the rename.
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            return
        raise FileExistsError(errno.EEXIST, "File exists", name) from None


def copy_file(source_base: Path, source_parts: Sequence[str], target_base: Path, target_parts: Sequence[str]) -> int:
    """Copy a regular file to a new name (never replacing); return the bytes copied."""
    with open_regular_file(source_base, source_parts) as (fd, status):
        return atomic_write(target_base, target_parts, read_chunks(fd), overwrite=False, mode=status.st_mode)


def backup_and_replace(base: Path, parts: Sequence[str], content: bytes, *, backup_name: str | None) -> int:
    """Replace an existing regular file, first copying it to `backup_name` beside it when given."""
    with open_regular_file(base, parts) as (fd, status):
        if backup_name is not None:
            backup_parts = (*parts[:-1], backup_name)
            atomic_write(base, backup_parts, read_chunks(fd), overwrite=True, mode=status.st_mode)
        return atomic_write(base, parts, [content], overwrite=True, make_parents=False, mode=status.st_mode)


def backup_and_extend(
    base: Path, parts: Sequence[str], addition: bytes, *, backup_name: str | None, max_bytes: int
) -> int:
    """Add `addition` at the end of an existing regular file, on a line of its own; return the new size.

    The file is rewritten whole by `atomic_write`, as a replace is, so a reader never sees half an append;
    `FileTooLarge` when the result would pass `max_bytes` (it must stay readable by read_file).
    """
    with open_regular_file(base, parts) as (fd, status):
        old = _read_all(fd, status, max_bytes)
        separator = b"\n" if old and not old.endswith(b"\n") else b""
        content = old + separator + addition
        if len(content) > max_bytes:
            raise FileTooLarge(len(content), max_bytes)
        if backup_name is not None:
            atomic_write(base, (*parts[:-1], backup_name), [old], overwrite=True, mode=status.st_mode)
        return atomic_write(base, parts, [content], overwrite=True, make_parents=False, mode=status.st_mode)


def remove_entry(base: Path, parts: Sequence[str]) -> EntryKind:
    """Delete a file, a symlink (not its target) or an empty directory; return what it was."""
    if not parts:
        raise IsADirectoryError(errno.EISDIR, "the base directory itself cannot be removed")
    with open_directory(base, parts[:-1]) as dir_fd:
        kind = kind_of(os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False).st_mode)
        if kind == "directory":
            os.rmdir(parts[-1], dir_fd=dir_fd)
        else:
            os.unlink(parts[-1], dir_fd=dir_fd)
        return kind


def rename_entry(base: Path, source_parts: Sequence[str], target_parts: Sequence[str]) -> EntryKind:
    """Move an entry to a name that must not exist yet; missing parent folders of the target are created."""
    if not source_parts or not target_parts:
        raise IsADirectoryError(errno.EISDIR, "the base directory itself cannot be moved or replaced")
    with (
        open_directory(base, source_parts[:-1]) as source_dir,
        open_directory(base, target_parts[:-1], create=True) as target_dir,
    ):
        kind = kind_of(os.stat(source_parts[-1], dir_fd=source_dir, follow_symlinks=False).st_mode)
        try:
            os.stat(target_parts[-1], dir_fd=target_dir, follow_symlinks=False)
        except FileNotFoundError:
            os.rename(source_parts[-1], target_parts[-1], src_dir_fd=source_dir, dst_dir_fd=target_dir)
            return kind
        raise FileExistsError(errno.EEXIST, "File exists", target_parts[-1])


def walk(
    base: Path,
    parts: Sequence[str],
    *,
    recursive: bool,
    max_entries: int,
    skip: Callable[[tuple[str, ...]], bool] = lambda _parts: False,
    max_depth: int = 32,
) -> WalkResult:
    """Entries under the directory `base/parts`, sorted by name, never following symlinks.

    `skip(parts)` (parts relative to `base`) hides an entry and everything under it.
    """
    entries: list[Entry] = []
    prefix = tuple(parts)

    def visit(dir_fd: int, relative: tuple[str, ...], depth: int) -> bool:
        with os.scandir(dir_fd) as iterator:
            found = sorted(iterator, key=lambda item: item.name)
        for item in found:
            entry_parts = (*relative, item.name)
            if skip((*prefix, *entry_parts)):
                continue
            try:
                status = item.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if len(entries) >= max_entries:
                return False
            kind = kind_of(status.st_mode)
            entries.append(Entry(entry_parts, kind, status.st_size, status.st_mtime))
            if kind == "directory" and recursive and depth < max_depth:
                try:
                    child = _open_directory_nofollow(item.name, dir_fd)
                except OSError:
                    continue
                try:
                    if not visit(child, entry_parts, depth + 1):
                        return False
                finally:
                    os.close(child)
        return True

    with open_directory(base, parts) as start:
        complete = visit(start, (), 0)
    return WalkResult(entries, truncated=not complete)


def remove_files_older_than(base: Path, parts: Sequence[str], cutoff: float) -> int:
    """Delete files and symlinks under `base/parts` last modified before `cutoff`; folders stay."""
    try:
        found = walk(base, parts, recursive=True, max_entries=1_000_000)
    except FileNotFoundError:
        return 0
    removed = 0
    for entry in found.entries:
        if entry.kind == "directory" or entry.mtime >= cutoff:
            continue
        full = (*parts, *entry.parts)
        with contextlib.suppress(OSError):
            with open_directory(base, full[:-1]) as dir_fd:
                os.unlink(full[-1], dir_fd=dir_fd)
            removed += 1
    return removed
