"""Filer settings and manifest: defaults under ANNABELLE_HOME, overrides from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from filer_mcp.settings import DEFAULT_MAX_READ_BYTES, FilerSettings
from shared.manifest import load_manifest
from shared.settings import ConfigError, load_settings

PACKAGE = Path(__file__).resolve().parents[2] / "filer_mcp"


def test_every_location_defaults_to_a_place_under_annabelle_home(annabelle_home: Path) -> None:
    settings = load_settings(FilerSettings)
    home = annabelle_home.resolve()
    assert settings.workspace == home / "workspace"
    assert settings.grants_config == home / "filer" / "grants.json"
    assert settings.audit_log == home / "logs" / "fileops-audit.jsonl"
    assert settings.filer_temp_cleanup_days == 7
    assert settings.filer_max_read_bytes == DEFAULT_MAX_READ_BYTES == 10 * 1024 * 1024


def test_environment_variables_override_the_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILER_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("FILER_GRANTS_CONFIG", str(tmp_path / "g.json"))
    monkeypatch.setenv("FILER_AUDIT_LOG", str(tmp_path / "a.jsonl"))
    monkeypatch.setenv("FILER_TEMP_CLEANUP_DAYS", "0")
    monkeypatch.setenv("FILER_MAX_READ_BYTES", "1024")
    settings = load_settings(FilerSettings)
    assert (settings.workspace, settings.grants_config, settings.audit_log) == (
        tmp_path / "ws",
        tmp_path / "g.json",
        tmp_path / "a.jsonl",
    )
    assert (settings.filer_temp_cleanup_days, settings.filer_max_read_bytes) == (0, 1024)


def test_a_blank_workspace_variable_means_the_default(annabelle_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FILER_WORKSPACE", "  ")
    assert load_settings(FilerSettings).workspace == annabelle_home.resolve() / "workspace"


@pytest.mark.parametrize(
    ("variable", "value"),
    [("FILER_MAX_READ_BYTES", "0"), ("FILER_MAX_READ_BYTES", "ten"), ("FILER_TEMP_CLEANUP_DAYS", "-1")],
)
def test_a_bad_value_is_named_in_the_configuration_error(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=variable):
        load_settings(FilerSettings)


def test_the_manifest_declares_the_filer_as_the_hub_expects() -> None:
    manifest = load_manifest(PACKAGE / "manifest.json")
    assert manifest.mcpName == "filer"
    assert (manifest.label, manifest.toolGroup) == ("Workspace Files", "File Management")
    assert manifest.keywords == ["file", "document", "save", "workspace"]
    assert manifest.guardianScan.input is True and manifest.guardianScan.output is True
    assert manifest.allowDestructiveTools is True
    assert manifest.timeout == 30
