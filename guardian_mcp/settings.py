"""Guardian's settings: which scanner runs, the optional LLM judge, and where the audit log goes."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr

from guardian_mcp.rules import DEFAULT_THRESHOLD
from shared.settings import OllamaSettings

ScannerName = Literal["layered", "rules", "classifier", "judge"]
JudgeStyleSetting = Literal["auto", "llama_guard", "granite", "json"]


class GuardianSettings(OllamaSettings):
    guardian_scanner: ScannerName = Field(
        default="layered",
        description="`layered` (rules, then the classifier, then the judge for uncertain texts if one is set), "
        "`rules`, `classifier` or `judge` (one layer alone).",
    )
    guardian_classifier: Literal["on", "off"] = Field(
        default="on", description="`off` drops the learned classifier from the layered scanner."
    )
    guardian_classifier_weights: Path | None = Field(
        default=None,
        description="Classifier spec file (guard_model.json, its ONNX model beside it); default the bundled one.",
    )
    guardian_classifier_threshold: float | None = Field(
        default=None,
        gt=0,
        lt=1,
        description="Risk at which the classifier blocks on every surface; default per surface.",
    )
    guardian_classifier_max_windows: int = Field(
        default=24, ge=1, le=10_000, description="Windows (up to 480 characters each) the model reads per text."
    )
    guardian_rule_threshold: float = Field(
        default=DEFAULT_THRESHOLD, gt=0, le=1, description="Combined rule score at which a text is blocked."
    )
    guardian_judge_model: str | None = Field(
        default=None,
        description="litellm model of the judge, e.g. `ollama_chat/granite3-guardian`, "
        "`groq/meta-llama/llama-guard-4-12b`, `openai/<name>` with GUARDIAN_JUDGE_API_BASE.",
    )
    guardian_judge_api_base: str | None = Field(default=None, description="Base URL of the judge's server.")
    guardian_judge_api_key: SecretStr | None = Field(
        default=None, description="Key for the judge; else the provider's usual variable (GROQ_API_KEY, ...)."
    )
    guardian_judge_style: JudgeStyleSetting = Field(
        default="auto", description="How to prompt and read the judge; `auto` guesses from the model name."
    )
    guardian_judge_timeout: float = Field(default=15.0, gt=0, le=300, description="Seconds per judge call.")
    guardian_judge_retries: int = Field(default=2, ge=0, le=5, description="Retries on 429/5xx answers.")
    guardian_judge_max_chars: int = Field(
        default=6000, ge=500, le=200_000, description="Longer texts are judged in overlapping windows of this size."
    )
    guardian_audit_log: Path | None = Field(
        default=None, description="JSONL audit file; default $ANNABELLE_HOME/logs/guardian-audit.jsonl."
    )

    @property
    def audit_log_path(self) -> Path:
        if self.guardian_audit_log is not None:
            return self.guardian_audit_log.expanduser()
        return self.logs_dir / "guardian-audit.jsonl"
