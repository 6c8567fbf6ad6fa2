"""Building a real CodeExec service (real bubblewrap sandbox) for tests; tests that need one skip, saying why,
on a machine where the sandbox cannot start (CI installs bubblewrap, see .ci/run)."""

from __future__ import annotations

import os
import shutil
import zipfile
from base64 import urlsafe_b64encode
from functools import cache
from hashlib import sha256
from pathlib import Path
from typing import Any

import pytest

from codexec_mcp.host import SandboxUnavailable, build_host
from codexec_mcp.service import CodeExec
from codexec_mcp.settings import CodexecSettings
from shared.settings import load_settings


def codexec_settings(home: Path, **overrides: Any) -> CodexecSettings:
    return load_settings(CodexecSettings, annabelle_home=home, **overrides)


@cache
def sandbox_unavailable_reason() -> str | None:
    """Why no bubblewrap sandbox can start here (checked once per test run), or None."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap); CI installs it"
    probe_home = Path(os.environ.get("TMPDIR", "/tmp")) / f"codexec-probe-{os.getpid()}"
    try:
        build_host(codexec_settings(probe_home))
    except SandboxUnavailable as exc:
        return f"the sandbox cannot start on this machine: {exc}"
    finally:
        shutil.rmtree(probe_home, ignore_errors=True)
    return None


def require_sandbox() -> None:
    reason = sandbox_unavailable_reason()
    if reason:
        pytest.skip(reason)


def require_node() -> None:
    if shutil.which("node", path="/usr/local/bin:/usr/bin:/bin") is None:
        pytest.skip("Node.js is not installed (apt-get install nodejs)")


def build_service(home: Path, **overrides: Any) -> CodeExec:
    require_sandbox()
    settings = codexec_settings(home, **overrides)
    return CodeExec(settings, build_host(settings), None)


def processes_with(text: str) -> list[int]:
    """Host pids whose command line contains `text` (sandboxed processes are visible from outside)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as handle:
                    if text.encode() in handle.read():
                        found.append(int(name))
            except OSError:
                continue
    return found


def build_wheel(folder: Path, name: str = "tinypkg", version: str = "1.0", value: int = 42) -> Path:
    """A minimal pure-Python wheel (`import tinypkg; tinypkg.VALUE`), built by hand: no network, no build tool."""
    files = {
        f"{name}/__init__.py": f"VALUE = {value}\n",
        f"{name}-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{name}-{version}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = urlsafe_b64encode(sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{name}-{version}.dist-info/RECORD,,")
    files[f"{name}-{version}.dist-info/RECORD"] = "\n".join(record) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel
