"""What the two tools do, apart from the MCP plumbing: scan every text in a content, audit, read the log."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, Literal

import anyio
from pydantic import BaseModel

from guardian_mcp.audit import AuditEntry, AuditLog, AuditThreat, content_hash, utc_timestamp
from guardian_mcp.extract import canonical_text, extract_texts
from guardian_mcp.scanner import MisconfiguredScanner, RuleScanner, Scanner, build_scanner
from guardian_mcp.settings import GuardianSettings
from guardian_mcp.verdict import Verdict, scan_error
from shared.settings import CommonSettings, ConfigError, load_settings

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 4


class ThreatReport(BaseModel):
    path: str
    type: str
    snippet: str


class ScanReport(BaseModel):
    safe: bool
    """False when the content is blocked (`action` is `block`)."""
    confidence: float
    risk: float
    """The attack score in [0, 1], the highest over the texts, safe or not (1.0 when a text could not be scanned)."""
    threats: list[ThreatReport]
    """What blocks the content (empty when safe)."""
    explanation: str
    scan_id: str
    action: Literal["block", "mark", "pass"] = "pass"
    """`block` (not safe), `mark` (safe, but some text looks like an attack below the blocking bar), `pass`."""
    suspicious: bool = False
    """True exactly when `action` is `mark`: the content passes, but should be quoted as untrusted data."""
    marks: list[ThreatReport] = []
    """What made the content suspicious (for `mark`): one entry per marked text, like `threats`."""


class ScanLog(BaseModel):
    entries: list[AuditEntry]
    count: int


def summarise(paths: list[str], verdicts: list[Verdict]) -> tuple[bool, float, float, list[ThreatReport], str]:
    """Fold per-text verdicts into the report fields: safe only if every text is; the confidence of the
    decision (the strongest threat's when unsafe, else the lowest); the highest risk; the threats; the explanation
    (for a safe content with marks, the marked texts' reasons)."""
    safe = all(verdict.safe for verdict in verdicts)
    risk = max((verdict.attack_risk for verdict in verdicts), default=0.0)
    if safe:
        confidence = min((verdict.confidence for verdict in verdicts), default=1.0)
    else:
        confidence = max(verdict.confidence for verdict in verdicts if not verdict.safe)
    threats = [
        ThreatReport(path=path, type=threat.type.value, snippet=threat.snippet)
        for path, verdict in zip(paths, verdicts, strict=True)
        for threat in verdict.threats
    ]
    marked = [(path, verdict) for path, verdict in zip(paths, verdicts, strict=True) if verdict.marks]
    if safe and marked:
        explanation = f"Scanned {len(verdicts)} text field(s) - suspicious, not blocked\n" + "\n".join(
            f"[{path or 'content'}]: {verdict.explanation}" for path, verdict in marked
        )
    elif safe:
        explanation = f"Scanned {len(verdicts)} text field(s) - no threats detected"
    else:
        explanation = "\n".join(
            f"[{path or 'content'}]: {verdict.explanation}"
            for path, verdict in zip(paths, verdicts, strict=True)
            if not verdict.safe
        )
    return safe, confidence, risk, threats, explanation


class GuardianService:
    def __init__(
        self,
        scanner: Scanner,
        audit: AuditLog,
        *,
        rules: Scanner | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.scanner = scanner
        # The rule layer alone, for callers that ask for `layers="rules"` (the hub, for tool inputs).
        self.rules = rules or scanner
        self.audit = audit
        self.concurrency = concurrency
        self.clock = clock

    async def _scan_one(self, scanner: Scanner, text: str, source: str, context: str) -> Verdict:
        try:
            return await scanner.scan(text, source=source, context=context)
        except Exception as exc:
            log.exception("scanner crashed", extra={"scanner": scanner.name})
            return scan_error(scanner.name, f"The scanner failed unexpectedly ({type(exc).__name__}).")

    async def _scan_all(self, scanner: Scanner, texts: list[str], source: str, context: str) -> list[Verdict]:
        many = getattr(scanner, "scan_many", None)
        if many is not None and texts:
            # The layered and classifier scanners read all texts of a content in one batch.
            try:
                return list(await many(texts, source=source, context=context))
            except Exception as exc:
                log.exception("scanner crashed", extra={"scanner": scanner.name})
                failed = scan_error(scanner.name, f"The scanner failed unexpectedly ({type(exc).__name__}).")
                return [failed] * len(texts)
        results: list[Verdict | None] = [None] * len(texts)
        limiter = anyio.CapacityLimiter(self.concurrency)

        async def run(index: int) -> None:
            async with limiter:
                results[index] = await self._scan_one(scanner, texts[index], source, context)

        async with anyio.create_task_group() as group:
            for index in range(len(texts)):
                group.start_soon(run, index)
        return [verdict for verdict in results if verdict is not None]

    async def scan_content(
        self, content: Any, source: str = "", context: str = "", layers: Literal["all", "rules"] = "all"
    ) -> ScanReport:
        started = self.clock()
        scanner = self.rules if layers == "rules" else self.scanner
        found = list(extract_texts(content))
        paths = [path for path, _ in found]
        verdicts = await self._scan_all(scanner, [text for _, text in found], source, context)
        safe, confidence, risk, threats, explanation = summarise(paths, verdicts)
        marks = [
            ThreatReport(path=path, type=mark.type.value, snippet=mark.snippet)
            for path, verdict in zip(paths, verdicts, strict=True)
            for mark in verdict.marks
        ]
        action = "block" if not safe else ("mark" if marks else "pass")
        report = ScanReport(
            safe=safe,
            confidence=round(confidence, 3),
            risk=round(risk, 3),
            threats=threats,
            explanation=explanation,
            scan_id=uuid.uuid4().hex,
            action=action,
            suspicious=action == "mark",
            marks=marks,
        )
        whole = canonical_text(content)
        entry = AuditEntry(
            scan_id=report.scan_id,
            timestamp=utc_timestamp(),
            source=source,
            content_hash=content_hash(whole),
            content_length=len(whole),
            safe=report.safe,
            confidence=report.confidence,
            risk=report.risk,
            threats=[AuditThreat(path=threat.path, type=threat.type) for threat in threats],
            scanner=scanner.name,
            latency_ms=round((self.clock() - started) * 1000, 3),
            action=report.action,
        )
        try:
            self.audit.append(entry)
        except OSError as exc:
            # The verdict stands even if the disk is full; losing an audit line is logged, not fatal.
            log.error("cannot write the audit log", extra={"audit_log": str(self.audit.path), "error": str(exc)})
        return report

    def scan_log(self, scan_id: str | None = None, limit: int = 50, threats_only: bool = False) -> ScanLog:
        entries = self.audit.read(scan_id=scan_id, limit=limit, threats_only=threats_only)
        return ScanLog(entries=entries, count=len(entries))


def build_service() -> GuardianService:
    """The service the settings describe. Invalid settings give a Guardian that blocks everything, saying why."""
    try:
        settings = load_settings(GuardianSettings)
    except ConfigError as exc:
        log.error("invalid guardian configuration; every scan will report scan_error", extra={"error": str(exc)})
        problem = f"Guardian's configuration is invalid, so nothing is cleared until it is fixed. {exc}"
        try:
            audit_path = load_settings(CommonSettings).logs_dir / "guardian-audit.jsonl"
        except ConfigError:
            audit_path = GuardianSettings.model_construct().audit_log_path
        return GuardianService(MisconfiguredScanner(problem), AuditLog(audit_path))
    scanner = build_scanner(settings)
    if isinstance(scanner, MisconfiguredScanner):
        log.error("guardian scanner misconfigured; every scan will report scan_error", extra={"error": scanner.problem})
    log.info("guardian ready", extra={"scanner": scanner.name, "audit_log": str(settings.audit_log_path)})
    rules = scanner if isinstance(scanner, MisconfiguredScanner) else RuleScanner(settings.guardian_rule_threshold)
    return GuardianService(scanner, AuditLog(settings.audit_log_path), rules=rules)
