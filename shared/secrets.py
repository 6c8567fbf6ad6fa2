"""Sealed secrets: a secret value that travels in a tool result without any model ever reading it. Pure.

An MCP that hands out a secret (1Password's `read_secret`, a concealed field of `get_item`) seals it:
`{"annabelleSecret": "<value>"}`. Whoever shows tool results to a model unseals nothing and masks instead:

- the Thinker (`SecretVault`): each sealed value becomes a placeholder the model can only pass on, `{{secret:1}}`;
  the value is kept for the turn. When the owner (not a stranger, not a turn Guardian flagged) asked in a chat, the
  reply sent to that chat has the placeholder replaced by the value. Everything kept — the session file, the
  model's history, extracted facts, compaction summaries, traces — holds the placeholder. A placeholder written into
  a tool's arguments is never replaced, so a secret cannot leave through a tool (a mail, a message, a web request);
- the MCP bridge (`annabelle mcp`, another application's model) and background jobs' records: `mask_sealed`.

The owner's own direct request (`POST /tools/call` or `annabelle tools call` with the master token) gets the
sealed object as it is: they asked for the value there. Logs and traces never carry tool results at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PLACEHOLDER", "SEALED_KEY", "SecretVault", "is_sealed", "mask_sealed", "seal"]

SEALED_KEY = "annabelleSecret"
PLACEHOLDER = re.compile(r"\{\{secret:(\d{1,4})\}\}")


def seal(value: str) -> dict[str, str]:
    """A secret as a tool result carries it."""
    return {SEALED_KEY: value}


def is_sealed(value: object) -> bool:
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get(SEALED_KEY), str)


def _masked(secret: str) -> str:
    return f"[secret withheld: {len(secret)} characters]"


def mask_sealed(value: Any, replace: Callable[[str], str] = _masked) -> Any:
    """`value` with every sealed secret inside it (at any depth) replaced by `replace(secret)`."""
    if is_sealed(value):
        return replace(value[SEALED_KEY])
    if isinstance(value, dict):
        return {key: mask_sealed(item, replace) for key, item in value.items()}
    if isinstance(value, list):
        return [mask_sealed(item, replace) for item in value]
    return value


@dataclass
class SecretVault:
    """The secrets one turn has read, by number; the model sees only `{{secret:N}}`."""

    values: dict[int, str] = field(default_factory=dict)

    def hold(self, secret: str) -> str:
        """The text the model reads in place of `secret` (one number per distinct value)."""
        number = next((n for n, known in self.values.items() if known == secret), len(self.values) + 1)
        self.values[number] = secret
        return (
            f"[secret withheld from you ({len(secret)} characters). To show it to the owner, write "
            f"{{{{secret:{number}}}}} in your reply; it is replaced there and nowhere else.]"
        )

    def mask(self, value: Any) -> Any:
        """A tool result with its sealed secrets held (a copy; the original is unchanged)."""
        return mask_sealed(value, self.hold)

    def reveal(self, text: str) -> str:
        """`text` with each `{{secret:N}}` of this turn replaced by its value (others left as written)."""
        if not self.values:
            return text
        return PLACEHOLDER.sub(lambda match: self.values.get(int(match.group(1)), match.group(0)), text)

    def withhold(self, text: str) -> str:
        """`text` with each placeholder worded for a reader who may not see the value."""
        return PLACEHOLDER.sub("[a secret, not shown here]", text)
