"""Pure package-install decisions: which package strings are accepted, and the pip/npm command that installs
one into the sandbox's own package folder (never the system's, never the server's)."""

from __future__ import annotations

import re

from codexec_mcp.languages import PackageLanguage
from codexec_mcp.sandbox import View

# A PEP 508 name with optional extras and version specifiers, nothing else: no URL, path, option or marker,
# so a package string can never turn into `--index-url`, `-r file` or `git+https://…`.
_PIP_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?"
_PIP_VERSION = r"(?:===|==|~=|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]{1,64}"
_PIP_SPEC = re.compile(
    rf"^(?P<name>{_PIP_NAME})(?:\[{_PIP_NAME}(?:\s*,\s*{_PIP_NAME})*\])?"
    rf"(?:\s*{_PIP_VERSION}(?:\s*,\s*{_PIP_VERSION})*)?$"
)
# npm: an optionally scoped lower-case name, optionally @ a version, range or tag; no URL, path or git spec.
_NPM_NAME = r"(?:@[a-z0-9][a-z0-9._-]{0,100}/)?[a-z0-9][a-z0-9._-]{0,100}"
_NPM_SPEC = re.compile(rf"^(?P<name>{_NPM_NAME})(?:@(?P<version>[A-Za-z0-9.^~<>=*+_-]{{1,64}}))?$")
_PIP_INSTALLED = re.compile(r"Successfully installed (.+)")


class BadPackage(ValueError):
    """The package string is not a plain name (with version); the message says what is accepted."""


def parse_package(language: PackageLanguage, spec: str) -> str:
    """The package's name, or `BadPackage`."""
    text = spec.strip()
    pattern = _PIP_SPEC if language == "python" else _NPM_SPEC
    match = pattern.match(text)
    if match is None:
        example = "'pandas', 'requests==2.32.3' or 'numpy>=2'" if language == "python" else "'lodash' or 'lodash@4'"
        raise BadPackage(f"'{spec[:80]}' is not a package name: give a name with an optional version, e.g. {example}.")
    return match.group("name")


def canonical_name(name: str) -> str:
    """PEP 503: runs of `-`, `_` and `.` are the same, case does not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pip_install_command(interpreter: str, spec: str, paths: View, *, network: bool) -> list[str]:
    """pip into the sandbox's package folder (on every sandboxed Python's `PYTHONPATH`). With a local wheel
    folder and no network, only that folder is used; with both, the folder is searched first."""
    command = [
        interpreter,
        "-m",
        "pip",
        "install",
        "--no-input",
        "--disable-pip-version-check",
        "--no-cache-dir",
        "--upgrade",
        "--target",
        paths.python_packages,
    ]
    if paths.wheels is not None:
        command += ["--find-links", paths.wheels]
        if not network:
            command.append("--no-index")
    return [*command, spec.strip()]


def npm_install_command(npm: str, spec: str, paths: View) -> list[str]:
    """npm into the sandbox's node folder (on every sandboxed Node's `NODE_PATH`)."""
    return [npm, "install", "--prefix", paths.node_prefix, "--no-audit", "--no-fund", "--no-update-notifier", spec]


def pip_installed_version(output: str, name: str) -> str | None:
    """The version pip reports for `name` in its 'Successfully installed a-1.0 b-2.0' line."""
    match = _PIP_INSTALLED.search(output)
    if match is None:
        return None
    wanted = canonical_name(name)
    for item in match.group(1).split():
        package, _, version = item.rpartition("-")
        if canonical_name(package) == wanted:
            return version
    return None


def install_blocked_reason(language: PackageLanguage, *, network: bool, has_wheels: bool) -> str | None:
    """Why an install cannot work in this configuration, or None. Installing needs the network (refused by
    default) unless Python wheels were put in a local folder."""
    if network or (language == "python" and has_wheels):
        return None
    local = (
        " or put the wheels in a folder and set CODEXEC_PIP_FIND_LINKS to it (installs then need no network)"
        if language == "python"
        else ""
    )
    manager = "pip" if language == "python" else "npm"
    return (
        f"Installing packages with {manager} needs the network, and the sandbox has none (CODEXEC_NETWORK=false, "
        f"the default). To allow it, set CODEXEC_NETWORK=true (sandboxed code can then reach the internet too){local}."
    )
