"""The grants file: validated, resolved, re-read on change, and reported (never fatal) when broken."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from filer_mcp.grants import GrantsConfigError, GrantStore, example_entry, parse_grants
from filer_mcp.paths import GrantRule


def _write(path: Path, content: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")


def test_a_missing_grants_file_grants_nothing(tmp_path: Path) -> None:
    assert GrantStore(tmp_path / "none.json").rules() == ()


def test_grants_are_resolved_to_their_real_folders(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    grants_file = tmp_path / "grants.json"
    _write(grants_file, {"grants": [{"path": str(tmp_path / "alias"), "permission": "read-write"}]})
    assert GrantStore(grants_file).rules() == (GrantRule(real, "read-write"),)


def test_permission_defaults_to_read(tmp_path: Path) -> None:
    grants_file = tmp_path / "grants.json"
    _write(grants_file, {"grants": [{"path": "/srv/docs"}]})
    assert GrantStore(grants_file, realpath=os.fspath).rules() == (GrantRule(Path("/srv/docs"), "read"),)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ({"grants": [{"path": "docs", "permission": "read"}]}, "must be an absolute path"),
        ({"grants": [{"path": "~/docs", "permission": "read"}]}, "'~' is not expanded"),
        ({"grants": [{"path": "/docs", "permission": "write"}]}, "grants.0.permission"),
        ({"grants": [{"path": "/docs", "mode": "read"}]}, "grants.0.mode"),
        ({"grant": []}, "grant: Extra inputs are not permitted"),
        ([], "(root)"),
    ],
)
def test_an_invalid_grants_file_is_reported_with_the_file_and_the_problem(
    tmp_path: Path, content: object, problem: str
) -> None:
    grants_file = tmp_path / "grants.json"
    _write(grants_file, content)
    with pytest.raises(GrantsConfigError) as caught:
        GrantStore(grants_file).rules()
    assert str(grants_file) in str(caught.value)
    assert problem in str(caught.value)


def test_an_edit_takes_effect_on_the_next_call_and_a_fix_clears_the_error(tmp_path: Path) -> None:
    grants_file = tmp_path / "grants.json"
    store = GrantStore(grants_file, realpath=os.fspath)
    _write(grants_file, {"grants": [{"path": "/a"}]})
    assert store.rules() == (GrantRule(Path("/a"), "read"),)
    _write(grants_file, {"grants": [{"path": "/a"}, {"path": "/b", "permission": "read"}]})
    assert len(store.rules()) == 2
    _write(grants_file, "{broken")
    with pytest.raises(GrantsConfigError):
        store.rules()
    _write(grants_file, {"grants": []})
    assert store.rules() == ()


def test_a_broken_grants_file_is_logged_once_not_on_every_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    grants_file = tmp_path / "grants.json"
    _write(grants_file, "{broken")
    store = GrantStore(grants_file)
    with caplog.at_level(logging.ERROR, logger="filer_mcp.grants"):
        for _ in range(3):
            with pytest.raises(GrantsConfigError):
                store.rules()
    assert len([record for record in caplog.records if "grants file rejected" in record.getMessage()]) == 1


def test_the_example_entry_is_what_the_file_expects() -> None:
    entry = example_entry("/srv/docs", "read-write")
    assert parse_grants(json.dumps({"grants": [entry]}), Path("g.json")).grants[0].path == "/srv/docs"
