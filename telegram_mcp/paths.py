"""Media files stay inside the Filer workspace: no '..', no absolute path outside it, no symlink out of it."""

from __future__ import annotations

from pathlib import Path, PurePath

from shared.mcp_tools import InvalidArguments, NotAllowed


def confine(workspace: Path, raw: str) -> Path:
    """The resolved path of `raw` (relative to the workspace, or absolute inside it), or NotAllowed."""
    if not raw or not raw.strip():
        raise InvalidArguments("The path is empty.")
    if "\x00" in raw:
        raise InvalidArguments("The path contains a NUL character.")
    given = PurePath(raw)
    if ".." in given.parts or raw.startswith("~"):
        raise NotAllowed(f"'{raw}' is refused: '..' and '~' are not allowed; use a path inside the workspace.")
    root = workspace.resolve()
    candidate = (root / given).resolve()
    if not candidate.is_relative_to(root):
        raise NotAllowed(f"'{raw}' is outside the workspace ({root}).")
    return candidate
