"""The utility model seam: `TextCompletion(prompt) -> answer`, with a default that goes through litellm.

Compaction summaries and fact extraction take any `TextCompletion`; tests pass scripted functions, the Thinker
passes `litellm_completion(UTILITY_MODEL, ...)`. litellm is imported on the first call, in a worker thread: the
import takes seconds and most processes start without needing it at once. `LITELLM_LOCAL_MODEL_COST_MAP` is set
first (no download of a price list) and litellm's feedback banner is switched off.

Every call's token usage goes to `on_usage(prompt_tokens, completion_tokens)` when given, so the cost monitor
sees these calls too (the original counted them; a runaway summariser is still a runaway).
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from thinker.sessions.errors import UtilityModelError
from thinker.sessions.messages import ChatMessage, system_message, user_message

TextCompletion = Callable[[str], Awaitable[str]]
"""Send one prompt to a model, get its text answer; raises on failure."""
UsageCallback = Callable[[int, int], None]
"""Receives (prompt_tokens, completion_tokens) of each call; `CostMonitor.record` fits."""

DEFAULT_TIMEOUT = 30.0

_litellm: Any = None
_import_lock = threading.Lock()


def _import_litellm() -> Any:
    global _litellm
    with _import_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            _litellm = litellm
    return _litellm


def describe_exception(exc: BaseException) -> str:
    """One short line for an error: its class and the first line of its message, litellm's prefix removed."""
    first = (str(exc).strip().splitlines() or [""])[0]
    first = re.sub(r"^litellm\.\w+:\s*", "", first)
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return text if len(text) <= 240 else text[:240] + "..."


def _usage_counts(response: Any) -> tuple[int, int]:
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", 0)
    completion = getattr(usage, "completion_tokens", 0)
    return (prompt if isinstance(prompt, int) else 0, completion if isinstance(completion, int) else 0)


def litellm_completion(
    model: str,
    api_base: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    *,
    system: str | None = None,
    json_mode: bool = False,
    max_tokens: int = 1_000,
    temperature: float = 0.2,
    on_usage: UsageCallback | None = None,
) -> TextCompletion:
    """A `TextCompletion` calling `model` through litellm: `system` (if any) then the prompt as the user message.

    Failures become `UtilityModelError` naming the model and the variables that choose it.
    """
    where = f"{model} at {api_base}" if api_base else model

    async def complete(prompt: str) -> str:
        litellm = await asyncio.to_thread(_import_litellm)
        messages: list[ChatMessage] = [system_message(system)] if system else []
        messages.append(user_message(prompt))
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "timeout": timeout,
            "num_retries": 0,
            # A provider that lacks an option (e.g. JSON mode) should ignore it, not fail the call.
            "drop_params": True,
        }
        if api_base:
            kwargs["api_base"] = api_base
        if api_key:
            kwargs["api_key"] = api_key
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as exc:
            raise UtilityModelError(
                f"The utility model {where} did not answer ({describe_exception(exc)}). "
                "Check that it is running, or set UTILITY_MODEL (and UTILITY_API_BASE) to one that is."
            ) from None
        if on_usage is not None:
            on_usage(*_usage_counts(response))
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError):
            content = None
        if not isinstance(content, str) or not content.strip():
            raise UtilityModelError(f"The utility model {where} returned an empty answer.")
        return content

    return complete


__all__ = ["DEFAULT_TIMEOUT", "TextCompletion", "UsageCallback", "describe_exception", "litellm_completion"]
