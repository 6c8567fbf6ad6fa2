"""The utility model (UTILITY_MODEL) behind one seam: `CompletionFn(messages, config) -> text`.

The default goes through litellm, imported on first use in a worker thread: the import takes seconds and must
neither delay the MCP handshake nor block the event loop, and the Memorizer often runs without ever calling a
model. `LITELLM_LOCAL_MODEL_COST_MAP` is set before the import (no download of a price list) and litellm's
stdout banner is switched off (stdout is this server's JSON-RPC channel).

Every failure to get an answer becomes `LlmUnavailable`, whose message names the model, where it was asked,
and the variables that change it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread

from memorizer_mcp.settings import MemorizerSettings
from shared.litellm_loader import describe_llm_error, load_litellm

Message = dict[str, str]

DEFAULT_TIMEOUT = 45.0
"""Seconds for one model call: below the 60 s the hub allows a Memorizer tool call."""


@dataclass(frozen=True)
class LlmConfig:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    temperature: float = 0.3
    max_tokens: int = 500
    json_mode: bool = True

    def where(self) -> str:
        return f"{self.model} at {self.api_base}" if self.api_base else self.model


CompletionFn = Callable[[Sequence[Message], LlmConfig], Awaitable[str]]


class LlmUnavailable(Exception):
    """No usable answer from the utility model; the message says what to check or set."""


class LlmNotConfigured(LlmUnavailable):
    """UTILITY_MODEL is empty."""


NOT_CONFIGURED = (
    "No utility model is configured (UTILITY_MODEL is empty). Set UTILITY_MODEL to a litellm model string, e.g. "
    "ollama_chat/qwen2.5:7b (with OLLAMA_HOST) or openai/<model> with UTILITY_API_BASE, to use fact extraction "
    "and synthesis."
)


def config_from_settings(settings: MemorizerSettings) -> LlmConfig | None:
    if not settings.utility_model:
        return None
    key = settings.utility_api_key.get_secret_value() if settings.utility_api_key else None
    return LlmConfig(model=settings.utility_model, api_base=settings.utility_api_base_or_default, api_key=key)


def unavailable(config: LlmConfig, reason: str) -> LlmUnavailable:
    return LlmUnavailable(
        f"The utility model {config.where()} did not answer ({reason}). Start it, or set UTILITY_MODEL "
        "(and UTILITY_API_BASE / UTILITY_API_KEY) to a model that is reachable."
    )


async def litellm_complete(messages: Sequence[Message], config: LlmConfig) -> str:
    litellm = await anyio.to_thread.run_sync(load_litellm)
    kwargs: dict[str, Any] = {
        "model": config.model,
        "messages": list(messages),
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "timeout": config.timeout,
        "num_retries": 0,
    }
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key:
        kwargs["api_key"] = config.api_key
    if config.json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    try:
        response = await litellm.acompletion(**kwargs)
        content = response.choices[0].message.content
    except Exception as exc:
        raise unavailable(config, describe_llm_error(exc)) from None
    if not isinstance(content, str) or not content.strip():
        raise unavailable(config, "it returned an empty answer")
    return content


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in a model's answer (code fences and chatter around it ignored), or None."""
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        value = json.loads(body[start : end + 1])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
