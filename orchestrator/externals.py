"""External MCP servers from `external-mcps.json`: started with the hub, hot-reloaded, announced to the owner.

The file is polled (its content, not its mtime, so a `touch` does nothing and two saves within a second are not
missed); a change is applied once the content has been stable for the debounce interval, so an editor's
write-then-rename or a half-saved file is read once, whole. A reload applies additions, removals **and edits**: an
edited entry is stopped and started again with its new configuration (the original ignored edits until restart).
A file that cannot be parsed changes nothing (the running servers stay) and is reported; a missing file means
no external servers.

Every external MCP is supervised like a first-party one (`ManagedMcp`: restarts with backoff, health probe,
tools re-listed), wrapped in Guardian per its `guardianScan` (both directions by default) and routed as
`{name}_{tool}`. At start-up the set of MCP servers is compared with the one saved in
`$ANNABELLE_HOME/data/last-known-mcps.json`; that difference, and every change a reload makes, is sent to the owner
through the hub's notifier.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import anyio
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from orchestrator.backoff import RestartPolicy
from orchestrator.discovery import Discovery, McpSpec
from orchestrator.errors import describe_cause
from orchestrator.external_config import (
    ExternalServer,
    ServerChanges,
    describe_changes,
    diff_known,
    known_set,
    parse_config,
    plan_changes,
)
from orchestrator.mcp_client import ManagedMcp
from orchestrator.mcp_commands import ChildCommand
from orchestrator.notify import Notifier
from orchestrator.router import ToolRouter
from orchestrator.settings import OrchestratorSettings
from shared.private_files import write_private

log = logging.getLogger(__name__)

KNOWN_MCPS_FILENAME = "last-known-mcps.json"
NOTIFY_KIND = "mcp_change"


class ExternalsHost(Protocol):
    """What external MCPs need of the hub (`orchestrator.hub.Hub` is one): its MCPs, routes and notifier."""

    settings: OrchestratorSettings
    discovery: Discovery
    mcps: Mapping[str, ManagedMcp]
    router: ToolRouter
    notifier: Notifier

    async def add_mcp(self, spec: McpSpec, build: McpBuilder) -> ManagedMcp: ...

    async def remove_mcp(self, name: str) -> None: ...


class _NoProcess:
    """Stands in for the child process of an HTTP server: it never exits, so only the health probe ends a life."""

    pid = None
    returncode = None

    def __init__(self) -> None:
        self.exited = anyio.Event()


SSE_READ_TIMEOUT_SECONDS = 3600.0
"""How long an SSE stream may stay silent before the SDK drops it; the health probe speaks far more often."""


class RemoteMcp(ManagedMcp):
    """An external MCP reached over Streamable HTTP or HTTP+SSE, supervised exactly like a child (probe, restart,
    re-list). Only the SDK transport differs between the two."""

    def __init__(
        self, name: str, url: str, headers: Mapping[str, str], *, transport: str = "http", **options: Any
    ) -> None:
        super().__init__(name, ChildCommand(argv=(), env={}, cwd=Path(".")), **options)
        self.url = url
        self.headers = dict(headers)
        self.transport = transport

    def _where(self) -> dict[str, Any]:
        return {"url": self.url, "transport": self.transport}

    @asynccontextmanager
    async def _connect(self) -> AsyncIterator[Client]:
        if self.transport == "sse":
            streams = sse_client(
                self.url,
                headers=self.headers,
                timeout=self.startup_timeout,
                sse_read_timeout=SSE_READ_TIMEOUT_SECONDS,
            )
            async with Client(streams, read_timeout_seconds=None, cache=None) as client:
                yield client
            return
        async with (
            create_mcp_http_client(headers=self.headers) as http,
            Client(streamable_http_client(self.url, http_client=http), read_timeout_seconds=None, cache=None) as client,
        ):
            yield client

    async def _run_once(self) -> str:
        # Same life as ManagedMcp._run_once with the SDK's HTTP transport instead of a child process.
        self._child = _NoProcess()  # type: ignore[assignment]
        try:
            async with self._connect() as client:
                return await self._serve(client)
        except TimeoutError:
            return f"did not initialise within {self.startup_timeout:g} s"
        except Exception as exc:  # the supervisor must outlive any failure of one connection
            return f"{self.url} could not be reached or answered wrongly ({describe_cause(exc)})"
        finally:
            self._client = None


McpBuilder = Callable[[Callable[[ManagedMcp], None]], ManagedMcp]


def builder(
    server: ExternalServer,
    environ: Mapping[str, str],
    *,
    policy: RestartPolicy,
    health_interval: float,
    health_timeout: float,
    startup_timeout: float,
) -> McpBuilder:
    """How to construct the supervised client of one external server; the hub supplies its routing hook."""
    options: dict[str, Any] = {
        "call_timeout": server.manifest.timeout,
        "policy": policy,
        "health_interval": health_interval,
        "health_timeout": health_timeout,
        "startup_timeout": startup_timeout,
    }

    def build(on_tools_changed: Callable[[ManagedMcp], None]) -> ManagedMcp:
        if server.kind in ("http", "sse"):
            assert server.url is not None
            return RemoteMcp(
                server.name,
                server.url,
                dict(server.headers),
                transport=server.kind,
                on_tools_changed=on_tools_changed,
                **options,
            )
        assert server.cwd is not None
        command = ChildCommand(argv=server.argv, env=server.child_env(environ), cwd=server.cwd)
        return ManagedMcp(server.name, command, on_tools_changed=on_tools_changed, **options)

    return build


def read_config(data: bytes | None, source: str) -> tuple[object | None, str | None]:
    """The parsed file (None when unreadable, with the problem); a missing file (`data` None) is no servers."""
    if data is None:
        return {}, None
    try:
        return json.loads(data.decode("utf-8")), None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"{source} is not valid JSON ({exc}); the running external MCP servers are kept as they are."


class ExternalMcps:
    """The external MCP servers of one hub: loads, starts, reloads on change, reports."""

    def __init__(
        self,
        hub: ExternalsHost,
        path: Path,
        *,
        known_path: Path,
        environ: Callable[[], Mapping[str, str]],
        poll_seconds: float = 1.0,
        debounce_seconds: float = 0.5,
    ) -> None:
        self.hub = hub
        self.path = path
        self.known_path = known_path
        self.poll_seconds = poll_seconds
        self.debounce_seconds = debounce_seconds
        self._environ = environ
        self.running: dict[str, ExternalServer] = {}
        self.disabled: list[str] = []
        self.problems: list[str] = []
        self._lock = anyio.Lock()
        self._cancel: anyio.CancelScope | None = None
        self._seen: bytes | None = None

    def describe(self) -> dict[str, Any]:
        return {"config": str(self.path), "disabled": self.disabled, "problems": self.problems}

    # -- loading ----------------------------------------------------------------------------------------------

    async def _read(self) -> bytes | None:
        try:
            return await anyio.Path(self.path).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            # Unreadable (permissions, a folder): reported like a parse error, the running set stays.
            return f"\0{exc}".encode()

    async def _load(self, data: bytes | None) -> dict[str, ExternalServer] | None:
        """The wanted servers, or None when the file cannot be used at all (then nothing changes)."""
        source = str(self.path)
        if data is not None and data.startswith(b"\0"):
            self._report([f"{source} cannot be read ({data[1:].decode(errors='replace')})."])
            return None
        raw, problem = read_config(data, source)
        if raw is None:
            self._report([problem or f"{source} cannot be used."])
            return None
        reserved = {spec.name for spec in self.hub.discovery.specs} | set(self.hub.discovery.disabled)
        config = parse_config(raw, self._environ(), reserved=reserved, base=self.path.parent, source=source)
        self.disabled = config.disabled
        self._report(config.problems)
        return config.servers

    def _report(self, problems: list[str]) -> None:
        for problem in problems:
            log.error("external mcp skipped", extra={"problem": problem})
        self.problems = problems

    # -- applying ---------------------------------------------------------------------------------------------

    def _build(self, server: ExternalServer) -> McpBuilder:
        settings = self.hub.settings
        return builder(
            server,
            self._environ(),
            policy=RestartPolicy(base_seconds=settings.mcp_restart_base_seconds),
            health_interval=settings.mcp_health_interval_seconds,
            health_timeout=settings.mcp_health_timeout_seconds,
            startup_timeout=settings.mcp_startup_timeout_seconds,
        )

    async def _apply(self, wanted: dict[str, ExternalServer]) -> ServerChanges:
        plan = plan_changes(self.running, wanted)
        for name in (*plan.removed, *plan.changed):
            log.info(
                "external mcp stopping", extra={"mcp": name, "why": "removed" if name in plan.removed else "edited"}
            )
            await self.hub.remove_mcp(name)
            self.running.pop(name)
        async with anyio.create_task_group() as starting:
            for name in (*plan.added, *plan.changed):
                server = wanted[name]
                self.running[name] = server
                spec = McpSpec(server.manifest, package="", directory=server.cwd or self.path.parent, external=True)
                starting.start_soon(self.hub.add_mcp, spec, self._build(server))
        return plan

    def _outcome(self, name: str) -> str:
        mcp = self.hub.mcps.get(name)
        if mcp is None:
            return name
        if mcp.available:
            count = len(self.hub.router.routes_of(name))
            return f"{name} ({count} tool{'' if count == 1 else 's'})"
        return f"{name} (not running: {mcp.last_error or mcp.state.value})"

    async def start(self) -> None:
        """Start every valid entry (in parallel); a bad or failing one is reported, never fatal."""
        async with self._lock:
            data = await self._read()
            self._seen = data
            wanted = await self._load(data)
            if wanted:
                await self._apply(wanted)

    async def reload(self) -> ServerChanges:
        """Read the file again and apply what changed; tell the owner about servers that appeared or went away."""
        async with self._lock:
            previous_problems = self.problems
            data = await self._read()
            self._seen = data
            wanted = await self._load(data)
            plan = await self._apply(wanted) if wanted is not None else ServerChanges()
            self._save_known()
            notice = self._notice(plan, [problem for problem in self.problems if problem not in previous_problems])
        log.info(
            "external mcps reloaded",
            extra={"added": plan.added, "removed": plan.removed, "changed": plan.changed, "problems": self.problems},
        )
        if notice:
            await self.hub.notifier.notify(notice, kind=NOTIFY_KIND)
        return plan

    def _notice(self, changes: ServerChanges, problems: Sequence[str], *, when: str = "") -> str:
        """What the owner is told: the servers added, removed and reconfigured (each running one with its tool
        count, the others with why not), then the problems; empty when there is nothing to say."""
        lines = list(problems)
        if changes:
            added = tuple(self._outcome(name) for name in changes.added)
            changed = tuple(self._outcome(name) for name in changes.changed)
            lines.insert(0, describe_changes(added, changes.removed, changed, when=when))
        return "\n".join(lines)

    # -- the last known set -----------------------------------------------------------------------------------

    def _current_known(self) -> dict[str, Any]:
        first_party = [spec.name for spec in self.hub.discovery.specs]
        return known_set(first_party, self.running)

    def _save_known(self) -> None:
        record = self._current_known()
        write_private(self.known_path, json.dumps(record, indent=2) + "\n")

    async def announce_startup_diff(self) -> None:
        """Compare with the set saved by the last run, save the current one, notify when they differ.

        The first run (no saved set) says nothing: every server would be "new"."""
        try:
            previous: object = json.loads(self.known_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            previous = None
        diff = diff_known(previous, self._current_known())
        self._save_known()
        notice = self._notice(diff, self.problems, when=" since the last start")
        if notice:
            await self.hub.notifier.notify(notice, kind=NOTIFY_KIND)

    # -- watching ---------------------------------------------------------------------------------------------

    async def watch(self) -> None:
        """Announce the start-up difference, then reload whenever the file's content changes (debounced)."""
        with anyio.CancelScope() as scope:
            self._cancel = scope
            await self.announce_startup_diff()
            while True:
                await anyio.sleep(self.poll_seconds)
                current = await self._read()
                if _digest(current) == _digest(self._seen):
                    continue
                # Debounce: apply only once the content has stayed the same for a whole interval.
                while True:
                    await anyio.sleep(self.debounce_seconds)
                    settled = await self._read()
                    if _digest(settled) == _digest(current):
                        break
                    current = settled
                try:
                    await self.reload()
                except Exception:  # a reload bug must not end hot reload for the rest of the hub's life
                    log.exception("external mcps reload failed")

    async def stop(self) -> None:
        if self._cancel is not None:
            self._cancel.cancel()


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()
