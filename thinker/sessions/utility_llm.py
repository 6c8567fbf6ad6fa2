"""The utility model seam: compaction summaries and fact extraction take any `TextCompletion`.

Tests pass scripted functions; the Thinker passes one built on its `ModelClient` (thinker/llm.py), the single
seam for model calls, so these calls share its circuit breaker and count in the cost monitor.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

TextCompletion = Callable[[str], Awaitable[str]]
"""Send one prompt to a model, get its text answer; raises on failure."""

DEFAULT_TIMEOUT = 30.0

__all__ = ["DEFAULT_TIMEOUT", "TextCompletion"]
