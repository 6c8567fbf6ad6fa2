"""A check's answer: a severity, one line saying what is wrong, and one line saying how to fix it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

Severity = Literal["critical", "warning", "info", "ok"]
SEVERITY_ORDER: dict[Severity, int] = {"critical": 0, "warning": 1, "info": 2, "ok": 3}
MARKS: dict[Severity, str] = {"critical": "[!!]", "warning": "[!]", "info": "[i]", "ok": "[ok]"}
MB = 1024 * 1024


@dataclass(frozen=True)
class Finding:
    severity: Severity
    summary: str
    fix: str = ""


def finding_json(name: str, category: str, finding: Finding) -> dict[str, Any]:
    """One finding as `GET /diagnose` sends it."""
    return {
        "name": name,
        "category": category,
        "severity": finding.severity,
        "summary": finding.summary,
        "fix": finding.fix,
    }


def finding_from_json(raw: dict[str, Any]) -> tuple[str, str, Finding]:
    """The inverse of `finding_json` (an unknown severity reads as a warning rather than failing the report)."""
    severity = raw.get("severity")
    known = severity if severity in SEVERITY_ORDER else "warning"
    finding = Finding(cast(Severity, known), str(raw.get("summary") or ""), str(raw.get("fix") or ""))
    return str(raw.get("name") or "?"), str(raw.get("category") or ""), finding
