"""Provenance of memory: a fact written in a tainted turn stays untrusted, and reading it back taints. Pure.

The policy lets a tainted turn store facts (policy.json's defaults), so text from a stranger's mail can end up in
memory; the Thinker puts the top facts for each message in its system prompt. Without provenance a later turn,
clean by every other measure, would read the stranger's words as the owner's and act on them. So:

- `mark_write`: a fact stored in a tainted turn gets `source` = `untrusted: <what tainted the turn>` (whatever
  the model passed as the source is replaced);
- `recalls_untrusted`: a result that lists facts (`data.facts`) with such a source is untrusted content, so the
  turn that read it is tainted from then on (the hub marks the envelope, as for mail or a web page).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

UNTRUSTED_SOURCE = "untrusted"
FACT_WRITES = frozenset({"memory_store_fact"})
"""Tools whose `source` argument records where a fact came from."""
MAX_SOURCE_CHARS = 200


def mark_write(tool: str, arguments: Mapping[str, Any], tainted_by: Sequence[str]) -> dict[str, Any]:
    """The arguments of a call made in a tainted turn, with a fact's source saying it is nobody's word."""
    if tool not in FACT_WRITES:
        return dict(arguments)
    reasons = ", ".join(tainted_by) or "a turn the hub does not know"
    return {**arguments, "source": f"{UNTRUSTED_SOURCE}: {reasons}"[:MAX_SOURCE_CHARS]}


def recalls_untrusted(envelope: Mapping[str, Any]) -> bool:
    """Does the result list a fact that was written in a tainted turn?"""
    data = envelope.get("data")
    facts = data.get("facts") if isinstance(data, Mapping) else None
    if not isinstance(facts, list):
        return False
    return any(
        isinstance(fact, Mapping) and str(fact.get("source") or "").startswith(UNTRUSTED_SOURCE) for fact in facts
    )
