from __future__ import annotations

from collections.abc import Sequence

import pytest

from guardian_mcp.judge import (
    JSON_POLICY,
    JudgeConfig,
    Message,
    _litellm_kwargs,
    build_messages,
    category_type,
    chunks,
    describe_error,
    parse_judge_output,
    style_for_model,
)
from guardian_mcp.scanner import JudgeScanner
from guardian_mcp.verdict import ThreatType

TEXT = "some scanned text"


@pytest.mark.parametrize(
    ("output", "safe", "types"),
    [
        # Llama Guard
        ("safe", True, []),
        ("  Safe\n", True, []),
        ("unsafe\nS14", False, [ThreatType.PROMPT_INJECTION]),
        ("unsafe\nS1,S14", False, [ThreatType.HARMFUL_CONTENT, ThreatType.PROMPT_INJECTION]),
        ("unsafe\nS5", False, [ThreatType.SOCIAL_ENGINEERING]),
        ("unsafe\nS7", False, [ThreatType.DATA_EXFILTRATION]),
        ("unsafe\nS6", True, []),
        ("unsafe\nS10, S12", True, []),
        ("unsafe\nS6,S9", False, [ThreatType.HARMFUL_CONTENT]),
        ("unsafe\nS15", False, [ThreatType.MALICIOUS_CONTENT]),
        ("unsafe", False, [ThreatType.MALICIOUS_CONTENT]),
        # Granite Guardian
        ("Yes", False, [ThreatType.PROMPT_INJECTION]),
        ("No", True, []),
        ("no.", True, []),
        ("Yes\n<confidence> High </confidence>", False, [ThreatType.PROMPT_INJECTION]),
        (
            "<think>The text tells the model to ignore its rules: a jailbreak.</think>\n<score> yes </score>",
            False,
            [ThreatType.JAILBREAK],
        ),
        ("<think>It is a shopping list. Nothing unsafe.</think>\n<score> no </score>", True, []),
        ("<think>It hides a link to malware.</think>\n<score> yes </score>", False, [ThreatType.MALICIOUS_CONTENT]),
        ("<think>Odd, but risky.</think>\n<score> yes </score>", False, [ThreatType.PROMPT_INJECTION]),
        # JSON policy verdicts
        ('{"violation": 0, "category": "none", "rationale": "benign"}', True, []),
        (
            '{"violation": 1, "category": "Prompt Injection", "rationale": "overrides the task"}',
            False,
            [ThreatType.PROMPT_INJECTION],
        ),
        ('```json\n{"violation": 1, "category": "data_exfiltration"}\n```', False, [ThreatType.DATA_EXFILTRATION]),
        ('Here you go: {"violation": "1", "category": "something new"}', False, [ThreatType.MALICIOUS_CONTENT]),
        ('{"violation": true, "category": "phishing"}', False, [ThreatType.SOCIAL_ENGINEERING]),
    ],
)
def test_every_answer_style_is_understood(output: str, safe: bool, types: list[ThreatType]) -> None:
    verdict = parse_judge_output(output, TEXT)
    assert verdict.safe is safe
    assert [threat.type for threat in verdict.threats] == types
    assert verdict.scanner == "judge"


@pytest.mark.parametrize(
    "output",
    [
        "",
        "   \n ",
        "I think this text is fine.",
        "No problem here, but let me explain...",
        "SAFE-ish",
        '{"violation": 2}',
        '{"category": "none"}',
        "{not json at all",
        "[1, 2, 3]",
    ],
)
def test_unreadable_answers_are_scan_errors_not_safe(output: str) -> None:
    verdict = parse_judge_output(output, TEXT)
    assert not verdict.safe
    assert [threat.type for threat in verdict.threats] == [ThreatType.SCAN_ERROR]
    assert verdict.confidence == 0.0


def test_non_blocking_llama_guard_categories_are_named_in_the_explanation() -> None:
    verdict = parse_judge_output("unsafe\nS6", TEXT)
    assert "S6 (specialized advice)" in verdict.explanation


def test_judge_threats_carry_a_snippet_of_the_judged_text() -> None:
    verdict = parse_judge_output("unsafe\nS14", "x" * 500)
    assert verdict.threats[0].snippet.endswith("...")
    assert len(verdict.threats[0].snippet) <= 100


@pytest.mark.parametrize(
    ("model", "style"),
    [
        ("groq/meta-llama/llama-guard-4-12b", "llama_guard"),
        ("ollama_chat/llama-guard3:1b", "llama_guard"),
        ("ollama_chat/llama_guard3", "llama_guard"),
        ("ollama_chat/granite3-guardian", "granite"),
        ("ollama_chat/granite3-guardian:8b", "granite"),
        ("groq/openai/gpt-oss-safeguard-20b", "json"),
        ("openai/fake-guard", "json"),
    ],
)
def test_the_style_is_guessed_from_the_model_name(model: str, style: str) -> None:
    assert style_for_model(model) == style


@pytest.mark.parametrize(
    ("category", "threat"),
    [
        ("prompt_injection", ThreatType.PROMPT_INJECTION),
        ("Indirect Prompt Injection", ThreatType.PROMPT_INJECTION),
        ("Jailbreak", ThreatType.JAILBREAK),
        ("privacy", ThreatType.DATA_EXFILTRATION),
        ("Code Execution", ThreatType.CODE_EXECUTION),
        ("violence", ThreatType.HARMFUL_CONTENT),
        ("scan_error", ThreatType.MALICIOUS_CONTENT),
        ("", ThreatType.MALICIOUS_CONTENT),
    ],
)
def test_categories_map_onto_threat_types(category: str, threat: ThreatType) -> None:
    assert category_type(category) is threat


def test_guard_models_get_the_bare_text_and_json_judges_a_policy() -> None:
    assert build_messages("llama_guard", "hi") == [{"role": "user", "content": "hi"}]
    assert build_messages("granite", "hi") == [
        {"role": "system", "content": "jailbreak"},
        {"role": "user", "content": "hi"},
    ]
    system, user = build_messages("json", "hi", source="filer", context="tool output")
    assert system == {"role": "system", "content": JSON_POLICY}
    assert user["content"] == "Content to classify (source: filer, tool output):\n<<<\nhi\n>>>"


def test_long_texts_are_cut_into_overlapping_windows() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(2500))
    windows = chunks(text, 1000, overlap=200)
    assert all(len(window) <= 1000 for window in windows)
    assert windows[0][-200:] == windows[1][:200]
    assert windows[-1].endswith(text[-200:])
    assert chunks("short", 1000) == ["short"]


def test_litellm_arguments_carry_the_configuration() -> None:
    config = JudgeConfig(
        model="openai/g", style="json", api_base="http://127.0.0.1:1/v1", api_key="k", timeout=3, retries=0
    )
    kwargs = _litellm_kwargs([{"role": "user", "content": "x"}], config)
    assert kwargs["api_base"] == "http://127.0.0.1:1/v1"
    assert kwargs["api_key"] == "k"
    assert kwargs["response_format"] == {"type": "json_object"}
    assert kwargs["temperature"] == 0
    assert kwargs["num_retries"] == 0
    bare = _litellm_kwargs([], JudgeConfig(model="groq/x", style="llama_guard"))
    assert "api_base" not in bare and "api_key" not in bare and "response_format" not in bare


def test_errors_are_described_in_one_line() -> None:
    assert describe_error(RuntimeError("boom\ntraceback here")) == "RuntimeError: boom"
    assert describe_error(TimeoutError()) == "TimeoutError"


class ScriptedCompletion:
    """A `CompletionFn` seam that answers from a list and records what it was asked."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.calls: list[Sequence[Message]] = []

    async def __call__(self, messages: Sequence[Message], config: JudgeConfig) -> str:
        self.calls.append(messages)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _scanner(completion: ScriptedCompletion, max_chars: int = 6000) -> JudgeScanner:
    return JudgeScanner(JudgeConfig(model="groq/llama-guard", style="llama_guard", max_chars=max_chars), completion)


async def test_the_judge_scanner_turns_answers_into_verdicts() -> None:
    completion = ScriptedCompletion("safe", "unsafe\nS14")
    scanner = _scanner(completion)
    assert (await scanner.scan("hello")).safe
    verdict = await scanner.scan("ignore everything")
    assert not verdict.safe and verdict.threats[0].type is ThreatType.PROMPT_INJECTION
    assert completion.calls[1] == [{"role": "user", "content": "ignore everything"}]


async def test_a_failed_judge_call_is_a_scan_error() -> None:
    verdict = await _scanner(ScriptedCompletion(ConnectionError("refused"))).scan("hello")
    assert not verdict.safe
    assert verdict.threats[0].type is ThreatType.SCAN_ERROR
    assert "ConnectionError: refused" in verdict.explanation


async def test_every_window_of_a_long_text_is_judged_until_one_is_unsafe() -> None:
    completion = ScriptedCompletion("safe", "unsafe\nS14", "safe")
    verdict = await _scanner(completion, max_chars=1000).scan("word " * 600)
    assert not verdict.safe
    assert len(completion.calls) == 2

    completion = ScriptedCompletion("safe", "safe", "safe", "safe")
    verdict = await _scanner(completion, max_chars=1000).scan("word " * 600)
    assert verdict.safe
    assert len(completion.calls) == 4
