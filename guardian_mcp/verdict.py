"""What a scanner concludes about one text: `Verdict`, made of `Threat`s, and the threat vocabulary.

Invariant: a verdict is safe exactly when it carries no threats. Findings too weak to block are not threats;
a scanner may mention them in the explanation.

A safe verdict may carry `marks`: findings not certain enough to block but worth flagging (the classifier's
risk reached its `mark` bar). `action` sums it up: `block` (unsafe), `mark` (safe with marks), `pass`.

`confidence` is the scanner's confidence in its decision: for an unsafe verdict, how sure it is that the text
is an attack; for a safe one, how sure it is that the text is not. `risk` is the attack score in [0, 1] whatever
the decision (so a hub can apply its own, stricter threshold, e.g. to the owner's own chat messages); when a
scanner does not set it, it is `confidence` for an unsafe verdict and `1 - confidence` for a safe one. A
`scan_error` has risk 1.0: nothing was cleared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from shared.text import clip as shared_clip

SNIPPET_LIMIT = 100


class ThreatType(StrEnum):
    """The original Guardian's threat types, plus `scan_error` for "could not decide" (which blocks)."""

    PROMPT_INJECTION = "prompt_injection"
    JAILBREAK = "jailbreak"
    HARMFUL_CONTENT = "harmful_content"
    SOCIAL_ENGINEERING = "social_engineering"
    DATA_EXFILTRATION = "data_exfiltration"
    PRIVILEGE_ESCALATION = "privilege_escalation"
    CODE_EXECUTION = "code_execution"
    MALICIOUS_CONTENT = "malicious_content"
    SCAN_ERROR = "scan_error"


@dataclass(frozen=True)
class Threat:
    type: ThreatType
    snippet: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Verdict:
    safe: bool
    confidence: float
    threats: tuple[Threat, ...] = field(default=())
    explanation: str = ""
    scanner: str = ""
    risk: float | None = None
    marks: tuple[Threat, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.safe == bool(self.threats):
            raise ValueError("a verdict is safe exactly when it has no threats")
        if self.marks and not self.safe:
            raise ValueError("only a safe verdict carries marks")

    @property
    def action(self) -> str:
        if not self.safe:
            return "block"
        return "mark" if self.marks else "pass"

    @property
    def attack_risk(self) -> float:
        if self.risk is not None:
            return self.risk
        if any(threat.type is ThreatType.SCAN_ERROR for threat in self.threats):
            return 1.0
        return self.confidence if not self.safe else 1.0 - self.confidence


def safe_verdict(
    scanner: str, *, confidence: float = 1.0, explanation: str = "no threats detected", risk: float | None = None
) -> Verdict:
    return Verdict(safe=True, confidence=confidence, explanation=explanation, scanner=scanner, risk=risk)


def scan_error(scanner: str, explanation: str) -> Verdict:
    """The verdict when a scanner could not decide: unsafe, because an unscanned text must not pass."""
    return Verdict(
        safe=False,
        confidence=0.0,
        threats=(Threat(ThreatType.SCAN_ERROR, reason=explanation),),
        explanation=explanation,
        scanner=scanner,
    )


def clip(text: str, limit: int = SNIPPET_LIMIT) -> str:
    """`text` on one line, at most `limit` characters including a trailing "..." when cut."""
    return shared_clip(text, limit, "...")
