"""`external-mcps.json`: third-party MCP servers in the standard `mcpServers` form. Pure logic, no I/O.

    {"mcpServers": {
        "github": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}},
        "notes":  {"command": "npx", "args": ["-y", "some-notes-mcp"], "env": {"NOTES_DIR": "${HOME}/notes"},
                   "label": "Notes", "toolGroup": "Notes", "keywords": ["note"], "timeout": 20}
    }}

Each entry is validated on its own: a bad one is reported (its name, the field, what is wrong) and skipped, the
others load. `${VAR}` (and `${VAR:-default}`) is replaced from the hub's effective environment in `command`,
`args`, `env`, `cwd`, `url` and `headers`; a variable that is not set skips the entry and names the variable (the
original substituted an empty string, which turned `Bearer ${GITHUB_TOKEN}` into a request that fails later, far
from its cause). External MCPs are never required; Guardian scans both directions unless the entry says otherwise,
and their destructive tools stay hidden unless `allowDestructiveTools` is true.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from shared.manifest import McpManifest, McpServing
from shared.validation import error_lines

# The environment a third-party stdio server inherits from the hub: the MCP SDK's safe list plus locale and
# temp-dir settings. Never the hub's own secrets (ANNABELLE_TOKEN, API keys): an entry passes what it needs in `env`.
INHERITED_VARIABLES = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ")

_NAME = re.compile(r"^[a-z][a-z0-9]*$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TYPE_ALIASES = {"streamable-http": "http", "streamableHttp": "http", "streamable_http": "http", "SSE": "sse"}


class ExternalEntry(McpServing):
    """One entry of `mcpServers`: a stdio server (`command`), a Streamable HTTP server (`url`), or an HTTP+SSE
    server (`url` with `type: "sse"`, the older transport many hosted servers still speak); the fields it shares with a
    first-party manifest (timeout, keywords, Guardian, destructive tools, annotations) are `McpServing`'s."""

    type: Literal["stdio", "http", "sse"] | None = Field(default=None, description="Inferred from `command` or `url`.")
    command: str | None = Field(default=None, min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = Field(default=None, description="Working directory; relative to the config file's folder.")
    url: str | None = Field(default=None, pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)
    disabled: bool = False
    description: str | None = None
    label: str | None = Field(default=None, min_length=1)
    toolGroup: str | None = Field(default=None, min_length=1)
    trusted: bool = Field(
        default=False,
        description="Its results are the owner's own data: a turn that reads them is not tainted. Default: untrusted.",
    )

    @model_validator(mode="before")
    @classmethod
    def _normalise_type(cls, data: object) -> object:
        if isinstance(data, dict) and isinstance(data.get("type"), str):
            return {**data, "type": _TYPE_ALIASES.get(data["type"], data["type"])}
        return data

    @model_validator(mode="after")
    def _one_transport(self) -> ExternalEntry:
        kind = self.type or ("http" if self.url is not None and self.command is None else "stdio")
        if kind == "stdio":
            if self.command is None:
                raise ValueError("a stdio server needs 'command' (or give 'url' for a Streamable HTTP server)")
            if self.url is not None or self.headers:
                raise ValueError("'url' and 'headers' belong to HTTP servers; a stdio server has 'command'")
        else:
            if self.url is None:
                raise ValueError(f"an {'SSE' if kind == 'sse' else 'HTTP'} server needs 'url'")
            if self.command is not None or self.args or self.env or self.cwd is not None:
                raise ValueError("'command', 'args', 'env' and 'cwd' belong to stdio servers; an HTTP one has 'url'")
        self.type = kind
        return self


@dataclass(frozen=True)
class ExternalServer:
    """One valid entry with its variables substituted: everything needed to run it and route its tools."""

    name: str
    kind: Literal["stdio", "http", "sse"]
    manifest: McpManifest
    fingerprint: str
    argv: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: Path | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def child_env(self, environ: Mapping[str, str]) -> dict[str, str]:
        """The environment of a stdio server: the inherited few from `environ`, then the entry's own `env`."""
        inherited = {key: environ[key] for key in INHERITED_VARIABLES if key in environ}
        return {**inherited, **dict(self.env)}


@dataclass
class ExternalConfig:
    servers: dict[str, ExternalServer] = field(default_factory=dict)
    disabled: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class MissingVariable(Exception):
    """A `${VAR}` names a variable that is not set and has no `:-default`."""

    def __init__(self, variable: str, where: str) -> None:
        super().__init__(f"{where} uses ${{{variable}}}, which is not set (set it in the environment or .env)")
        self.variable = variable


def substitute(text: str, environ: Mapping[str, str], *, where: str) -> str:
    """Replace `${VAR}` and `${VAR:-default}` in `text`; a missing variable without a default raises."""

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise MissingVariable(name, where)

    return _VARIABLE.sub(value, text)


def fingerprint(raw: object) -> str:
    """A stable hash of an entry as written (before substitution, so no secret from the environment is hashed)."""
    return hashlib.sha256(json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def _resolve(name: str, raw: object, entry: ExternalEntry, environ: Mapping[str, str], base: Path) -> ExternalServer:
    def sub(text: str, where: str) -> str:
        return substitute(text, environ, where=f"{where}")

    manifest = McpManifest(
        mcpName=name,
        label=entry.label or name,
        toolGroup=entry.toolGroup or "External",
        required=False,
        untrustedOutput=not entry.trusted,
        **entry.serving_fields(),
    )
    if entry.type in ("http", "sse"):
        assert entry.url is not None
        return ExternalServer(
            name=name,
            kind="sse" if entry.type == "sse" else "http",
            manifest=manifest,
            fingerprint=fingerprint(raw),
            url=sub(entry.url, "url"),
            headers=tuple((key, sub(value, f"headers.{key}")) for key, value in entry.headers.items()),
        )
    assert entry.command is not None
    cwd = Path(sub(entry.cwd, "cwd")).expanduser() if entry.cwd is not None else None
    return ExternalServer(
        name=name,
        kind="stdio",
        manifest=manifest,
        fingerprint=fingerprint(raw),
        argv=(
            sub(entry.command, "command"),
            *(sub(arg, f"args.{index}") for index, arg in enumerate(entry.args)),
        ),
        env=tuple((key, sub(value, f"env.{key}")) for key, value in entry.env.items()),
        cwd=base / cwd if cwd is not None else base,
    )


def parse_config(
    raw: object, environ: Mapping[str, str], *, reserved: set[str], base: Path, source: str = "external-mcps.json"
) -> ExternalConfig:
    """Validate every entry of a parsed `external-mcps.json`; each problem is one sentence naming the entry.

    `reserved` holds the first-party MCP names (an external one may not take them); `base` is the folder relative
    `cwd` values are resolved against (the config file's own).
    """
    config = ExternalConfig()
    if not isinstance(raw, dict):
        config.problems.append(f'{source}: the top level must be an object like {{"mcpServers": {{...}}}}.')
        return config
    for key in raw:
        if key != "mcpServers":
            config.problems.append(f'{source}: unknown top-level key {key!r} ignored; servers go under "mcpServers".')
    servers = raw.get("mcpServers", {})
    if not isinstance(servers, dict):
        config.problems.append(f'{source}: "mcpServers" must be an object of name → server.')
        return config
    for name, entry_raw in servers.items():
        problem = _entry_problem(name, reserved)
        if problem is not None:
            config.problems.append(f"{source}: {problem}; skipped.")
            continue
        try:
            entry = ExternalEntry.model_validate(entry_raw)
        except ValidationError as exc:
            details = "; ".join(error_lines(exc, root="entry"))
            config.problems.append(f"{source}: server {name!r} is invalid ({details}); skipped.")
            continue
        if entry.disabled:
            config.disabled.append(name)
            continue
        try:
            config.servers[name] = _resolve(name, entry_raw, entry, environ, base)
        except MissingVariable as exc:
            config.problems.append(f"{source}: server {name!r}: {exc}; skipped.")
    return config


def _entry_problem(name: str, reserved: set[str]) -> str | None:
    if not _NAME.match(name):
        suggestion = re.sub(r"[^a-z0-9]", "", name.lower()).lstrip("0123456789")
        hint = f" (e.g. {suggestion!r})" if suggestion else ""
        return (
            f"server name {name!r} must be lower-case letters and digits{hint}, because its tools are "
            "named '<name>_<tool>'"
        )
    if name in reserved:
        return f"server name {name!r} is already a first-party MCP; choose another name"
    return None


@dataclass(frozen=True)
class ServerChanges:
    """MCP servers by name: `added` and `removed` between two sets, and `changed`, in both but different.

    For a reload it is the plan (start, stop, restart with the new configuration); at start-up, what differs from
    the set the last run saved."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


def _compare(before: Mapping[str, Any], after: Mapping[str, Any], differs: Callable[[str], bool]) -> ServerChanges:
    return ServerChanges(
        added=tuple(sorted(set(after) - set(before))),
        removed=tuple(sorted(set(before) - set(after))),
        changed=tuple(sorted(name for name in set(before) & set(after) if differs(name))),
    )


def plan_changes(running: Mapping[str, ExternalServer], wanted: Mapping[str, ExternalServer]) -> ServerChanges:
    """Compare the running servers with the wanted ones; an entry whose resolved configuration differs is changed."""
    return _compare(running, wanted, lambda name: running[name] != wanted[name])


def known_set(first_party: list[str], externals: Mapping[str, ExternalServer]) -> dict[str, Any]:
    """The record saved as `last-known-mcps.json`: every MCP the hub runs, externals with their fingerprint."""
    mcps: dict[str, Any] = {name: {"external": False} for name in first_party}
    mcps.update({name: {"external": True, "fingerprint": s.fingerprint} for name, s in externals.items()})
    return {"version": 1, "mcps": dict(sorted(mcps.items()))}


def diff_known(previous: object, current: Mapping[str, Any]) -> ServerChanges:
    """Compare a saved record with the current one; an unreadable record counts as none (nothing to report)."""
    if not isinstance(previous, dict) or not isinstance(previous.get("mcps"), dict):
        return ServerChanges()
    before: dict[str, Any] = previous["mcps"]
    now: dict[str, Any] = current["mcps"]
    return _compare(
        before,
        now,
        lambda name: isinstance(before[name], dict) and before[name].get("fingerprint") != now[name].get("fingerprint"),
    )


def describe_changes(
    added: tuple[str, ...], removed: tuple[str, ...], changed: tuple[str, ...], *, when: str = ""
) -> str:
    """One line for the owner, e.g. 'MCP servers changed: added github; removed vercel; reconfigured notes.'"""
    parts = []
    if added:
        parts.append("added " + ", ".join(added))
    if removed:
        parts.append("removed " + ", ".join(removed))
    if changed:
        parts.append("reconfigured " + ", ".join(changed))
    return f"MCP servers changed{when}: " + "; ".join(parts) + "."
