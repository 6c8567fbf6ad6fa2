"""What a scanner concludes about one text: `Verdict`, made of `Threat`s, and the threat vocabulary.

Invariant: a verdict is safe exactly when it carries no threats. Findings too weak to block are not threats;
a scanner may mention them in the explanation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

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

    def __post_init__(self) -> None:
        if self.safe == bool(self.threats):
            raise ValueError("a verdict is safe exactly when it has no threats")


def safe_verdict(scanner: str, *, confidence: float = 1.0, explanation: str = "no threats detected") -> Verdict:
    return Verdict(safe=True, confidence=confidence, explanation=explanation, scanner=scanner)


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
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 3].rstrip() + "..."
