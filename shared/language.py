"""Which languages a text is likely written in, by py3langid (a naive Bayes model over byte n-grams for 97
languages, bundled with its wheel: nothing is downloaded).

    share_in("přesuň schůzku na pátek", USE_LANGUAGES)   # about 0.0: Czech is not among them
    share_in("move the meeting to friday", USE_LANGUAGES)  # about 1.0

The model takes about a second to load, once per process (`load`, called in the background where a caller can);
a text then takes about 0.05 ms. Its probabilities are calibrated by text length (py3langid's `norm_probs`), so a
short message spreads its mass over the languages it could be instead of naming one: callers weigh by the share,
they do not pick a language and trust it.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

from py3langid.langid import MODEL_FILE, LanguageIdentifier

_MAX_CHARS = 2_000
"""The opening of a text that is read: a language shows in its first lines, and the cost grows with length."""

_lock = threading.Lock()
_identifier: LanguageIdentifier | None = None


def load() -> LanguageIdentifier:
    """The model, loaded on first use (thread-safe)."""
    global _identifier
    with _lock:
        if _identifier is None:
            _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
        return _identifier


def share_in(text: str, languages: Collection[str]) -> float | None:
    """The probability that `text` is in one of `languages` (ISO 639-1 codes); None for a text with nothing to go
    on (no letters: "12:30", "👍")."""
    opening = text[:_MAX_CHARS]
    if not any(character.isalpha() for character in opening):
        return None  # the model would give its priors, or its "no language" class
    return float(sum(p for language, p in load().rank(opening) if language in languages))
