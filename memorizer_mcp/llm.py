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
from shared.agents import AgentsConfigError, default_agent, load_agents_config
from shared.litellm_loader import ModelEndpoint, completion_request, describe_llm_error, endpoint, load_litellm

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
    """UTILITY_MODEL is `off` (or unset with no agent to borrow a model from)."""


NOT_CONFIGURED = (
    "No utility model is configured (UTILITY_MODEL=off, or no enabled agent in agents.json). Set UTILITY_MODEL to "
    "a litellm model string, e.g. "
    "ollama_chat/qwen2.5:7b (with OLLAMA_HOST) or openai/<model> with UTILITY_API_BASE, to use fact extraction "
    "and synthesis."
)


def config_from_settings(settings: MemorizerSettings) -> LlmConfig | None:
    """UTILITY_MODEL; unset, the default agent's model from agents.json; `off` (or no usable agent): None."""
    target = settings.utility_endpoint(DEFAULT_TIMEOUT)
    if target is None and not settings.utility_off:
        try:
            agent = default_agent(load_agents_config(settings.agents_config))
        except AgentsConfigError:
            agent = None
        if agent is not None:
            target = endpoint(
                agent.model, agent.apiBase, None, ollama_host=settings.ollama_host, timeout=DEFAULT_TIMEOUT
            )
    if target is None:
        return None
    return LlmConfig(model=target.model, api_base=target.api_base, api_key=target.api_key, timeout=target.timeout)


def unavailable(config: LlmConfig, reason: str) -> LlmUnavailable:
    return LlmUnavailable(
        f"The utility model {config.where()} did not answer ({reason}). Start it, or set UTILITY_MODEL "
        "(and UTILITY_API_BASE / UTILITY_API_KEY) to a model that is reachable."
    )


async def litellm_complete(messages: Sequence[Message], config: LlmConfig) -> str:
    litellm = await anyio.to_thread.run_sync(load_litellm)
    target = ModelEndpoint(config.model, config.api_base, config.api_key, config.timeout)
    kwargs = completion_request(
        target, messages, temperature=config.temperature, max_tokens=config.max_tokens, json_mode=config.json_mode
    )
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
