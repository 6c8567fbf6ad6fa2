"""Guardian in the hub: the scan gate and the decorator that puts it around an MCP.

`GuardianGate.scan` asks the Guardian MCP about some content and turns the answer into a decision. When
Guardian cannot answer (disabled, down, timed out, answering nonsense) the fail mode decides: `closed`
(default) blocks, `open` allows and logs a warning. There is no third way where nothing is scanned.

`GuardedEndpoint` is the decorator: arguments are scanned before the MCP sees them (a blocked call never
runs), results are scanned before the caller sees them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from orchestrator.endpoint import ToolEndpoint
from orchestrator.errors import McpCallError
from orchestrator.mcp_client import ManagedMcp
from orchestrator.normalize import to_envelope
from shared.envelope import ErrorCode, fail
from shared.manifest import GuardianScan

log = logging.getLogger(__name__)

FailMode = Literal["closed", "open"]
Layers = Literal["all", "rules"]


class _Threat(BaseModel):
    path: str = ""
    type: str = "malicious_content"
    snippet: str = ""


class _ScanResult(BaseModel):
    safe: bool
    confidence: float = 1.0
    threats: list[_Threat] = []
    explanation: str = ""
    scan_id: str = ""
    risk: float | None = None


@dataclass(frozen=True)
class ScanDecision:
    allowed: bool
    reason: str = ""
    threat_types: tuple[str, ...] = ()
    scanned: bool = True
    """False when Guardian could not give a verdict and the fail mode decided."""
    risk: float = 0.0
    """How likely the content is an attack, 0..1 (Guardian's `risk`, else its confidence in a threat)."""


@dataclass
class GuardianStats:
    scans: int = 0
    blocked: int = 0
    unavailable: int = 0


@dataclass
class GuardianGate:
    guardian: ManagedMcp | None
    fail_mode: FailMode = "closed"
    input_layers: Layers = "rules"
    """What scans tool inputs (the agent's own words): see GUARDIAN_INPUT_SCAN in docs/guardian.md."""
    stats: GuardianStats = field(default_factory=GuardianStats)

    @property
    def available(self) -> bool:
        return self.guardian is not None and self.guardian.available

    def _cannot_scan(self, why: str, source: str) -> ScanDecision:
        self.stats.unavailable += 1
        if self.fail_mode == "open":
            log.warning("guardian unavailable; allowing unscanned (fail-open)", extra={"source": source, "why": why})
            return ScanDecision(allowed=True, reason=why, scanned=False)
        return ScanDecision(
            allowed=False,
            reason=f"Guardian could not scan this ({why}), so it is blocked (GUARDIAN_FAIL_MODE=closed).",
            scanned=False,
        )

    async def scan(self, content: Any, *, source: str, layers: Layers = "all") -> ScanDecision:
        self.stats.scans += 1
        if self.guardian is None:
            return self._cannot_scan("Guardian is disabled", source)
        arguments = {"content": content, "source": source, **({"layers": layers} if layers != "all" else {})}
        try:
            result = await self.guardian.call_tool("scan_content", arguments)
        except McpCallError as exc:
            return self._cannot_scan(str(exc).rstrip("."), source)
        envelope = to_envelope("guardian_scan_content", result)
        if not envelope["success"]:
            return self._cannot_scan(f"Guardian failed: {envelope.get('error')}", source)
        try:
            verdict = _ScanResult.model_validate(envelope["data"])
        except ValidationError:
            return self._cannot_scan("Guardian answered in an unexpected shape", source)
        risk = verdict.risk if verdict.risk is not None else (0.0 if verdict.safe else verdict.confidence)
        if verdict.safe:
            return ScanDecision(allowed=True, risk=risk)
        self.stats.blocked += 1
        types = tuple(dict.fromkeys(threat.type for threat in verdict.threats)) or ("malicious_content",)
        where = ", ".join(dict.fromkeys(t.path for t in verdict.threats if t.path))
        reason = f"{', '.join(types)} detected" + (f" in {where}" if where else "")
        return ScanDecision(allowed=False, reason=reason, threat_types=types, risk=risk)


class GuardedEndpoint:
    """Scan arguments before and results after the wrapped endpoint, per the MCP's `guardianScan`."""

    def __init__(self, inner: ToolEndpoint, gate: GuardianGate, scan: GuardianScan) -> None:
        self.inner = inner
        self.gate = gate
        self.scan = scan

    def scans(self, tool: str) -> bool:
        """Whether a call of `tool` passes Guardian in either direction."""
        return self.scan.output or self.scan.scans_input(tool)

    async def call(self, tool: str, arguments: dict[str, Any], *, exposed: str) -> dict[str, Any]:
        if self.scan.scans_input(tool) and arguments:
            decision = await self.gate.scan(arguments, source=f"{exposed}:input", layers=self.gate.input_layers)
            if not decision.allowed:
                log.warning("input blocked by guardian", extra={"tool": exposed, "reason": decision.reason})
                return fail(ErrorCode.BLOCKED, f"Input blocked by Guardian: {decision.reason}", blocked=True)
        envelope = await self.inner.call(tool, arguments, exposed=exposed)
        if self.scan.output:
            scanned = {key: envelope[key] for key in ("data", "error") if envelope.get(key) is not None}
            if scanned:
                decision = await self.gate.scan(scanned, source=f"{exposed}:output")
                if not decision.allowed:
                    log.warning("output blocked by guardian", extra={"tool": exposed, "reason": decision.reason})
                    return fail(ErrorCode.BLOCKED, f"Output blocked by Guardian: {decision.reason}", blocked=True)
        return envelope
