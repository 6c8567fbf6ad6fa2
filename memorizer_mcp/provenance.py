"""Where a fact came from and how far it is trusted. Pure.

The security model has three provenance classes: `owner` (the owner said it, on an authenticated channel),
`system` (the owner's own configuration: prompts, skills, playbooks) and `untrusted` (anything derived from
content the owner did not write: mail, web pages, files, tool output, other people's messages, or a turn that
had read any of those). A fact keeps the class it was written with; a later statement may supersede a fact only
if it is at least as trusted, so text from a stranger's e-mail can never overwrite what the owner said.

A caller that does not say is `untrusted`: the safe default, since only the hub (which knows the turn's taint)
and the owner's direct calls can vouch for a statement.

The source type says what the text was taken from; it is recorded as given and informs, it does not trust.
"""

from __future__ import annotations

from typing import Literal, get_args

Provenance = Literal["owner", "system", "untrusted"]
PROVENANCES: tuple[str, ...] = get_args(Provenance)
DEFAULT_PROVENANCE: Provenance = "untrusted"

FactSource = Literal["owner", "conversation", "email", "web", "file", "tool", "import", "unknown"]
SOURCE_TYPES: tuple[str, ...] = get_args(FactSource)
DEFAULT_SOURCE_TYPE: FactSource = "unknown"

_TRUST: dict[str, int] = {"untrusted": 0, "system": 1, "owner": 2}
_BY_TRUST: dict[int, Provenance] = {0: "untrusted", 1: "system", 2: "owner"}


def trust(provenance: str) -> int:
    """0 untrusted, 1 system, 2 owner; anything unknown (a hand-edited row) counts as untrusted."""
    return _TRUST.get(provenance, 0)


def holds_untrusted(facts: object) -> bool:
    """Whether any of the listed facts (tool-result dicts) was written from untrusted content: a result showing one
    is marked untrusted, so the turn that reads it is tainted and the model sees the facts as data."""
    return isinstance(facts, list) and any(
        isinstance(fact, dict) and trust(str(fact.get("provenance"))) == 0 for fact in facts
    )


def weakest(a: str, b: str) -> Provenance:
    """The less trusted of two classes: what an imported file may claim is capped by who imports it."""
    return _BY_TRUST[min(trust(a), trust(b))]
