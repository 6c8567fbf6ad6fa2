"""Scanners: one async method, `scan(text, source=, context=) -> Verdict`, and a table to pick one by name.

- `RuleScanner`: the compiled rules (`rules.py`); microseconds, offline, the default.
- `JudgeScanner`: an LLM guard model through a `CompletionFn` seam (`judge.py`).
- `LayeredScanner`: rules first; only text the rules clear goes on to the judge, which saves tokens and
  keeps the judge from overruling a certain catch.
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
from guardian_mcp.judge import CompletionFn, JudgeConfig, describe_error, parse_judge_output
from guardian_mcp.settings import GuardianSettings
from guardian_mcp.verdict import Verdict, scan_error
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


class LayeredScanner:
    name = "layered"

    def __init__(self, first: Scanner, second: Scanner) -> None:
        self.first = first
        self.second = second

    async def scan(self, text: str, *, source: str = "", context: str = "") -> Verdict:
        verdict = await self.first.scan(text, source=source, context=context)
        if not verdict.safe:
            return verdict
        return await self.second.scan(text, source=source, context=context)


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
        "set it (e.g. ollama_chat/granite3-guardian) or use GUARDIAN_SCANNER=rules. Nothing is cleared until then.",
        name=settings.guardian_scanner,
    )


def _rules(settings: GuardianSettings) -> Scanner:
    return RuleScanner(settings.guardian_rule_threshold)


def _judge(settings: GuardianSettings) -> Scanner:
    config = judge_config(settings)
    return JudgeScanner(config) if config else _missing_judge(settings)


def _layered(settings: GuardianSettings) -> Scanner:
    config = judge_config(settings)
    if config is None:
        return _missing_judge(settings)
    return LayeredScanner(_rules(settings), JudgeScanner(config))


SCANNERS: dict[str, Callable[[GuardianSettings], Scanner]] = {
    "rules": _rules,
    "judge": _judge,
    "layered": _layered,
}


def build_scanner(settings: GuardianSettings) -> Scanner:
    return SCANNERS[settings.guardian_scanner](settings)


def uses_judge(scanner: Scanner) -> bool:
    return isinstance(scanner, JudgeScanner) or (
        isinstance(scanner, LayeredScanner) and any(uses_judge(s) for s in (scanner.first, scanner.second))
    )
