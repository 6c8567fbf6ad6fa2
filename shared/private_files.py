"""What Annabelle writes is private to its owner: files 0600, folders 0700.

Everything kept under `ANNABELLE_HOME` holds the user's content or a secret (logs, audit logs, databases,
sessions, exports, caches, tokens), and so does what the Filer writes into the workspace. Two layers make that
hold without every writer having to remember it:

- `restrict_new_files()` sets the process's umask to 077. `configure_logging` calls it, and every process (hub,
  Thinker, MCP servers, CLI commands that write) configures its logging before it writes anything, so whatever
  is created afterwards, by our code or a library's (SQLite's `-wal`/`-shm` files, a download), is at most
  0600/0700. Children inherit the umask.
- `private_dir`, `private_file` and `open_private` create the files and folders we know of with those modes
  explicitly and tighten one an older version left readable by others: re-opening a file keeps its mode, so
  `guardian-audit.jsonl` created 0644 once would otherwise stay 0644.

Only what is ours is tightened: ANNABELLE_HOME and its `logs` folder, and a file when we open it to write. Any
other folder that already exists (the workspace a user pointed FILER_WORKSPACE at, the parent of a database path
set by hand) keeps its mode.
"""

from __future__ import annotations

import logging
import os
import stat
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700
PRIVATE_UMASK = 0o077


def restrict_new_files() -> None:
    """From now on this process (and its children) create files 0600 and folders 0700 at most."""
    os.umask(PRIVATE_UMASK)


def private_dir(path: Path, *, ours: bool = False) -> Path:
    """`path` as a folder; the folders created here (parents included) are 0700. With `ours` (ANNABELLE_HOME,
    its `logs` folder), an existing folder is tightened to 0700 as well, unless it is the user's home folder."""
    if ours and path.is_dir() and path.resolve() != Path.home().resolve():
        try:
            if stat.S_IMODE(path.stat().st_mode) & 0o077:
                os.chmod(path, PRIVATE_DIR_MODE)
        except OSError as exc:
            log.warning("could not make a folder private", extra={"folder": str(path), "error": str(exc)})
    if not path.is_dir():
        for missing in reversed([path, *path.parents]):
            if not missing.exists():
                try:
                    os.mkdir(missing, PRIVATE_DIR_MODE)
                except FileExistsError:
                    continue  # created meanwhile by another process
                # mkdir's mode is filtered by the umask, which may be looser than ours.
                os.chmod(missing, PRIVATE_DIR_MODE)
    return path


def tighten(fd: int) -> None:
    """Take group and other permissions off an open file (best effort: a file we do not own stays as it is)."""
    try:
        mode = stat.S_IMODE(os.fstat(fd).st_mode)
        if mode & ~PRIVATE_FILE_MODE & 0o777:
            os.fchmod(fd, mode & PRIVATE_FILE_MODE)
    except OSError as exc:
        log.warning("could not make a file private", extra={"error": str(exc)})


def open_private(path: Path, flags: int) -> int:
    """`os.open(path, flags | O_CREAT)` creating the file 0600 (its folders 0700) and tightening an existing one."""
    private_dir(path.parent)
    fd = os.open(path, flags | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    tighten(fd)
    return fd


def private_file(path: Path) -> Path:
    """Make sure `path` exists 0600 before a library opens it with its own mode (SQLite creates 0644; its
    `-wal` and `-shm` files then copy the database file's mode)."""
    os.close(open_private(path, os.O_RDONLY))
    return path


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step, always 0600: a temporary file beside it, flushed to disk, then
    renamed over it, so a reader (or a crash) sees the old file or the new one, never half. The temporary file is
    removed when anything fails."""
    private_dir(path.parent)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
