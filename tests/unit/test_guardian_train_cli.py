"""The training command refuses an output folder it cannot make before it trains, not minutes later at export."""

import subprocess
import sys
from pathlib import Path


def test_an_output_folder_that_cannot_be_made_is_refused_at_once(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    done = subprocess.run(
        [sys.executable, "-m", "guardian_mcp.train", "--out-dir", str(blocker / "model")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == f"train.py: error: --out-dir {blocker / 'model'}: Not a directory"
