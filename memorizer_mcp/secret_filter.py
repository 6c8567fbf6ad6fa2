"""Does a text carry a secret? Pure: no I/O, only compiled patterns.

Memory is read back into prompts, exports and search results, so a credential stored as a "fact" would leak
everywhere. Every pattern of the original Memorizer's `isFactSafe` is here (some widened to newer key formats),
plus Telegram bot tokens, Google API keys, JWTs, private keys in any PEM/OpenSSH/PGP form, and 1Password's own
secret shapes (service account tokens, the account Secret Key, and a sealed secret of the 1Password MCP, see
shared/secrets.py). A 1Password secret reference (`op://vault/item/field`) is not a secret: it is allowed, even
after `password:`.

`find_secret(text)` names the kind of the first secret found; the name is safe to show, the match never is.
`redact(text)` replaces every secret with `[redacted <kind>]` (used for conversation logs, which are kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Assignment-style secrets: `password = hunter2`, `pwd: "x"`, `secret=...`. The value is anything up to
# whitespace or a quote, as in the original, except a 1Password secret reference (`password: op://Home/Wifi/
# password`): where a secret is kept is what memory should hold instead of the secret.
_ASSIGNED = r"\s*[=:]\s*['\"]?(?!op://)[^\s'\"]+['\"]?"


@dataclass(frozen=True)
class SecretPattern:
    kind: str
    pattern: re.Pattern[str]
    span: re.Pattern[str] | None = None
    """What `redact` removes when more than the match must go (a private key's whole block)."""

    @property
    def redaction(self) -> re.Pattern[str]:
        return self.span or self.pattern


def _p(kind: str, regex: str, flags: int = 0, *, span: str | None = None) -> SecretPattern:
    return SecretPattern(kind, re.compile(regex, flags), re.compile(span, flags | re.DOTALL) if span else None)


_PEM_BEGIN = r"-----BEGIN\s+(?:[A-Z0-9]+\s+)*PRIVATE\s+KEY(?:\s+BLOCK)?-----"


# Order matters only for the name reported: the more specific patterns come first.
PATTERNS: tuple[SecretPattern, ...] = (
    _p("Anthropic API key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    _p("OpenAI API key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    _p("Groq API key", r"gsk_[A-Za-z0-9]{20,}"),
    _p("Slack token", r"xox[abposr]-[A-Za-z0-9-]+"),
    _p("GitHub token", r"gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,}"),
    _p("GitLab token", r"glpat-[A-Za-z0-9_-]{20}"),
    _p("Telegram bot token", r"(?<![0-9])[0-9]{8,10}:[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
    _p("Google API key", r"AIza[0-9A-Za-z_-]{35}"),
    _p("1Password service account token", r"ops_[A-Za-z0-9_-]{40,}"),
    _p("1Password Secret Key", r"A3-[A-Z0-9]{6}-[A-Z0-9]{5,6}(?:-[A-Z0-9]{5}){4}\b"),
    _p("sealed secret", r"annabelleSecret"),
    _p("JSON Web Token", r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    _p("private key", _PEM_BEGIN, re.IGNORECASE, span=_PEM_BEGIN + r".*?(?:-----END[^\n]*?-----|\Z)"),
    _p("AWS access key", r"AKIA[0-9A-Z]{16}"),
    _p("AWS secret key", r"aws_secret_access_key" + _ASSIGNED, re.IGNORECASE),
    _p("password", r"password" + _ASSIGNED, re.IGNORECASE),
    _p("password", r"pwd" + _ASSIGNED, re.IGNORECASE),
    _p("secret", r"secret" + _ASSIGNED, re.IGNORECASE),
    _p(
        "database URL with a password", r"(?:mysql|postgres|postgresql|mongodb(?:\+srv)?)://[^:]+:[^@]+@", re.IGNORECASE
    ),
    _p("payment card number", r"\b\d{4}[\s-]?\d{4}[\s-]?\d{4}[\s-]?\d{4}\b"),
    _p("social security number", r"\b\d{3}-\d{2}-\d{4}\b"),
)


def find_secret(text: str) -> str | None:
    """The kind of the first secret in `text` (e.g. "OpenAI API key"), or None if it looks safe."""
    for secret in PATTERNS:
        if secret.pattern.search(text):
            return secret.kind
    return None


def find_secret_in(value: Any) -> str | None:
    """`find_secret` over every string inside a JSON value (object keys included)."""
    if isinstance(value, str):
        return find_secret(value)
    if isinstance(value, dict):
        items: list[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    else:
        return None
    return next(filter(None, map(find_secret_in, items)), None)


def is_safe(text: str) -> bool:
    return find_secret(text) is None


def refusal(what: str, kind: str) -> str:
    """The sentence a rejected write answers with: says which kind of secret, never echoes it."""
    article = "an" if kind[0].lower() in "aeiou" else "a"
    return (
        f"{what} looks like it contains {article} {kind}, so it was not stored: secrets never go into memory. "
        "Keep credentials in a password manager and store only a reference to them (e.g. 'the API key is in 1Password')."
    )


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with every secret replaced by `[redacted <kind>]`, and the kinds replaced (in pattern order)."""
    kinds = []
    for secret in PATTERNS:
        text, count = secret.redaction.subn(f"[redacted {secret.kind}]", text)
        if count:
            kinds.append(secret.kind)
    return text, kinds
