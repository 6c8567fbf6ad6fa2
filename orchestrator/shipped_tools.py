"""Write or check the `tools.json` shipped beside the manifest of each MCP that `needs` a setting.

    python -m orchestrator.shipped_tools           # write them from the live servers
    python -m orchestrator.shipped_tools --check   # exit 1 naming each file that differs from its live server

Each such MCP is started as the hub would start it unconfigured (a fresh `ANNABELLE_HOME`, its `needs` variables
removed from the environment) and asked `tools/list`; the answer, in the server's order, is the file. The hub lists
these tools while the MCP is not started (see `on_demand`), so a tool added to the server without running this
command would be missing from the hub until the MCP's first start: the test suite runs `--check`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from orchestrator.discovery import McpSpec, discover
from orchestrator.mcp_client import list_all_tools
from orchestrator.on_demand import shipped_tools_path
from shared.settings import REPO_ROOT


def packages_with_needs(root: Path = REPO_ROOT) -> list[McpSpec]:
    return [spec for spec in discover(root, {}).specs if spec.manifest.needs is not None]


async def live_tools(spec: McpSpec) -> list[dict[str, Any]]:
    """`tools/list` of the package's real server, started unconfigured, as JSON."""
    needs = spec.manifest.needs
    assert needs is not None
    unset = {*needs.variables, *(setting.variable for setting in needs.files)}
    with tempfile.TemporaryDirectory(prefix="shipped-tools-") as home:
        env = {key: value for key, value in os.environ.items() if key not in unset}
        env.update({"ANNABELLE_HOME": home, "ANNABELLE_STDERR_LOG_LEVEL": "ERROR", "PYTHONPATH": str(REPO_ROOT)})
        params = StdioServerParameters(command=sys.executable, args=["-m", spec.package], env=env, cwd=str(REPO_ROOT))
        async with Client(params) as client:
            tools = await list_all_tools(client)
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


def render(tools: list[dict[str, Any]]) -> str:
    return json.dumps(tools, indent=2, ensure_ascii=False) + "\n"


async def stale_files(write: bool) -> list[Path]:
    """The files that differ from their live server (written anew when `write`)."""
    stale = []
    for spec in packages_with_needs():
        path = shipped_tools_path(spec)
        text = render(await live_tools(spec))
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text:
            stale.append(path)
            if write:
                path.write_text(text, encoding="utf-8")
    return stale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file is out of date")
    options = parser.parse_args()
    stale = anyio.run(stale_files, not options.check)
    names = ", ".join(str(path.relative_to(REPO_ROOT)) for path in stale)
    if options.check and stale:
        sys.exit(f"out of date: {names}; run `python -m orchestrator.shipped_tools` and commit the files.")
    print(f"written: {names}" if stale else "every shipped tool list matches its server")


if __name__ == "__main__":
    main()
