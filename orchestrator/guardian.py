"""Guardian in the hub: the scan gate and the decorator that puts it around an MCP.

`GuardianGate.scan` asks the Guardian MCP about some content and turns the answer into a decision. When
Guardian cannot answer (disabled, down, timed out, answering nonsense) the fail mode decides: `closed`
(default) blocks, `open` allows and logs a warning. There is no third way where nothing is scanned.

Guardian answers one of three actions. `block`: it is confident the content is an attack. `mark`: the content
looks like one, below the blocking bar. `pass`. An MCP's `guardianScan.mode` (manifest or external-mcps.json)
says what the hub does with them: `block` (default) blocks what Guardian blocks and marks what it marks; `mark`
never blocks, it marks both.

`GuardedEndpoint` is the decorator: arguments are scanned before the MCP sees them (a blocked call never
runs), results are scanned before the caller sees them. A blocked result is replaced by a `BLOCKED` envelope; a
marked one passes with `untrusted: true` (the turn is tainted, so the approval policy holds the side effects
that follow) and `suspicious: [threat types]` (the Thinker labels it suspicious when it shows it to the model).
Every block and mark is a `guardian` trace event.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from orchestrator.endpoint import ToolEndpoint
from orchestrator.errors import McpCallError
from orchestrator.mcp_client import ManagedMcp
from orchestrator.normalize import to_envelope
from shared.envelope import THREAT_TYPE, ErrorCode, fail
from shared.manifest import GuardianScan
from shared.traces import trace_event

log = logging.getLogger(__name__)

FailMode = Literal["closed", "open"]
Layers = Literal["all", "rules"]
Mode = Literal["block", "mark"]

_THREAT_TYPE = re.compile(THREAT_TYPE)
_MAX_TYPES = 8


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
    marks: list[_Threat] = []


@dataclass(frozen=True)
class ScanDecision:
    allowed: bool
    reason: str = ""
    threat_types: tuple[str, ...] = ()
    scanned: bool = True
    """False when Guardian could not give a verdict and the fail mode decided."""
    risk: float = 0.0
    """How likely the content is an attack, 0..1 (Guardian's `risk`, else its confidence in a threat)."""
    suspicious: bool = False
    """Allowed, but marked: Guardian suspects an attack (`threat_types` says which) below its blocking bar, or
    above it when the mode is `mark`."""

    @property
    def action(self) -> Literal["block", "mark", "pass"]:
        if not self.allowed:
            return "block"
        return "mark" if self.suspicious else "pass"


@dataclass
class GuardianStats:
    scans: int = 0
    blocked: int = 0
    marked: int = 0
    unavailable: int = 0


def _describe(threats: list[_Threat]) -> tuple[tuple[str, ...], str]:
    """The threat types (Guardian's vocabulary only: anything else is `malicious_content`) and a reason naming
    them and where they are (JSON paths, clipped)."""
    types = tuple(dict.fromkeys(t.type if _THREAT_TYPE.fullmatch(t.type) else "malicious_content" for t in threats))[
        :_MAX_TYPES
    ] or ("malicious_content",)
    where = ", ".join(dict.fromkeys(t.path[:80] for t in threats[:_MAX_TYPES] if t.path))
    return types, f"{', '.join(types)} detected" + (f" in {where}" if where else "")


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

    async def scan(self, content: Any, *, source: str, layers: Layers = "all", mode: Mode = "block") -> ScanDecision:
        """Guardian's decision on `content`; with `mode="mark"` what it would block is marked instead (a scan
        that cannot be made still follows the fail mode)."""
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
        if verdict.safe and not verdict.marks:
            return ScanDecision(allowed=True, risk=risk)
        types, reason = _describe(verdict.threats if not verdict.safe else verdict.marks)
        if verdict.safe or mode == "mark":
            self.stats.marked += 1
            return ScanDecision(allowed=True, reason=reason, threat_types=types, risk=risk, suspicious=True)
        self.stats.blocked += 1
        return ScanDecision(allowed=False, reason=reason, threat_types=types, risk=risk)


class GuardedEndpoint:
    """Scan arguments before and results after the wrapped endpoint, per the MCP's `guardianScan`."""

    def __init__(
        self, inner: ToolEndpoint, gate: GuardianGate, scan: GuardianScan, *, own_errors: bool = False
    ) -> None:
        self.inner = inner
        self.gate = gate
        self.scan = scan
        self.own_errors = own_errors
        """A first-party MCP: its `error` sentences are written by our code (how to set a key, what to fix), which
        the classifier reads as orders; they get the rule layer, like tool inputs. An external MCP's get everything."""

    def scans(self, tool: str) -> bool:
        """Whether a call of `tool` passes Guardian in either direction."""
        return self.scan.output or self.scan.scans_input(tool)

    async def call(self, tool: str, arguments: dict[str, Any], *, exposed: str) -> dict[str, Any]:
        mode = self.scan.mode
        if self.scan.scans_input(tool) and arguments:
            decision = await self.gate.scan(
                arguments, source=f"{exposed}:input", layers=self.gate.input_layers, mode=mode
            )
            _record(exposed, "input", decision)
            if not decision.allowed:
                return fail(ErrorCode.BLOCKED, f"Input blocked by Guardian: {decision.reason}", blocked=True)
        envelope = await self.inner.call(tool, arguments, exposed=exposed)
        if not self.scan.output:
            return envelope
        suspicious: list[str] = []
        for scanned, layers in self._output_scans(envelope):
            decision = await self.gate.scan(scanned, source=f"{exposed}:output", layers=layers, mode=mode)
            _record(exposed, "output", decision)
            if not decision.allowed:
                return fail(ErrorCode.BLOCKED, f"Output blocked by Guardian: {decision.reason}", blocked=True)
            suspicious.extend(decision.threat_types if decision.suspicious else ())
        if suspicious:
            # Passed on as data the model is told to distrust; the turn is tainted by it (the hub taints on
            # `untrusted`), so the approval policy holds any side effect that follows.
            envelope = {**envelope, "untrusted": True, "suspicious": list(dict.fromkeys(suspicious))[:_MAX_TYPES]}
        return envelope

    def _output_scans(self, envelope: dict[str, Any]) -> list[tuple[dict[str, Any], Layers]]:
        """What of a result Guardian reads, and with which layers: one scan, or two for a first-party error."""
        scanned = {key: envelope[key] for key in ("data", "error") if envelope.get(key) is not None}
        if not self.own_errors or "error" not in scanned:
            return [(scanned, "all")] if scanned else []
        error = {"error": scanned.pop("error")}
        return [*([(scanned, "all")] if scanned else []), (error, "rules")]


def _record(tool: str, direction: str, decision: ScanDecision) -> None:
    """A block or mark, in the log and the current trace; a pass or a fail-open leaves nothing."""
    if decision.action == "pass":
        return
    what = {"tool": tool, "direction": direction, "action": decision.action, "risk": round(decision.risk, 3)}
    log.warning(
        "guardian %s", "blocked" if decision.action == "block" else "marked", extra={**what, "reason": decision.reason}
    )
    trace_event("guardian", **what, types=list(decision.threat_types), scanned=decision.scanned)
