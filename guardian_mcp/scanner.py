"""Scanners: one async method, `scan(text, source=, context=) -> Verdict`, and a table to pick one by name.

- `RuleScanner`: the compiled rules (`rules.py`); microseconds, offline.
- `ClassifierScanner`: the fine-tuned encoder (`classifier.py`) over structure-aware windows; offline. It blocks
  at its surface's `block` bar and marks (safe, with `marks`) at its `mark` bar.
- `JudgeScanner`: an LLM guard model through a `CompletionFn` seam (`judge.py`).
- `LayeredScanner` (the default): rules first; a rule block on attack *wording* alone (injection, jailbreak,
  social-engineering phrasing) stands only if the classifier flags the place where the rules found it (a window
  holding the wording reaches the surface's `mark` bar), else it becomes a mark; other rule blocks (commands,
  exfiltration) end the scan. Then the classifier blocks or marks by its surface's bars; the judge,
  when one is configured, decides only the marked texts (without a classifier, everything the rules clear),
  which keeps its token cost low.

`scan_many(texts, source=...)` scans the strings of one content together (the classifier reads all their
windows in one batch); `scan` is one text.
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
from guardian_mcp.segment import clean, is_prose, surface
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


_NOT_PROSE = safe_verdict(
    "classifier", explanation="classifier: not read (a single token, no sentence); the rules decide", risk=0.0
)


class ClassifierScanner:
    """The classifier over the texts that are prose (`segment.is_prose`); a lone id, path or URL is left to the
    rules, since a model trained on sentences scores such tokens at random."""

    name = "classifier"

    def __init__(self, classifier: Classifier, block_override: float | None = None) -> None:
        self.classifier = classifier
        self.block_override = block_override
        """GUARDIAN_CLASSIFIER_THRESHOLD: one block bar for every surface instead of the spec's."""

    async def assess_many(self, texts: list[str], surface: str) -> list[Assessment]:
        # The encoder is CPU work: off the event loop, always; every window of every text in one batch.
        return await anyio.to_thread.run_sync(self.classifier.assess_many, texts, surface)

    def verdict(self, assessment: Assessment, text_length: int) -> Verdict:
        risk = round(assessment.risk, 4)
        bars = self.classifier.spec.bars(assessment.surface)
        block = self.block_override if self.block_override is not None else bars.block
        partial = ""
        if assessment.read < assessment.windows:
            partial = f" (the model read {assessment.read} of {assessment.windows} windows, chosen by the pre-filter)"
        where = f"{assessment.surface} " if assessment.surface != "other" else ""
        if risk >= block:
            reason = f"classifier: {assessment.type.value} (risk {risk:.2f} >= {where}block bar {block:.2f})"
            return Verdict(
                safe=False,
                confidence=risk,
                threats=(Threat(assessment.type, clip(assessment.snippet), reason),),
                explanation=reason + partial,
                scanner=self.name,
                risk=risk,
            )
        if risk >= min(bars.mark, block):
            reason = (
                f"classifier: suspicious, {assessment.type.value} (risk {risk:.2f} >= {where}mark bar {bars.mark:.2f})"
            )
            return Verdict(
                safe=True,
                confidence=round(1.0 - risk, 4),
                explanation=reason + partial,
                scanner=self.name,
                risk=risk,
                marks=(Threat(assessment.type, clip(assessment.snippet), reason),),
            )
        return safe_verdict(
            self.name, confidence=round(1.0 - risk, 4), explanation=f"classifier: risk {risk:.2f}{partial}", risk=risk
        )

    async def assessed_many(self, texts: list[str], *, source: str = "") -> list[tuple[Verdict, Assessment | None]]:
        """Each text's verdict with the model's assessment behind it (None for a text that is not prose)."""
        read = [index for index, text in enumerate(texts) if is_prose(text)]
        results: list[tuple[Verdict, Assessment | None]] = [(_NOT_PROSE, None)] * len(texts)
        assessments = await self.assess_many([texts[index] for index in read], surface(source)) if read else []
        for index, assessment in zip(read, assessments, strict=True):
            results[index] = (self.verdict(assessment, len(texts[index])), assessment)
        return results

    async def scan_many(self, texts: list[str], *, source: str = "", context: str = "") -> list[Verdict]:
        return [verdict for verdict, _ in await self.assessed_many(texts, source=source)]

    def flag_bar(self, surface_name: str) -> float:
        """The risk at which this scanner flags (marks or blocks) a text of that surface."""
        bars = self.classifier.spec.bars(surface_name)
        return min(bars.mark, self.block_override if self.block_override is not None else bars.block)

    @staticmethod
    def risk_at_wording(text: str, assessment: Assessment) -> tuple[float, str]:
        """The model's risk where the rules found attack wording, and where that was: its riskiest read window
        that holds such a finding on its own. A finding no single read window holds (it spans two windows, sits in
        a window the pre-filter skipped, or only in a decoded view) falls back to the text's risk."""
        cleaned = clean(text)
        local = [
            risk
            for start, end, risk in assessment.spans
            if any(match.rule.type in NEEDS_CONFIRMATION for match in rules.find_matches(cleaned[start:end]))
        ]
        return (max(local), "where the rules matched") if local else (assessment.risk, "of the whole text")

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        return (await self.scan_many([text], source=source, context=context))[0]


# Rule findings about *phrasing* (override idioms, personas, claimed authority) that texts merely talking about
# attacks also contain: articles, detection code, security alerts, screenplays. With a classifier in the cascade
# they block only when it agrees. Commands, exfiltration URLs and the like block on the rules alone.
NEEDS_CONFIRMATION = frozenset({ThreatType.PROMPT_INJECTION, ThreatType.JAILBREAK, ThreatType.SOCIAL_ENGINEERING})


class LayeredScanner:
    """Rules, then the classifier, then the judge (if any) for what is marked.

    The classifier reads what the rules clear, and also what they block on phrasing alone (`NEEDS_CONFIRMATION`):
    such a rule block stands when the classifier itself flags the place where the rules found the wording (a
    window holding it reaches the surface's `mark` bar: two independent signals, on the same lines), and becomes
    a mark when it does not (the rules saw attack wording; the model, reading the context, did not see an
    instruction to the assistant there). Without a classifier the rules decide alone, as before.

    A judge that finds a marked text unsafe blocks it; one that finds it safe clears the mark; one that cannot
    answer leaves the mark standing (the classifier's decision, logged by the judge scanner).
    """

    name = "layered"

    def __init__(
        self, first: Scanner, classifier: ClassifierScanner | None = None, judge: Scanner | None = None
    ) -> None:
        self.first = first
        self.classifier = classifier
        self.judge = judge

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        return (await self.scan_many([text], source=source, context=context))[0]

    async def scan_many(self, texts: list[str], *, source: str = "", context: str = "") -> list[Verdict]:
        results: list[Verdict] = [await self.first.scan(text, source=source, context=context) for text in texts]
        cleared = [index for index, verdict in enumerate(results) if verdict.safe]
        if self.classifier is None:
            if self.judge is not None:
                for index in cleared:
                    results[index] = await self.judge.scan(texts[index], source=source, context=context)
            return results
        worded = [index for index, verdict in enumerate(results) if _on_wording_alone(verdict)]
        read = cleared + worded
        if not read:
            return results
        judged = await self.classifier.assessed_many([texts[i] for i in read], source=source)
        bar = self.classifier.flag_bar(surface(source))
        for index, (verdict, assessment) in zip(read, judged, strict=True):
            risk = max(results[index].attack_risk, verdict.attack_risk)
            if not results[index].safe:
                local, place = (
                    self.classifier.risk_at_wording(texts[index], assessment) if assessment else (0.0, "(not prose)")
                )
                if local < bar:
                    results[index] = _unconfirmed(results[index], verdict, risk, f"risk {local:.2f} {place}", bar)
                else:
                    results[index] = _with_risk(results[index], risk)
                    continue
            else:
                results[index] = _with_risk(verdict, risk)
            if results[index].marks and self.judge is not None:
                results[index] = await self._judge_mark(texts[index], results[index], risk, source, context)
        return results

    async def _judge_mark(self, text: str, marked: Verdict, risk: float, source: str, context: str) -> Verdict:
        assert self.judge is not None
        second = await self.judge.scan(text, source=source, context=context)
        if second.safe:
            return _with_risk(second, risk)
        if any(threat.type is ThreatType.SCAN_ERROR for threat in second.threats):
            return _with_risk(marked, risk, note=" (the judge could not be asked)")
        return _with_risk(second, max(risk, second.confidence))


def _on_wording_alone(verdict: Verdict) -> bool:
    """A rule block whose every threat is of a kind that honest texts about attacks also trigger."""
    return not verdict.safe and all(threat.type in NEEDS_CONFIRMATION for threat in verdict.threats)


def _unconfirmed(rules_verdict: Verdict, model: Verdict, risk: float, seen: str, bar: float) -> Verdict:
    """A rule block the classifier did not confirm: passed, marked with the rules' findings."""
    note = f"; not confirmed by the classifier ({seen} < flag bar {bar:.2f}), so marked, not blocked"
    return Verdict(
        safe=True,
        confidence=model.confidence,
        explanation=f"rules: {rules_verdict.explanation}{note}",
        scanner=rules_verdict.scanner,
        risk=round(risk, 4),
        marks=rules_verdict.threats,
    )


def _with_risk(verdict: Verdict, risk: float, note: str = "") -> Verdict:
    return Verdict(
        safe=verdict.safe,
        confidence=verdict.confidence,
        threats=verdict.threats,
        explanation=verdict.explanation + note,
        scanner=verdict.scanner,
        risk=round(risk, 4),
        marks=verdict.marks,
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
            settings.guardian_classifier_weights, max_windows=settings.guardian_classifier_max_windows
        )
    except ClassifierError as exc:
        log.error("guardian classifier disabled: %s", exc, extra={"error": str(exc)})
        return None
    return ClassifierScanner(classifier, settings.guardian_classifier_threshold)


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
            "`make guardian-train` (or reinstall with `make install`) or use GUARDIAN_SCANNER=layered. Nothing is cleared until "
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
