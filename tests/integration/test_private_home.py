"""After a real session (hub, Guardian, Filer, Memorizer with the local embedder, Searcher, Telegram, Gmail), every
file under ANNABELLE_HOME is 0600 and every folder 0700, including files an older version left readable."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.hub_process import start_hub

pytestmark = pytest.mark.slow

PACKAGES = ["guardian_mcp", "filer_mcp", "memorizer_mcp", "searcher_mcp", "telegram_mcp", "gmail_mcp"]


def test_everything_a_session_writes_under_the_home_is_private(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True, mode=0o755)
    old_audit = home / "logs" / "guardian-audit.jsonl"
    old_audit.write_text("")
    old_audit.chmod(0o644)  # as an older version created it
    with start_hub(tmp_path, home, PACKAGES, env={"LOG_LEVEL": "DEBUG"}) as hub:
        assert hub.call("filer_create_file", {"path": "notes/deep/a.md", "content": "private"})["success"]
        assert hub.call("memory_store_fact", {"fact": "The user likes green tea", "category": "preference"})["success"]
        assert hub.call("memory_retrieve_memories", {"query": "tea"})["success"]
        assert hub.call("memory_export_memory", {})["success"]
        assert hub.call("filer_get_audit_log", {})["success"]
    loose = {
        str(path.relative_to(home)): oct(stat.S_IMODE(path.lstat().st_mode))
        for path in [home, *home.rglob("*")]
        if not path.is_symlink() and stat.S_IMODE(path.lstat().st_mode) & 0o077
    }
    assert loose == {}
    written = {str(path.relative_to(home)) for path in home.rglob("*") if path.is_file()}
    expected = {
        "annabelle.token",
        "logs/orchestrator.log",
        "logs/guardian-audit.jsonl",
        "logs/fileops-audit.jsonl",
        "workspace/notes/deep/a.md",
    }
    assert expected <= written, written
    assert any(name.startswith("data/") and name.endswith(".db") for name in written), written
    assert any(name.startswith("memory-export/") for name in written), written
    assert os.path.getsize(old_audit) > 0  # the old file was kept and appended to, not replaced
