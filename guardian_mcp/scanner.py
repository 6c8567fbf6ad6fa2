"""Scanners: one async method, `scan(text, source=, context=) -> Verdict`, and a table to pick one by name.

- `RuleScanner`: the compiled rules (`rules.py`); microseconds, offline.
- `ClassifierScanner`: the embedding classifier (`classifier.py`) over overlapping windows; offline.
- `JudgeScanner`: an LLM guard model through a `CompletionFn` seam (`judge.py`).
- `LayeredScanner` (the default): rules first, a certain catch ends the scan; then the classifier, which blocks
  at its calibrated threshold; the judge, when one is configured, decides only the uncertain band below that
  threshold (without a classifier, everything the rules clear), which keeps its token cost low.
- `MisconfiguredScanner`: what a broken configuration yields. Every scan is a `scan_error` naming the fix, so
  a Guardian that cannot do its job blocks instead of waving content through.

`SCANNERS` maps `GUARDIAN_SCANNER` values to factories; `build_scanner(settings)` looks one up.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

import anyio.to_thread

from guardian_mcp import judge as judge_module
from guardian_mcp import rules
from guardian_mcp.classifier import Assessment, Classifier, ClassifierError, load_classifier
from guardian_mcp.judge import CompletionFn, JudgeConfig, describe_error, parse_judge_output
from guardian_mcp.settings import GuardianSettings
from guardian_mcp.verdict import Threat, ThreatType, Verdict, clip, safe_verdict, scan_error
from shared.litellm_loader import model_api_base

log = logging.getLogger(__name__)


class Scanner(Protocol):
    name: str

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        """The verdict on one text. Never raises for a bad text or a failed backend: that is a `scan_error`."""
        ...


class RuleScanner:
    name = "rules"
    # About 25 ms per 20,000 characters: beyond this a scan moves to a worker thread, so that a large web page
    # or file does not hold up pings and other calls on the event loop.
    inline_limit = 20_000

    def __init__(self, threshold: float = rules.DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        if len(text) > self.inline_limit:
            return await anyio.to_thread.run_sync(rules.scan_text, text, self.threshold)
        return rules.scan_text(text, self.threshold)


class JudgeScanner:
    name = "judge"

    def __init__(self, config: JudgeConfig, complete: CompletionFn | None = None) -> None:
        self.config = config
        self.complete: CompletionFn = complete or judge_module.litellm_complete

    async def _judge_once(self, text: str, source: str, context: str) -> Verdict:
        messages = judge_module.build_messages(self.config.style, text, source=source, context=context)
        try:
            output = await self.complete(messages, self.config)
        except Exception as exc:
            # Any failure (network, 429 after retries, 5xx, timeout, bad credentials) must block, not pass.
            log.warning("judge call failed", extra={"model": self.config.model, "error": describe_error(exc)})
            return scan_error(
                self.name, f"The judge ({self.config.model}) could not be reached: {describe_error(exc)}."
            )
        return parse_judge_output(output, text)

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        confidence = 1.0
        explanation = ""
        for window in judge_module.chunks(text, self.config.max_chars):
            verdict = await self._judge_once(window, source, context)
            if not verdict.safe:
                return verdict
            confidence = min(confidence, verdict.confidence)
            explanation = verdict.explanation
        return Verdict(safe=True, confidence=confidence, explanation=explanation, scanner=self.name)


class ClassifierScanner:
    name = "classifier"

    def __init__(self, classifier: Classifier) -> None:
        self.classifier = classifier

    @property
    def threshold(self) -> float:
        return self.classifier.threshold

    @property
    def band_low(self) -> float:
        return self.classifier.band_low

    async def assess(self, text: str) -> Assessment:
        # Embedding is CPU work (about 25 ms per 1,000 characters): off the event loop, always.
        return await anyio.to_thread.run_sync(self.classifier.assess, text)

    def verdict(self, assessment: Assessment, text_length: int) -> Verdict:
        risk = round(assessment.risk, 4)
        partial = ""
        if assessment.covered < text_length:
            partial = f" (classifier read the first {assessment.covered} of {text_length} characters)"
        if risk >= self.threshold:
            reason = f"classifier: {assessment.type.value} (risk {risk:.2f} >= {self.threshold:.2f})"
            return Verdict(
                safe=False,
                confidence=risk,
                threats=(Threat(assessment.type, clip(assessment.snippet), reason),),
                explanation=reason + partial,
                scanner=self.name,
                risk=risk,
            )
        return safe_verdict(
            self.name, confidence=round(1.0 - risk, 4), explanation=f"classifier: risk {risk:.2f}{partial}", risk=risk
        )

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        return self.verdict(await self.assess(text), len(text))


class LayeredScanner:
    name = "layered"

    def __init__(
        self, first: Scanner, classifier: ClassifierScanner | None = None, judge: Scanner | None = None
    ) -> None:
        self.first = first
        self.classifier = classifier
        self.judge = judge

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        verdict = await self.first.scan(text, source=source, context=context)
        if not verdict.safe:
            return verdict
        if self.classifier is None:
            if self.judge is None:
                return verdict
            return await self.judge.scan(text, source=source, context=context)
        rule_risk = verdict.attack_risk
        assessment = await self.classifier.assess(text)
        judged = self.classifier.verdict(assessment, len(text))
        risk = max(rule_risk, assessment.risk)
        if not judged.safe or self.judge is None or assessment.risk < self.classifier.band_low:
            return _with_risk(judged, risk)
        # The uncertain band: the judge decides.
        second = await self.judge.scan(text, source=source, context=context)
        if second.safe:
            return _with_risk(second, risk)
        if any(threat.type is ThreatType.SCAN_ERROR for threat in second.threats):
            # The judge is an optional refinement here: below the classifier's own threshold, a judge that
            # cannot answer leaves the classifier's decision standing (logged by the judge scanner).
            return _with_risk(judged, risk, note=" (the judge could not be asked)")
        return _with_risk(second, max(risk, second.confidence))


def _with_risk(verdict: Verdict, risk: float, note: str = "") -> Verdict:
    return Verdict(
        safe=verdict.safe,
        confidence=verdict.confidence,
        threats=verdict.threats,
        explanation=verdict.explanation + note,
        scanner=verdict.scanner,
        risk=round(risk, 4),
    )


class MisconfiguredScanner:
    def __init__(self, problem: str, name: str = "misconfigured") -> None:
        self.problem = problem
        self.name = name

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        return scan_error(self.name, self.problem)


def judge_config(settings: GuardianSettings) -> JudgeConfig | None:
    """The judge described by the settings, or None when GUARDIAN_JUDGE_MODEL is unset."""
    model = settings.guardian_judge_model
    if not model:
        return None
    style = settings.guardian_judge_style
    api_base = model_api_base(model, settings.guardian_judge_api_base, settings.ollama_host)
    key = settings.guardian_judge_api_key.get_secret_value() if settings.guardian_judge_api_key else None
    return JudgeConfig(
        model=model,
        style=judge_module.style_for_model(model) if style == "auto" else style,
        api_base=api_base,
        api_key=key,
        timeout=settings.guardian_judge_timeout,
        retries=settings.guardian_judge_retries,
        max_chars=settings.guardian_judge_max_chars,
    )


def _missing_judge(settings: GuardianSettings) -> Scanner:
    return MisconfiguredScanner(
        f"GUARDIAN_SCANNER={settings.guardian_scanner} needs a judge model, but GUARDIAN_JUDGE_MODEL is not set: "
        "set it (e.g. ollama_chat/granite3-guardian) or use GUARDIAN_SCANNER=layered. Nothing is cleared until then.",
        name=settings.guardian_scanner,
    )


def _rules(settings: GuardianSettings) -> Scanner:
    return RuleScanner(settings.guardian_rule_threshold)


def classifier_scanner(settings: GuardianSettings) -> ClassifierScanner | None:
    """The classifier the settings ask for, or None when it is off or cannot be used (logged as an error)."""
    if settings.guardian_classifier == "off":
        return None
    try:
        classifier = load_classifier(
            settings.guardian_classifier_weights,
            threshold=settings.guardian_classifier_threshold,
            max_windows=settings.guardian_classifier_max_windows,
        )
    except ClassifierError as exc:
        log.error("guardian classifier disabled: %s", exc, extra={"error": str(exc)})
        return None
    return ClassifierScanner(classifier)


def _classifier(settings: GuardianSettings) -> Scanner:
    if settings.guardian_classifier == "off":
        return MisconfiguredScanner(
            "GUARDIAN_SCANNER=classifier but GUARDIAN_CLASSIFIER=off: turn one of them around. "
            "Nothing is cleared until then.",
            name="classifier",
        )
    scanner = classifier_scanner(settings)
    if scanner is None:
        return MisconfiguredScanner(
            "GUARDIAN_SCANNER=classifier but the classifier cannot be loaded (see Guardian's log): retrain it with "
            "`python -m guardian_mcp.train --corpus PATH` or use GUARDIAN_SCANNER=layered. Nothing is cleared until "
            "then.",
            name="classifier",
        )
    return scanner


def _judge(settings: GuardianSettings) -> Scanner:
    config = judge_config(settings)
    return JudgeScanner(config) if config else _missing_judge(settings)


def _layered(settings: GuardianSettings) -> Scanner:
    config = judge_config(settings)
    return LayeredScanner(_rules(settings), classifier_scanner(settings), JudgeScanner(config) if config else None)


SCANNERS: dict[str, Callable[[GuardianSettings], Scanner]] = {
    "layered": _layered,
    "rules": _rules,
    "classifier": _classifier,
    "judge": _judge,
}


def build_scanner(settings: GuardianSettings) -> Scanner:
    return SCANNERS[settings.guardian_scanner](settings)


def uses_judge(scanner: Scanner) -> bool:
    return isinstance(scanner, JudgeScanner) or (isinstance(scanner, LayeredScanner) and scanner.judge is not None)
