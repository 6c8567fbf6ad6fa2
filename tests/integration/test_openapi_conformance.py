"""The hub's API does what its OpenAPI description says: schemathesis (an independent client) drives every
operation with generated requests, valid and invalid, against the real hub on loopback, with all its checks
(documented status codes and bodies, schema-violating requests refused, valid ones accepted, no 5xx)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hub_process import RunningHub, start_hub

pytestmark = pytest.mark.slow

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
EXAMPLES_PER_OPERATION = 60
"""About 1,300 requests over the hub's operations in all phases: enough to find what the full runs found."""


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningHub]:
    workdir = tmp_path_factory.mktemp("openapi")
    env = {
        "EMBEDDING_PROVIDER": "none",
        "GUARDIAN_CLASSIFIER": "off",
        "AGENTS_CONFIG": str(workdir / "no-agents.json"),
        "EXTERNAL_MCPS_CONFIG": str(workdir / "no-externals.json"),
        "DIAGNOSE_INTERVAL_MINUTES": "0",
    }
    with start_hub(workdir, workdir / "home", ["guardian_mcp", "echo_mcp"], env=env) as running:
        yield running


@pytest.mark.skipif(not SCHEMATHESIS.exists(), reason="schemathesis is not installed (pip install -e '.[dev]')")
def test_schemathesis_finds_no_failure_in_a_thousand_requests(hub: RunningHub, tmp_path: Path) -> None:
    result = subprocess.run(
        [
            str(SCHEMATHESIS),
            "run",
            f"{hub.url}/openapi.json",
            "--header",
            f"X-Annabelle-Token: {hub.token}",
            "--checks",
            "all",
            "--max-examples",
            str(EXAMPLES_PER_OPERATION),
            "--seed",
            "20261125",
            "--generation-database",
            ":memory:",
            "--no-color",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    summary = re.search(r"(\d+) generated, (\d+) passed", result.stdout)
    assert result.returncode == 0 and summary is not None, result.stdout[-4000:]
    generated, passed = int(summary[1]), int(summary[2])
    assert generated >= 1000 and passed == generated
