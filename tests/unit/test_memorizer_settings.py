"""Memorizer settings and manifest."""

from __future__ import annotations

from pathlib import Path

import pytest

from memorizer_mcp.llm import config_from_settings
from memorizer_mcp.settings import MemorizerSettings
from shared.agents import DEFAULT_MODEL
from shared.manifest import load_manifest
from shared.settings import ConfigError, load_settings

PACKAGE = Path(__file__).resolve().parents[2] / "memorizer_mcp"


def test_the_manifest_loads_and_scans_only_the_writing_tools() -> None:
    manifest = load_manifest(PACKAGE / "manifest.json")
    assert manifest.mcpName == "memory"
    assert manifest.label == "Memory" and manifest.toolGroup == "Knowledge & Memory"
    assert manifest.timeout == 60 and manifest.allowDestructiveTools
    assert manifest.guardianScan.output is False
    scanned = {"store_fact", "update_profile", "import_memory", "create_contact", "link_project_source",
               "synthesize_facts", "backfill_embeddings"}  # fmt: skip
    assert all(manifest.guardianScan.scans_input(tool) for tool in scanned)
    assert not any(
        manifest.guardianScan.scans_input(tool) for tool in ("retrieve_memories", "list_facts", "delete_fact")
    )


def test_defaults_live_under_annabelle_home(annabelle_home: Path) -> None:
    settings = load_settings(MemorizerSettings)
    home = annabelle_home.resolve()
    assert settings.db_path == home / "data" / "memory.db"
    assert settings.export_path == home / "memory-export"
    assert settings.workspace == home / "workspace"
    assert (settings.memory_vector_weight, settings.memory_text_weight) == (0.6, 0.4)
    assert settings.memory_similarity_threshold == 0.6
    assert settings.fact_extraction_enabled is True
    assert settings.utility_model is None
    config = config_from_settings(settings)  # unset: the default agent's model, on its Ollama
    assert config is not None and (config.model, config.api_base) == (DEFAULT_MODEL, "http://localhost:11434")


def test_utility_model_off_switches_the_llm_tools_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTILITY_MODEL", "off")
    assert config_from_settings(load_settings(MemorizerSettings)) is None


def test_an_explicit_api_base_and_key_reach_the_model_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UTILITY_MODEL", "openai/small")
    monkeypatch.setenv("UTILITY_API_BASE", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("UTILITY_API_KEY", "k")
    config = config_from_settings(load_settings(MemorizerSettings))
    assert config is not None
    assert (config.model, config.api_base, config.api_key) == ("openai/small", "http://127.0.0.1:9/v1", "k")


@pytest.mark.parametrize(
    ("variable", "value"),
    [("MEMORY_VECTOR_WEIGHT", "1.5"), ("MEMORY_SIMILARITY_THRESHOLD", "0"), ("FACT_EXTRACTION_ENABLED", "maybe")],
)
def test_bad_values_fail_with_the_variable_named(monkeypatch: pytest.MonkeyPatch, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=variable):
        load_settings(MemorizerSettings)


def test_both_weights_zero_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_VECTOR_WEIGHT", "0")
    monkeypatch.setenv("MEMORY_TEXT_WEIGHT", "0")
    with pytest.raises(ConfigError, match="cannot both be 0"):
        load_settings(MemorizerSettings)
