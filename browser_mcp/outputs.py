"""Files the browser hands to the user: screenshots and saved snapshots, written into the Filer's workspace.

Everything goes to `<workspace>/browser/`, under a plain file name (letters, digits, `.`, `_`, `-`; no folders),
so a page or a model cannot aim a write anywhere else. A name that exists is refused, not overwritten, and the
bytes are written to a temporary file first and then renamed, so no half-written file is ever visible. The
result is the path relative to the workspace, which `filer_read_file` and the user understand.
"""

from __future__ import annotations

import os
import re
import secrets
from datetime import datetime
from pathlib import Path

SUBFOLDER = "browser"
MAX_NAME_LENGTH = 100
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class OutputRefused(ValueError):
    """The file name or the workspace cannot be used; the message says why."""


def output_name(requested: str | None, *, kind: str, extension: str, now: datetime) -> str:
    """The file name to write: `requested` checked (and given `extension` if it has none), or `<kind>-<time>.<ext>`."""
    if requested is None or not requested.strip():
        return f"{kind}-{now.strftime('%Y%m%d-%H%M%S-%f')[:-3]}.{extension}"
    name = requested.strip()
    if len(name) > MAX_NAME_LENGTH or not _NAME.fullmatch(name) or ".." in name:
        raise OutputRefused(
            f"{name[:60]!r} is not a plain file name: use up to {MAX_NAME_LENGTH} letters, digits, '.', '_' or '-' "
            f"(no folders); it is saved in the workspace's {SUBFOLDER}/ folder."
        )
    if "." not in name:
        name = f"{name}.{extension}"
    return name


def write_output(workspace: Path, name: str, content: bytes) -> str:
    """Write `content` to `<workspace>/browser/<name>` (never overwriting); returns `browser/<name>`."""
    root = workspace.resolve()
    folder = root / SUBFOLDER
    folder.mkdir(parents=True, exist_ok=True)
    if not folder.resolve().is_relative_to(root) or folder.is_symlink():
        raise OutputRefused(f"The workspace's {SUBFOLDER}/ folder leads outside the workspace; refused.")
    final = folder / name
    if final.exists() or final.is_symlink():
        raise OutputRefused(f"{SUBFOLDER}/{name} already exists in the workspace; choose another file name.")
    temporary = folder / f".{name}.{secrets.token_hex(4)}.part"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
        # link() fails if the name appeared meanwhile: never overwrite what someone else just wrote.
        os.link(temporary, final)
    except FileExistsError:
        raise OutputRefused(f"{SUBFOLDER}/{name} already exists in the workspace; choose another file name.") from None
    finally:
        temporary.unlink(missing_ok=True)
    return f"{SUBFOLDER}/{name}"


def upload_path(workspace: Path, raw: str) -> Path:
    """The real path of a workspace file to upload; refused if it leaves the workspace or is not a file."""
    root = workspace.resolve()
    text = raw.strip()
    if not text or "\x00" in text:
        raise OutputRefused("An upload path is empty; give paths relative to the workspace, e.g. 'docs/cv.pdf'.")
    candidate = Path(text)
    real = (candidate if candidate.is_absolute() else root / candidate).resolve()
    if not real.is_relative_to(root):
        raise OutputRefused(f"{text[:100]!r} is outside the workspace; only workspace files can be uploaded.")
    if not real.is_file():
        raise OutputRefused(f"{text[:100]!r} is not a file in the workspace.")
    return real
