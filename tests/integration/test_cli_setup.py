"""`annabelle setup gmail` runs Gmail's own setup as a process and reports its one-sentence errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.hub_process import REPO_ROOT


def test_setup_gmail_without_a_client_file_says_where_to_put_it(annabelle_home: Path) -> None:
    result = subprocess.run(
        [str(Path(sys.executable).parent / "annabelle"), "setup", "gmail"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert result.returncode == 1
    assert str(annabelle_home / "gmail" / "credentials.json") in result.stderr
    assert "GMAIL_CREDENTIALS_PATH" in result.stderr and "Traceback" not in result.stderr
