"""Pure per-language facts: which interpreter runs a language, how a file or a session is started, and what to
install when the interpreter is missing."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

Language = Literal["python", "node", "bash"]
SessionLanguage = Literal["python", "node"]
PackageLanguage = Literal["python", "node"]

LANGUAGES: tuple[Language, ...] = ("python", "node", "bash")
INTERPRETERS: dict[Language, str] = {"python": "python3", "node": "node", "bash": "bash"}
EXTENSIONS: dict[Language, str] = {"python": "py", "node": "js", "bash": "sh"}
DRIVERS: dict[SessionLanguage, str] = {"python": "python_driver.py", "node": "node_driver.js"}
INSTALL_HINTS: dict[Language, str] = {
    "python": "Python 3 (Debian/Ubuntu: apt-get install python3)",
    "node": "Node.js (Debian/Ubuntu: apt-get install nodejs npm)",
    "bash": "bash (Debian/Ubuntu: apt-get install bash)",
}


def find_interpreter(name: str, directories: Sequence[str], is_executable: Callable[[str], bool]) -> str | None:
    """The first `directories/name` that is executable: the sandbox sees the same system folders, so the
    host path is also the path inside it."""
    for directory in directories:
        candidate = f"{directory.rstrip('/')}/{name}"
        if is_executable(candidate):
            return candidate
    return None


def missing_interpreter(language: Language) -> str:
    return (
        f"{language} code cannot run: its interpreter ({INTERPRETERS[language]}) is not installed on this machine. "
        f"Install {INSTALL_HINTS[language]}, then restart the hub."
    )


_NODE_VERSION = re.compile(r"v?(\d+)\.(\d+)")


def node_flags(version: str) -> list[str]:
    """Node before 22.12 runs an ambiguous `.js` file as CommonJS only, so `import` or top-level `await` fail;
    `--experimental-detect-module` (since 20.10, the default from 22.12) runs such a file as an ES module and
    leaves `require` working for the rest, which is what model-written snippets mix."""
    match = _NODE_VERSION.match(version.strip())
    if match is None:
        return []
    major, minor = int(match.group(1)), int(match.group(2))
    if (major, minor) >= (22, 12) or (major, minor) < (20, 10):
        return []
    return ["--experimental-detect-module"]


def file_command(
    language: Language, interpreter: str, code_file: str, args: Sequence[str], extra_flags: Sequence[str] = ()
) -> list[str]:
    """Run one code file; `args` become `sys.argv[1:]`, `process.argv.slice(2)` or `$1…`."""
    if language == "node":
        return [interpreter, *extra_flags, code_file, *args]
    return [interpreter, code_file, *args]


def session_command(language: SessionLanguage, interpreter: str, driver_file: str) -> list[str]:
    """Start a session driver (see `drivers/`): Python unbuffered so output and the end marker keep their order."""
    if language == "python":
        return [interpreter, "-u", driver_file]
    return [interpreter, driver_file]
