"""Tokens: the master token of the hub and per-agent tokens, compared in constant time.

The master token comes from `ANNABELLE_TOKEN`, else from `$ANNABELLE_HOME/annabelle.token`, which is created
(mode 0600) with a fresh random token on first start.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from shared.private_files import private_dir

TOKEN_HEADER = "X-Annabelle-Token"
TOKEN_FILENAME = "annabelle.token"


class TokenFileError(Exception):
    """The token file exists but cannot be used; the message says how to fix it."""


def generate_token() -> str:
    """A fresh URL-safe token with 256 bits of randomness."""
    return secrets.token_urlsafe(32)


def tokens_equal(given: str | None, expected: str) -> bool:
    """Constant-time comparison; a missing token never matches."""
    if not given:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


def token_path(home: Path) -> Path:
    return home / TOKEN_FILENAME


def load_or_create_token(home: Path) -> str:
    """Read the master token from `home`, creating it (0600) on first use.

    A token file readable by others is tightened to 0600 rather than trusted as is.
    """
    private_dir(home, ours=True)
    path = token_path(home)
    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if not token:
            raise TokenFileError(f"The token file {path} is empty: delete it and a new token will be generated.")
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        return token
    token = generate_token()
    # O_EXCL: two processes racing on first start must not both write different tokens.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_or_create_token(home)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
    return token


def read_token(home: Path, env_token: str | None) -> str | None:
    """The master token a client (CLI, tests) should send, without creating anything."""
    if env_token:
        return env_token
    path = token_path(home)
    if path.exists():
        return path.read_text(encoding="utf-8").strip() or None
    return None
