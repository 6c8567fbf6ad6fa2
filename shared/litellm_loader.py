"""litellm, imported once per process and made safe, and its errors told in one line.

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
from typing import Any

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


def describe_llm_error(exc: BaseException, limit: int = 240) -> str:
    """`APIConnectionError: Cannot connect to host ...`: the class and first line, litellm's prefix removed."""
    first = (str(exc).strip().splitlines() or [""])[0]
    first = re.sub(r"^litellm\.\w+:\s*", "", first)
    # aiohttp names its SSL context object ("ssl:<ssl.SSLContext object at 0x...>"): noise to a reader.
    first = re.sub(r"\s*ssl:<[^>]*>", "", first)
    text = f"{type(exc).__name__}: {first}" if first else type(exc).__name__
    return text if len(text) <= limit else text[:limit] + "..."
