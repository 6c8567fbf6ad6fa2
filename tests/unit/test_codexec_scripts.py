"""The saved-script library: slugs, atomic files, search, run records."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from codexec_mcp.models import ScriptMetadata
from codexec_mcp.scripts import ScriptError, ScriptLibrary, matches, slugify


def library(tmp_path: Path) -> ScriptLibrary:
    days = itertools.count(1)
    return ScriptLibrary(tmp_path / "scripts", clock=lambda: f"2026-11-{next(days):02d}T10:00:00+00:00")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("CSV Cleaner", "csv-cleaner"),
        ("  report_v2!! ", "report-v2"),
        ("../../etc/passwd", "etc-passwd"),
        ("Ünïcode ok", "n-code-ok"),
        ("x" * 100, "x" * 64),
        ("!!!", ""),
    ],
)
def test_a_name_becomes_a_slug_that_can_never_be_a_path(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_a_saved_script_reads_back_with_its_metadata(tmp_path: Path) -> None:
    lib = library(tmp_path)
    metadata, created = lib.save("CSV Cleaner", "Cleans CSV", "python", "print(1)", ["Data", " csv ", ""], ["pandas"])
    assert created and metadata.name == "csv-cleaner" and metadata.tags == ["csv", "data"]
    content = lib.get("csv cleaner")
    assert content.code == "print(1)" and content.metadata.packages == ["pandas"]
    assert (tmp_path / "scripts" / "csv-cleaner" / "script.py").read_text() == "print(1)"
    assert not list((tmp_path / "scripts" / "csv-cleaner").glob("*.tmp"))


def test_saving_again_replaces_the_code_keeps_history_and_drops_the_old_languages_file(tmp_path: Path) -> None:
    lib = library(tmp_path)
    lib.save("job", "first", "python", "print(1)", [], [])
    lib.record_run("job", True)
    metadata, created = lib.save("job", "second", "bash", "echo 2", [], [])
    assert not created
    assert metadata.created_at == "2026-11-01T10:00:00+00:00" and metadata.run_count == 1
    assert metadata.language == "bash" and lib.get("job").code == "echo 2"
    assert not (tmp_path / "scripts" / "job" / "script.py").exists()


def test_runs_are_counted_with_their_last_outcome(tmp_path: Path) -> None:
    lib = library(tmp_path)
    lib.save("job", "d", "node", "console.log(1)", [], [])
    lib.record_run("job", True)
    lib.record_run("job", False)
    metadata = lib.get("job").metadata
    assert metadata.run_count == 2 and metadata.last_run_success is False and metadata.last_run_at is not None
    lib.record_run("deleted-meanwhile", True)  # no error, nothing created
    assert not (tmp_path / "scripts" / "deleted-meanwhile").exists()


def test_list_filters_by_language_and_tag_and_search_needs_every_word(tmp_path: Path) -> None:
    lib = library(tmp_path)
    lib.save("csv cleaner", "Removes empty rows from CSV files", "python", "pass", ["data"], [])
    lib.save("disk report", "Shows disk usage", "bash", "df -h", ["ops"], [])
    lib.save("json pretty", "Pretty-prints JSON", "node", "1", ["data"], [])
    assert [s.name for s in lib.list(None, None)] == ["csv-cleaner", "disk-report", "json-pretty"]
    assert [s.name for s in lib.list("bash", None)] == ["disk-report"]
    assert [s.name for s in lib.list(None, "DATA")] == ["csv-cleaner", "json-pretty"]
    assert [s.name for s in lib.search("csv rows")] == ["csv-cleaner"]
    assert [s.name for s in lib.search("data")] == ["csv-cleaner", "json-pretty"]
    assert lib.search("csv disk") == []


def test_missing_scripts_and_unusable_names_are_sentences(tmp_path: Path) -> None:
    lib = library(tmp_path)
    with pytest.raises(ScriptError, match="No saved script is named 'nope'"):
        lib.get("nope")
    with pytest.raises(ScriptError, match="No saved script"):
        lib.delete("nope")
    with pytest.raises(ScriptError, match="not a usable script name"):
        lib.save("***", "d", "python", "x", [], [])


def test_a_corrupt_metadata_file_hides_that_script_instead_of_breaking_the_list(tmp_path: Path) -> None:
    lib = library(tmp_path)
    lib.save("good", "d", "python", "x", [], [])
    (tmp_path / "scripts" / "broken").mkdir()
    (tmp_path / "scripts" / "broken" / "metadata.json").write_text("{not json")
    assert [s.name for s in lib.all()] == ["good"]


def test_delete_removes_the_scripts_folder(tmp_path: Path) -> None:
    lib = library(tmp_path)
    lib.save("gone", "d", "python", "x", [], [])
    assert lib.delete("Gone") == "gone"
    assert not (tmp_path / "scripts" / "gone").exists()


def test_matching_is_case_insensitive_over_name_description_and_tags() -> None:
    script = ScriptMetadata(
        name="csv-cleaner", description="Cleans FILES", language="python", tags=["data"], created_at="t", updated_at="t"
    )
    assert matches(script, "CSV files DATA") and not matches(script, "excel")
