"""Running the official `op` CLI: the 1Password MCP's one I/O seam.

`op` gets a minimal environment: what it needs to run (PATH, HOME, locale, temp dir, its config folder) and its
own `OP_*` variables, with `OP_SERVICE_ACCOUNT_TOKEN` from the settings. Nothing else of the hub's environment (its
token, model keys) reaches it. Arguments go to the process directly (no shell). A failure is one sentence: the
first line of op's `[ERROR]` message without its timestamp, with what to do for the usual causes. op's output is
never logged (it holds secrets); the log has the command's first two words and its exit code.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from shared.mcp_tools import ToolFailure
from shared.text import shorten

__all__ = ["NOT_CONFIGURED", "OpCli", "op_error"]

log = logging.getLogger(__name__)

NOT_CONFIGURED = (
    "1Password is not configured: set OP_SERVICE_ACCOUNT_TOKEN to a service account token "
    "(1Password → Developer → Service Accounts) in .env; the hub notices it and starts 1Password with it, no restart "
    "needed."
)
MAX_OUTPUT_BYTES = 8 * 1024 * 1024
_PASSED = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CONFIG_HOME", "USER")
_ERROR_PREFIX = re.compile(r"^\[ERROR\]\s+(?:\d{4}/\d{2}/\d{2}\s+\d{2}:\d{2}:\d{2}\s+)?")
_SIGNED_OUT = re.compile(r"not currently signed in|no accounts configured|authorization prompt|sign in", re.I)
_BAD_TOKEN = re.compile(r"service account|invalid token|token is invalid|unauthorized|401", re.I)


def op_error(stderr: str, returncode: int) -> str:
    """op's failure as one sentence a model or a person can act on (pure)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    first = _ERROR_PREFIX.sub("", lines[0]) if lines else f"op exited with status {returncode}"
    if _SIGNED_OUT.search(first):
        return NOT_CONFIGURED
    if _BAD_TOKEN.search(first):
        return f"1Password refused the service account token ({shorten(first, 200)}); check OP_SERVICE_ACCOUNT_TOKEN."
    return "1Password: " + shorten(first.rstrip("."), 300) + "."


class OpCli:
    """`op` with a token, a timeout and a minimal environment."""

    def __init__(self, executable: str, token: str | None, timeout: float, environ: Mapping[str, str]) -> None:
        self.executable = executable
        self.token = token
        self.timeout = timeout
        self.env = {key: environ[key] for key in _PASSED if key in environ}
        self.env.update({key: value for key, value in environ.items() if key.startswith("OP_")})
        if token:
            self.env["OP_SERVICE_ACCOUNT_TOKEN"] = token

    @property
    def configured(self) -> bool:
        return bool(self.token or self.env.get("OP_SERVICE_ACCOUNT_TOKEN") or self.env.get("OP_CONNECT_TOKEN"))

    async def run(self, args: Sequence[str]) -> str:
        """op's standard output for `op <args>`; a `ToolFailure` saying why when it fails."""
        if not self.configured:
            raise ToolFailure(NOT_CONFIGURED)
        command = [self.executable, *args]
        what = " ".join(args[:2])
        try:
            with anyio.fail_after(self.timeout):
                process = await anyio.run_process(command, env=self.env, check=False, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise ToolFailure(
                f"The 1Password CLI ({self.executable}) is not installed: install `op` from 1Password "
                "(docs/onepassword.md) or set ONEPASSWORD_CLI to its path."
            ) from None
        except PermissionError:
            raise ToolFailure(f"{self.executable} cannot be run (permission denied); check ONEPASSWORD_CLI.") from None
        except TimeoutError:
            log.warning("op timed out", extra={"command": what, "seconds": self.timeout})
            raise ToolFailure(
                f"1Password did not answer within {self.timeout:g} s; try again (ONEPASSWORD_TIMEOUT_SECONDS)."
            ) from None
        log.info("op ran", extra={"command": what, "exit": process.returncode})
        if process.returncode != 0:
            raise ToolFailure(op_error(process.stderr.decode("utf-8", "replace"), process.returncode))
        if len(process.stdout) > MAX_OUTPUT_BYTES:
            raise ToolFailure(f"1Password's answer is larger than {MAX_OUTPUT_BYTES // 1024 // 1024} MB; narrow it.")
        return process.stdout.decode("utf-8", "replace")

    async def json(self, args: Sequence[str]) -> Any:
        text = await self.run([*args, "--format", "json"])
        try:
            return json.loads(text) if text.strip() else None
        except json.JSONDecodeError:
            raise ToolFailure(
                "1Password's CLI answered something that is not JSON; is ONEPASSWORD_CLI the real op?"
            ) from None


def environment() -> dict[str, str]:
    return dict(os.environ)
