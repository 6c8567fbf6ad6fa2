"""An append-only file that several processes may write and rotate at once.

Rotation is by size: past `max_bytes` the file becomes `<name>.1` (older copies shift up to `<name>.<backups>`)
and a new one starts. It stays correct when several processes append to one file (the shared `traces.jsonl`, or
two processes started with the same service name):

- every line is one `write()` on an `O_APPEND` descriptor, so lines never interleave or overwrite each other;
- a writer checks the file's size at most once a second (or after writing a sixteenth of the limit itself);
  over the limit, it takes an exclusive `flock` on `logs/.rotate.lock`, checks again (another process may have
  rotated meanwhile) and only then shifts `<name>.N-1` → `<name>.N` … `<name>` → `<name>.1`;
- a writer whose open file is no longer the one at the path (rotated by someone else, or deleted) reopens the
  path. Until it notices (within a second), its lines land in `<name>.1`: late, never lost.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from shared.private_files import open_private

try:  # POSIX; elsewhere rotation runs without the cross-process lock (one writer per file is then assumed)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

MAX_LOG_BYTES = 10 * 1024 * 1024
LOG_BACKUPS = 5
ROTATE_LOCK_NAME = ".rotate.lock"
CHECK_SECONDS = 1.0


def rotated_paths(path: Path, backups: int) -> list[Path]:
    """`path` and its rotated copies, newest first: `x.log`, `x.log.1`, … `x.log.<backups>`."""
    return [path, *(path.with_name(f"{path.name}.{index}") for index in range(1, backups + 1))]


class RotatingAppendFile:
    """An append-only file that several processes may write and rotate at once (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        max_bytes: int = MAX_LOG_BYTES,
        backups: int = LOG_BACKUPS,
        *,
        check_seconds: float = CHECK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.backups = backups
        self.check_seconds = check_seconds
        self.clock = clock
        self._fd = -1
        self._next_check = 0.0
        self._written = 0
        # Threads of one process (logging handlers run on any thread) share the descriptor; swapping it
        # while another thread writes must not lose that line.
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            if self._fd < 0:
                self._open()
            os.write(self._fd, data)
            self._written += len(data)
            now = self.clock()
            if now >= self._next_check or self._written >= self.max_bytes // 16:
                self._next_check = now + self.check_seconds
                self._written = 0
                self._check()

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def _open(self) -> None:
        fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = fd

    def _check(self) -> None:
        try:
            at_path = os.stat(self.path)
        except FileNotFoundError:
            self._open()  # deleted (or rotated with no backups kept): start the file again
            return
        mine = os.fstat(self._fd)
        if (at_path.st_ino, at_path.st_dev) != (mine.st_ino, mine.st_dev):
            self._open()  # another process rotated it: follow the path
            return
        if at_path.st_size >= self.max_bytes:
            self.rotate()

    def rotate(self) -> None:
        """Shift the rotated copies and start a new file, unless another process just did (caller holds _lock)."""
        with _rotation_lock(self.path.parent / ROTATE_LOCK_NAME):
            try:
                size = os.stat(self.path).st_size
            except FileNotFoundError:
                size = 0
            if size >= self.max_bytes:
                paths = rotated_paths(self.path, self.backups)
                if self.backups == 0:
                    self.path.unlink(missing_ok=True)
                for newer, older in reversed(list(itertools.pairwise(paths))):
                    if newer.exists():
                        os.replace(newer, older)
            self._open()


@contextmanager
def _rotation_lock(path: Path) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    fd = open_private(path, os.O_WRONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
