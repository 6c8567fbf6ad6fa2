"""Where import_memory may read and export_memory may write. Pure except for resolving symlinks.

Only below the export folder (MEMORY_EXPORT_PATH) or the Filer's workspace. A relative path is taken below the
export folder. The path is refused if it has a `..` part, a NUL, or if, once every symlink is resolved, it lies
outside both roots (compared by whole path components, so `/exports-evil` is not inside `/exports`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePath

from shared.mcp_tools import NotAllowed


def confine(raw: str, roots: Sequence[Path], *, what: str = "path") -> Path:
    """The resolved path for `raw`, or `NotAllowed` saying where it must be. `roots[0]` anchors relative paths."""
    text = raw.strip()
    allowed = " or ".join(str(root) for root in roots)
    if not text or "\x00" in text:
        raise NotAllowed(f"The {what} is empty or malformed; give a file below {allowed}.")
    candidate = PurePath(text)
    if ".." in candidate.parts:
        raise NotAllowed(f"The {what} '{text}' uses '..'; give a path below {allowed}.")
    if text.startswith("~"):
        raise NotAllowed(f"The {what} '{text}' starts with '~'; give a path below {allowed}.")
    path = Path(text) if candidate.is_absolute() else roots[0] / candidate
    resolved = path.resolve(strict=False)
    for root in roots:
        if resolved == root.resolve(strict=False) or resolved.is_relative_to(root.resolve(strict=False)):
            return resolved
    raise NotAllowed(f"The {what} '{text}' is outside the memory export folder and the workspace ({allowed}).")
