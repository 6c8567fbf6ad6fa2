"""Inbound scanning policy: what Guardian's verdict on a chat message means for that message. Pure.

The original never scanned what users wrote. Here every chat message passes Guardian before an agent sees
it, but the owner's own messages are treated differently from anyone else's: the owner must not lose one
message in fifty to a false positive, so theirs are blocked only when Guardian's risk reaches
`GUARDIAN_OWNER_BLOCK_RISK`; below that they go through with a `tainted` flag the Thinker sees (and the event
is logged). Other senders are blocked whenever Guardian blocks. A message Guardian only marks (suspicious,
below its blocking bar) passes with the `tainted` flag, whoever sent it. When Guardian cannot scan at all, the
owner's message passes tainted (the owner's chat must not go dark while the scanner restarts) and anyone
else's follows `GUARDIAN_FAIL_MODE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from orchestrator.guardian import ScanDecision

Action = Literal["pass", "tainted", "block"]


@dataclass(frozen=True)
class InboundVerdict:
    action: Action
    reason: str = ""
    risk: float = 0.0


def judge_inbound(decision: ScanDecision, *, owner: bool, owner_block_risk: float) -> InboundVerdict:
    if not decision.scanned:
        if owner:
            return InboundVerdict("tainted", f"not scanned: {decision.reason}")
        return InboundVerdict("pass" if decision.allowed else "block", decision.reason)
    if decision.allowed:
        if decision.suspicious:
            return InboundVerdict("tainted", decision.reason, decision.risk)
        return InboundVerdict("pass", risk=decision.risk)
    if owner and decision.risk < owner_block_risk:
        return InboundVerdict("tainted", decision.reason, decision.risk)
    return InboundVerdict("block", decision.reason, decision.risk)


def blocked_reply(verdict: InboundVerdict) -> str:
    """The short explanation a blocked sender gets back."""
    what = verdict.reason or "a possible prompt injection"
    return (
        f"I did not pass this message on: Guardian flagged it ({what}). "
        "If it was meant for me, rephrase it without instructions aimed at the assistant itself."
    )
