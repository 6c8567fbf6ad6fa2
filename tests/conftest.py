"""Test-wide rules: no test touches the real home, the real network or a real key."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# litellm must never phone home for its price list, in tests or anywhere (see python-stack-notes.md).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# A hub under test starts a Thinker only when its test asks for one: a warm-started Thinker of the shipped
# agents.json would hold THINKER_PORT (8006) for the life of a module's hub, and every other hub starting meanwhile
# would refuse to start. Set here too for module-scoped hubs, which start before the per-test fixture below.
os.environ["THINKER_WARM_START"] = "false"
# Nor do its MCPs warm up (`MCP_WARM_UP`): Guardian's first classifier scan and the Memorizer's model load would cost
# every hub under test seconds of CPU that the test does not ask for.
os.environ["MCP_WARM_UP"] = "false"

# Variables that change behaviour: cleared so the developer's own shell cannot leak into a test.
_BEHAVIOUR_VARIABLES = (
    "ANNABELLE_TOKEN",
    "ANNABELLE_BIND_HOST",
    "ANNABELLE_ENV_FILE",
    "ORCHESTRATOR_PORT",
    "THINKER_PORT",
    "AGENTS_CONFIG",
    "EXTERNAL_MCPS_CONFIG",
    "FILER_WORKSPACE",
    "FILER_GRANTS_CONFIG",
    "GUARDIAN_FAIL_MODE",
    "GUARDIAN_SCANNER",
    "GUARDIAN_JUDGE_MODEL",
    "GUARDIAN_JUDGE_API_BASE",
    "GUARDIAN_JUDGE_API_KEY",
    "GUARDIAN_JUDGE_STYLE",
    "GUARDIAN_JUDGE_TIMEOUT",
    "GUARDIAN_JUDGE_RETRIES",
    "GUARDIAN_JUDGE_MAX_CHARS",
    "GUARDIAN_RULE_THRESHOLD",
    "GUARDIAN_AUDIT_LOG",
    "OLLAMA_HOST",
    "EMBEDDING_PROVIDER",
    "EMBEDDING_MODEL",
    "EMBEDDING_CACHE_DIR",
    "MEMORY_DB_PATH",
    "MEMORY_EXPORT_PATH",
    "MEMORY_VECTOR_WEIGHT",
    "MEMORY_TEXT_WEIGHT",
    "MEMORY_SIMILARITY_THRESHOLD",
    "MEMORY_KEY_WEIGHT",
    "MEMORY_MODEL_DECISIONS",
    "FACT_EXTRACTION_ENABLED",
    "UTILITY_MODEL",
    "UTILITY_API_BASE",
    "UTILITY_API_KEY",
    "FILER_AUDIT_LOG",
    "FILER_TEMP_CLEANUP_DAYS",
    "FILER_MAX_READ_BYTES",
    "ANNABELLE_MCPS_ROOT",
    "ANNABELLE_PUBLIC_DOCS",
    "ORCHESTRATOR_URL",
    "MCP_BRIDGE_POLL_SECONDS",
    "ORCHESTRATOR_MAX_BODY_BYTES",
    "MCP_HEALTH_INTERVAL_SECONDS",
    "MCP_HEALTH_TIMEOUT_SECONDS",
    "MCP_RESTART_BASE_SECONDS",
    "MCP_STARTUP_TIMEOUT_SECONDS",
    "MCP_WARM_UP",
    "LOG_LEVEL",
    "ANNABELLE_STDERR_LOG_LEVEL",
    "OPENAI_API_KEY",
    "GROQ_API_KEY",
    "ANTHROPIC_API_KEY",
    "TELEGRAM_BOT_TOKEN",
    "TELEGRAM_API_BASE",
    "TELEGRAM_ALLOWED_CHAT_IDS",
    "TELEGRAM_POLL_TIMEOUT_SECONDS",
    "BRAVE_API_KEY",
    "BRAVE_API_BASE",
    "BRAVE_RATE_LIMIT_MS",
    "BRAVE_TIMEOUT_SECONDS",
    "WEB_FETCH_MAX_LENGTH",
    "WEB_FETCH_ALLOWED_HOSTS",
    "BROWSER_EXECUTABLE",
    "BROWSER_ISOLATED",
    "WEB_FETCH_MAX_BYTES",
    "WEB_FETCH_MAX_REDIRECTS",
    "GMAIL_CREDENTIALS_PATH",
    "GMAIL_TOKEN_PATH",
    "GMAIL_POLLING_ENABLED",
    "GMAIL_POLL_INTERVAL_SECONDS",
    "GMAIL_HTTP_TIMEOUT_SECONDS",
    "GOOGLE_API_BASE",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
# Whole families of settings, so a variable added later cannot leak from the developer's shell into a test.
_BEHAVIOUR_PREFIXES = (
    "ANNABELLE_",
    "GUARDIAN_",
    "TELEGRAM_",
    "CHANNEL_",
    "NOTIFY_",
    "THINKER_",
    "TOOL_SELECTOR_",
    "LOG_",
    "TRACES_",
    "DIAGNOSE_",
    "SKILL",
    "EXTERNAL_MCPS_",
    "MEMORY_",
    "FILER_",
    "GMAIL_",
    "BRAVE_",
    "WEB_FETCH_",
    "BROWSER_",
    "EMBEDDING_",
    "UTILITY_",
    "JOBS_",
    "ONEPASSWORD_",
    "OP_",
    "CODEXEC_",
)


@pytest.fixture(autouse=True)
def annabelle_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own ANNABELLE_HOME and a clean environment; no `.env` is read."""
    for name in _BEHAVIOUR_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.endswith("_MCP_ENABLED") or name.startswith(_BEHAVIOUR_PREFIXES):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("ANNABELLE_HOME", str(home))
    monkeypatch.setenv("ANNABELLE_ENV_FILE", str(tmp_path / "no.env"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("THINKER_WARM_START", "false")  # cleared with the THINKER_ variables above; see the top
    monkeypatch.setenv("MCP_WARM_UP", "false")  # likewise
    # configure_logging makes the process's new files private (umask 077); a test that calls it must not
    # change the modes later tests see.
    umask = os.umask(0o022)
    os.umask(umask)
    yield home
    os.umask(umask)
