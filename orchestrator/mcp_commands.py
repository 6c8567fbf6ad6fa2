"""How each MCP is run: the command line, environment and working folder of its child process.

Kept free of the web stack and the MCP SDK: `serve()` builds these commands before the hub's heavy imports, to
fork the first-party MCPs early (`prestart`), and the hub builds the same ones again to adopt those children.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.discovery import McpSpec
from shared.logs import STDERR_LEVEL_VARIABLE
from shared.settings import REPO_ROOT

if TYPE_CHECKING:
    from orchestrator.settings import OrchestratorSettings


@dataclass(frozen=True)
class ChildCommand:
    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: Path
    module: str | None = None
    """Set for a first-party MCP (`python -m <module>`): it starts as a fork of the warm interpreter, its
    arguments being `argv` after `-m <module>`. Otherwise `argv` is run as a new process."""

    @property
    def module_args(self) -> list[str]:
        """The arguments after `-m <module>` (what the module sees in `sys.argv[1:]`)."""
        args = list(self.argv)
        return args[args.index(self.module) + 1 :] if self.module in args else []


def child_command(spec: McpSpec, settings: OrchestratorSettings, environ: Mapping[str, str]) -> ChildCommand:
    """How to run one MCP: `python -m <package>` unless the manifest names another command."""
    manifest = spec.manifest
    if manifest.command:
        argv = [manifest.command, *manifest.args]
    else:
        argv = [sys.executable, "-m", spec.package, *manifest.args]
    paths = [str(settings.annabelle_mcps_root), str(REPO_ROOT)]
    if environ.get("PYTHONPATH"):
        paths.append(environ["PYTHONPATH"])
    env = {
        **environ,
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)),
        "PYTHONUNBUFFERED": "1",
        "ANNABELLE_HOME": str(settings.annabelle_home),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        STDERR_LEVEL_VARIABLE: "WARNING",
    }
    if manifest.command:
        return ChildCommand(argv=argv, env=env, cwd=spec.directory)
    return ChildCommand(argv=argv, env=env, cwd=REPO_ROOT, module=spec.package)
