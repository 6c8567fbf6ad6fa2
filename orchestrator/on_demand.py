"""MCPs left for first use: those whose manifest `needs` a setting that is not there yet.

Gmail without its OAuth client file, Telegram without a bot token, 1Password without a service account token can
do nothing but say what to configure, yet started with the others they cost a fifth of the MCPs' start-up CPU.
So the hub does not start them at start-up: it lists their tools from the `tools.json` shipped beside each
manifest (written from the live server by `python -m orchestrator.shipped_tools`, and kept equal to it by a test),
and starts the MCP on the first call to one of them (which then answers with the sentence naming the setting) or
once the setting appears. Hiding their tools instead would make an agent say "I cannot read mail" rather than name
the setting. An MCP whose `tools.json` is missing or unreadable is started with the others, as before.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path

from mcp.types import Tool
from pydantic import ValidationError

from orchestrator.discovery import McpSpec
from shared.settings import REPO_ROOT

log = logging.getLogger(__name__)

TOOLS_FILENAME = "tools.json"


def missing_setting(spec: McpSpec, environ: Mapping[str, str], home: Path) -> str | None:
    """What to configure before `spec`'s MCP can work (its manifest's `needs.hint`), or None when it can."""
    needs = spec.manifest.needs
    if needs is None or any(environ.get(variable, "").strip() for variable in needs.variables):
        return None
    for setting in needs.files:
        named = environ.get(setting.variable, "").strip()
        # As the MCP reads it: `~` expanded, a relative path taken from the folder it runs in (the repository).
        path = REPO_ROOT / Path(named).expanduser() if named else home / setting.default
        if path.is_file():
            return None
    return needs.hint


def shipped_tools_path(spec: McpSpec) -> Path:
    return spec.directory / TOOLS_FILENAME


def leave_for_first_use(spec: McpSpec, environ: Mapping[str, str], home: Path) -> str | None:
    """Why `spec`'s MCP is not started with the others ("not configured: set X"), or None when it is started."""
    missing = missing_setting(spec, environ, home)
    if missing is None or spec.external or not shipped_tools_path(spec).is_file():
        return None
    return f"not configured: {missing}"


def shipped_tools(spec: McpSpec) -> list[Tool] | None:
    """The tools listed in the package's `tools.json`, or None (logged) when the file cannot be used."""
    path = shipped_tools_path(spec)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, list):
            raise ValueError("not a JSON list")
        return [Tool.model_validate(item) for item in raw]
    except (OSError, ValueError, ValidationError) as exc:
        log.warning("shipped tool list unusable: starting the mcp now", extra={"path": str(path), "error": str(exc)})
        return None
