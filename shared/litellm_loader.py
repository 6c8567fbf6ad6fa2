"""litellm in one place: imported once per process and made safe, one way to say where a model is and to build
a request for it, and its errors told in one line.

Two traps of litellm (see python-stack-notes.md) are handled here once for every process:
- without `LITELLM_LOCAL_MODEL_COST_MAP=True` set before the import, importing it downloads a price list
  synchronously and starts a retry thread;
- without `suppress_debug_info`, it prints a feedback banner to stdout on errors, which is the JSON-RPC channel
  of a stdio MCP.

The import takes seconds: call `load_litellm` from a worker thread, at start-up or on first use, never per request.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shared.text import shorten

_litellm: Any = None
_import_lock = threading.Lock()


def load_litellm() -> Any:
    """The litellm module, imported once (blocking)."""
    global _litellm
    with _import_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            _litellm = litellm
    return _litellm


def model_api_base(model: str, api_base: str | None, ollama_host: str) -> str | None:
    """The server to call: the configured one, else `OLLAMA_HOST` for Ollama models (so one variable moves every
    Ollama model, e.g. to `http://ollama:11434` in docker compose), else the provider's default (None)."""
    if api_base:
        return api_base
    if model.startswith(("ollama/", "ollama_chat/")):
        return ollama_host
    return None


PLACEHOLDER_KEY = "no-key-needed"
"""A local OpenAI-compatible server (LM Studio, llama.cpp, vLLM) ignores the key, but the OpenAI client refuses to
send a request without one; this placeholder keeps `openai/<model>` + an api base working with no key set."""


@dataclass(frozen=True)
class ModelEndpoint:
    """Where one model is reached: the litellm model string, its server and key (None = provider default)."""

    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = 90.0

    def where(self) -> str:
        return f"{self.model} at {self.api_base}" if self.api_base else self.model


def endpoint(
    model: str, api_base: str | None, api_key: str | None, *, ollama_host: str, timeout: float
) -> ModelEndpoint:
    """The endpoint for a configured model: Ollama models default to `OLLAMA_HOST`, and a keyless `openai/` model
    on its own server gets the placeholder key."""
    base = model_api_base(model, api_base, ollama_host)
    if not api_key and model.startswith("openai/") and base and not os.environ.get("OPENAI_API_KEY"):
        api_key = PLACEHOLDER_KEY
    return ModelEndpoint(model, base, api_key or None, timeout)


def completion_request(
    target: ModelEndpoint,
    messages: Sequence[Mapping[str, Any]],
    *,
    temperature: float,
    max_tokens: int | None = None,
    json_mode: bool = False,
    tools: Sequence[Mapping[str, Any]] | None = None,
    tool_choice: str | None = None,
    retries: int = 0,
) -> dict[str, Any]:
    """The keyword arguments of one `litellm.acompletion` call (the one request builder of the project)."""
    kwargs: dict[str, Any] = {
        "model": target.model,
        "messages": [dict(message) for message in messages],
        "temperature": temperature,
        "timeout": target.timeout,
        # Retries are the caller's decision (the Thinker's loop and breaker), not hidden inside the provider call.
        "num_retries": retries,
        # A provider that lacks an option (tool_choice on some local servers) ignores it instead of failing.
        "drop_params": True,
    }
    if target.api_base:
        kwargs["api_base"] = target.api_base
    if target.api_key:
        kwargs["api_key"] = target.api_key
    if tools:
        kwargs["tools"] = [dict(tool) for tool in tools]
        if tool_choice:
            kwargs["tool_choice"] = tool_choice
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    if json_mode:
        kwargs["response_format"] = {"type": "json_object"}
    return kwargs


# litellm provider prefix → the variable that holds its key. Local providers (ollama, ollama_chat) need none;
# `openai/` with an apiBase is a local OpenAI-compatible server, which the Thinker serves with a placeholder key.
PROVIDER_KEYS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "groq": "GROQ_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "xai": "XAI_API_KEY",
    "cohere": "COHERE_API_KEY",
    "fireworks_ai": "FIREWORKS_AI_API_KEY",
}


def model_key_variable(model: str, api_base: str | None) -> str | None:
    """The key variable a model needs, or None (local providers, local OpenAI-compatible servers)."""
    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider == "openai" and api_base:
        return None
    return PROVIDER_KEYS.get(provider)


def is_timeout(exc: BaseException) -> bool:
    """Whether a failed model call ran out of time (litellm's, httpx's or asyncio's timeout). Pure."""
    kind = type(exc).__name__
    return (
        kind in {"Timeout", "TimeoutError", "ReadTimeout"}
        or "timeout" in kind.lower()
        or "timed out" in str(exc).lower()
    )


def model_failure(target: ModelEndpoint, exc: BaseException, *, timeout_setting: str, server_setting: str) -> str:
    """One sentence for a model call that failed, naming the setting that fixes it (pure: it reads the error's
    class name and text, so it needs no litellm import).

    `timeout_setting` names the variable of this call's time limit; `server_setting` says where the model's
    server is configured (e.g. "the agent's apiBase in agents.json")."""
    kind = type(exc).__name__
    text = str(exc).lower()
    where = target.where()
    if kind == "AuthenticationError" or " 401" in text or "invalid api key" in text:
        key = model_key_variable(target.model, target.api_base)
        fix = f"set {key} (or THINKER_API_KEY) to a valid key" if key else "check the key the server expects"
        return f"The model {where} refused the key: {fix}."
    if is_timeout(exc):
        return (
            f"The model {where} did not answer within {target.timeout:g} s: raise {timeout_setting} or use a "
            "faster model."
        )
    if kind == "NotFoundError" or "not found" in text:
        return f"The model {where} does not exist there: pull it on that server, or change the model in agents.json."
    if kind == "RateLimitError" or " 429" in text:
        return f"The model {where} is rate-limited by its provider: wait a moment, or use another model."
    if kind in {
        "APIConnectionError",
        "ServiceUnavailableError",
        "ConnectError",
        "ConnectionError",
        "ClientConnectorError",
    } or ("connect" in text):
        return f"The model {where} cannot be reached: start that server, or fix {server_setting}."
    return f"The model {where} failed ({describe_llm_error(exc, 160)}): check the model and {server_setting}."


def model_server_setting(model: str, api_base: str | None) -> str:
    """Where a model's server is configured, for a sentence that says what to fix."""
    if api_base and not model.startswith(("ollama/", "ollama_chat/")):
        return "the apiBase in agents.json"
    if model.startswith(("ollama/", "ollama_chat/")):
        return "OLLAMA_HOST (or the apiBase in agents.json)"
    return "the network connection to the provider"


def describe_llm_error(exc: BaseException, limit: int = 240) -> str:
    """`APIConnectionError: Cannot connect to host ...`: the class and first line, litellm's prefix removed."""
    first = (str(exc).strip().splitlines() or [""])[0]
    first = re.sub(r"^litellm\.\w+:\s*", "", first)
    # aiohttp names its SSL context object ("ssl:<ssl.SSLContext object at 0x...>"): noise to a reader.
    first = re.sub(r"\s*ssl:<[^>]*>", "", first)
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return shorten(text, limit, "...")
