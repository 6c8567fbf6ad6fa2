from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from shared.agents import AgentsConfig, AgentsConfigError, load_agents_config
from shared.auth import load_or_create_token, read_token, tokens_equal
from shared.envelope import ErrorCode, fail, ok
from shared.manifest import GuardianScan, ManifestError, load_manifest
from shared.settings import CommonSettings, ConfigError, load_settings


def test_a_success_envelope_carries_data_and_nothing_else() -> None:
    assert ok({"a": 1}) == {"success": True, "data": {"a": 1}}


def test_a_failure_envelope_names_its_code_and_only_says_blocked_when_blocked() -> None:
    assert fail(ErrorCode.TIMEOUT, "slow") == {"success": False, "error": "slow", "errorCode": "TIMEOUT"}
    blocked = fail(ErrorCode.BLOCKED, "no", blocked=True)
    assert blocked["blocked"] is True and blocked["errorCode"] == "BLOCKED"


def test_the_master_token_is_created_once_with_mode_0600(annabelle_home: Path) -> None:
    first = load_or_create_token(annabelle_home)
    second = load_or_create_token(annabelle_home)
    assert first == second and len(first) >= 40
    mode = stat.S_IMODE((annabelle_home / "annabelle.token").stat().st_mode)
    assert mode == 0o600


def test_a_token_file_readable_by_others_is_tightened(annabelle_home: Path) -> None:
    path = annabelle_home / "annabelle.token"
    path.write_text("abc\n")
    path.chmod(0o644)
    assert load_or_create_token(annabelle_home) == "abc"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_environment_token_wins_over_the_file(annabelle_home: Path) -> None:
    (annabelle_home / "annabelle.token").write_text("from-file")
    assert read_token(annabelle_home, "from-env") == "from-env"
    assert read_token(annabelle_home, None) == "from-file"


@pytest.mark.parametrize(("given", "expected"), [("abc", True), ("abd", False), ("", False), (None, False)])
def test_tokens_are_compared_exactly(given: str | None, expected: bool) -> None:
    assert tokens_equal(given, "abc") is expected


def test_a_bad_setting_is_reported_by_its_variable_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOG_LEVEL", "LOUD")
    with pytest.raises(ConfigError) as caught:
        load_settings(CommonSettings)
    assert "LOG_LEVEL" in str(caught.value) and "LOUD" in str(caught.value)


def test_settings_are_read_from_the_env_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / "custom.env"
    env_file.write_text("LOG_LEVEL=debug\nANNABELLE_BIND_HOST=0.0.0.0\n")
    monkeypatch.setenv("ANNABELLE_ENV_FILE", str(env_file))
    settings = load_settings(CommonSettings)
    assert settings.log_level == "DEBUG" and settings.annabelle_bind_host == "0.0.0.0"


def _write_manifest(folder: Path, **fields: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "manifest.json"
    path.write_text(json.dumps({"mcpName": "demo", "label": "Demo", "toolGroup": "Demo", **fields}))
    return path


def test_a_manifest_with_an_unknown_field_is_rejected_naming_the_file_and_field(tmp_path: Path) -> None:
    path = _write_manifest(tmp_path / "demo_mcp", sensitive=True)
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert str(path) in str(caught.value) and "sensitive" in str(caught.value)


def test_a_manifest_name_with_an_underscore_is_rejected_because_it_would_break_prefixes(tmp_path: Path) -> None:
    with pytest.raises(ManifestError):
        load_manifest(_write_manifest(tmp_path / "x_mcp", mcpName="my_tool"))


@pytest.mark.parametrize(
    "needs",
    [{"hint": "set X"}, {"variables": ["lower_case"], "hint": "set it"}, {"variables": ["X_TOKEN"], "hint": ""}],
)
def test_a_manifest_that_needs_a_setting_must_name_a_variable_or_file_and_a_hint(
    tmp_path: Path, needs: dict[str, object]
) -> None:
    with pytest.raises(ManifestError) as caught:
        load_manifest(_write_manifest(tmp_path / "demo_mcp", needs=needs))
    assert "needs" in str(caught.value)


@pytest.mark.parametrize(
    ("scan", "tool", "expected"),
    [
        (GuardianScan(input=True), "read", True),
        (GuardianScan(input=False), "read", False),
        (GuardianScan(input=["store_*", "update_*"]), "store_fact", True),
        (GuardianScan(input=["store_*", "update_*"]), "list_facts", False),
    ],
)
def test_input_scanning_can_be_limited_to_some_tools(scan: GuardianScan, tool: str, expected: bool) -> None:
    assert scan.scans_input(tool) is expected


def test_no_agents_file_means_the_single_default_agent(tmp_path: Path) -> None:
    config = load_agents_config(tmp_path / "missing.json")
    assert [agent.agentId for agent in config.agents] == ["annabelle"]
    assert config.agents[0].costControls.hardCapTokensPerHour == 250_000


def test_agents_file_errors_name_the_agent_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    path.write_text(json.dumps({"agents": [{"agentId": "work", "temperature": 7}]}))
    with pytest.raises(AgentsConfigError) as caught:
        load_agents_config(path)
    assert "agent 'work'" in str(caught.value) and "temperature" in str(caught.value)


def test_bindings_must_name_existing_agents() -> None:
    with pytest.raises(ValueError, match="unknown agents: ghost"):
        AgentsConfig.model_validate(
            {"agents": [{"agentId": "a"}], "bindings": [{"channel": "telegram", "agentId": "ghost"}]}
        )


def test_an_envelope_with_lone_surrogates_still_encodes_as_utf8() -> None:
    from shared.mcp_tools import envelope_result

    result = envelope_result({"success": True, "data": {"name": "caf\udce9.txt"}})
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.encode("utf-8") and "caf?.txt" in text


@pytest.mark.parametrize(
    ("model", "api_base", "expected"),
    [
        ("ollama_chat/qwen2.5:7b", None, "http://ollama:11434"),
        ("ollama/llama3", None, "http://ollama:11434"),
        ("ollama_chat/qwen2.5:7b", "http://gpu-box:11434", "http://gpu-box:11434"),
        ("groq/llama-3.3-70b-versatile", None, None),
        ("openai/local-model", "http://127.0.0.1:1234/v1", "http://127.0.0.1:1234/v1"),
    ],
)
def test_an_ollama_model_without_an_api_base_uses_ollama_host(
    model: str, api_base: str | None, expected: str | None
) -> None:
    from shared.litellm_loader import model_api_base

    assert model_api_base(model, api_base, "http://ollama:11434") == expected


def test_the_shipped_agents_file_and_every_manifest_are_valid() -> None:
    from orchestrator.settings import REPO_ROOT

    config = load_agents_config(REPO_ROOT / "agents.json")
    assert [agent.agentId for agent in config.agents] == ["annabelle"]
    assert config.agents[0].apiBase is None  # Ollama models follow OLLAMA_HOST (docker compose sets it)
    manifests = sorted(REPO_ROOT.glob("*_mcp/manifest.json"))
    assert len(manifests) >= 6
    for path in manifests:
        load_manifest(path)


def test_a_blank_value_in_the_env_file_means_unset_for_optional_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shared.embeddings import EmbeddingSettings

    env_file = tmp_path / "blank.env"
    env_file.write_text("EMBEDDING_CACHE_DIR=\nEMBEDDING_MODEL=   \nANNABELLE_TOKEN=\n")
    monkeypatch.setenv("ANNABELLE_ENV_FILE", str(env_file))
    settings = load_settings(EmbeddingSettings)
    assert settings.embedding_cache_dir is None  # not Path("") = the current directory
    assert settings.embedding_model is None and settings.annabelle_token is None


def test_an_llm_error_reads_as_one_plain_sentence() -> None:
    from shared.litellm_loader import describe_llm_error

    class APIConnectionError(Exception):
        pass

    raw = (
        "litellm.APIConnectionError: Ollama_chatException - Cannot connect to host localhost:11434 "
        "ssl:<ssl.SSLContext object at 0x7f75b8a7e720> [Connect call failed ('127.0.0.1', 11434)]\nTraceback..."
    )
    assert describe_llm_error(APIConnectionError(raw)) == (
        "APIConnectionError: Ollama_chatException - Cannot connect to host localhost:11434 "
        "[Connect call failed ('127.0.0.1', 11434)]"
    )
