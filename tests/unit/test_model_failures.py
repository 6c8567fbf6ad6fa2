"""A failed model call is told in one sentence that names the setting to fix (shared/litellm_loader.py)."""

from __future__ import annotations

import pytest

from shared.litellm_loader import ModelEndpoint, endpoint, model_failure, model_server_setting


def error(kind: str, text: str) -> Exception:
    """An exception of the class name litellm uses (the sentence reads the name, never imports litellm)."""
    return type(kind, (Exception,), {})(text)


OLLAMA = endpoint("ollama_chat/qwen2.5:7b", None, None, ollama_host="http://localhost:11434", timeout=90)
GROQ = ModelEndpoint("groq/llama-3.3-70b-versatile", None, None, 90)


def sentence(target: ModelEndpoint, exc: Exception) -> str:
    server = model_server_setting(target.model, target.api_base)
    return model_failure(target, exc, timeout_setting="THINKER_LLM_TIMEOUT_SECONDS", server_setting=server)


@pytest.mark.parametrize(
    ("target", "exc", "names"),
    [
        (OLLAMA, error("APIConnectionError", "Cannot connect to host localhost:11434"), "OLLAMA_HOST"),
        (GROQ, error("AuthenticationError", "Invalid API Key"), "GROQ_API_KEY"),
        (OLLAMA, error("Timeout", "Request timed out"), "THINKER_LLM_TIMEOUT_SECONDS"),
        (OLLAMA, error("NotFoundError", "model 'qwen2.5:7b' not found"), "agents.json"),
        (GROQ, error("RateLimitError", "429 Too Many Requests"), "wait a moment"),
        (
            endpoint("openai/local", "http://127.0.0.1:8088/v1", None, ollama_host="", timeout=90),
            error("APIConnectionError", "Connection refused"),
            "apiBase in agents.json",
        ),
    ],
)
def test_each_failure_is_one_sentence_naming_what_to_fix(target: ModelEndpoint, exc: Exception, names: str) -> None:
    text = sentence(target, exc)
    assert names in text
    assert text.count(". ") == 0 and text.endswith(".")
    assert len(text) < 220


def test_the_placeholder_key_never_shows_and_a_local_server_needs_no_key_variable() -> None:
    local = endpoint("openai/local", "http://127.0.0.1:8088/v1", None, ollama_host="", timeout=30)
    text = sentence(local, error("AuthenticationError", "401 Unauthorized"))
    assert "no-key-needed" not in text and "OPENAI_API_KEY" not in text
