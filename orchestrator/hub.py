"""The hub: discovers the MCPs, starts them (Guardian first), routes tool calls and reports status.

Start-up order: discovery → Guardian spawned first, every other MCP right after, all initialising in
parallel → routes → serve. A required MCP that cannot
start aborts start-up with `StartupError`; any other failure is reported and that MCP skipped. The hub
starts even when Guardian does not; the fail mode then decides what a scanned call does.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc
import anyio.to_thread
from pydantic import ValidationError

from orchestrator.approvals.gate import ApprovalGate
from orchestrator.approvals.policy import Verdict, as_called, bulk_verdict, counts_as_change, judge, load_policy
from orchestrator.approvals.record_check import RecordCheck
from orchestrator.approvals.store import ApprovalStore
from orchestrator.backoff import RestartPolicy
from orchestrator.callers import Caller
from orchestrator.discovery import Discovery, McpSpec, discover
from orchestrator.endpoint import DirectEndpoint, ToolEndpoint
from orchestrator.errors import StartupError
from orchestrator.externals import KNOWN_MCPS_FILENAME, ExternalMcps, McpBuilder
from orchestrator.guardian import GuardedEndpoint, GuardianGate
from orchestrator.mcp_client import ManagedMcp, McpState
from orchestrator.mcp_commands import ChildCommand, child_command
from orchestrator.native_tools import NATIVE_TOOLS, NativeTool, Untrusted
from orchestrator.notify import Notifier
from orchestrator.on_demand import leave_for_first_use, missing_setting, shipped_tools
from orchestrator.policy import tool_allowed
from orchestrator.prestart import Prestarted
from orchestrator.router import Route, ToolRouter, closest_names, unknown_arguments
from orchestrator.settings import OrchestratorSettings
from orchestrator.skills.hook import SKILL_TOOLS, SkillCache, call_skill_tool
from orchestrator.stdio_transport import spawn
from orchestrator.turns import TurnLedger
from orchestrator.warm_start import start_fork_server
from shared.agents import AgentDefinition
from shared.envelope import ErrorCode, fail, ok
from shared.manifest import McpManifest, ToolEffects
from shared.mcp_tools import ToolFailure, describe_validation
from shared.settings import process_environment
from shared.traces import trace_event
from shared.validation import unknown_names_message

if TYPE_CHECKING:
    from orchestrator.agents import AgentManager
    from orchestrator.halt import HaltState
    from orchestrator.jobs.runner import JobRunner

log = logging.getLogger(__name__)


def annabelle_version() -> str:
    try:
        return version("annabelle")
    except PackageNotFoundError:
        return "0.0.0"


def wrap_endpoint(spec: McpSpec, direct: ToolEndpoint, gate: GuardianGate) -> ToolEndpoint:
    """The MCP's endpoint with Guardian around it in the directions its `guardianScan` asks for (externals: both)."""
    scan = spec.manifest.guardianScan
    scanned = scan.output or scan.input is not False
    return GuardedEndpoint(direct, gate, scan, own_errors=not spec.external) if scanned else direct


class Hub:
    def __init__(self, settings: OrchestratorSettings, prestarted: Prestarted | None = None) -> None:
        self.settings = settings
        self.prestarted = prestarted or Prestarted()
        """First-party MCPs `serve()` forked before the hub's imports: each is adopted by its first start."""
        self.router = ToolRouter()
        self.gate = GuardianGate(
            None, settings.guardian_fail_mode, "all" if settings.guardian_input_scan == "layered" else "rules"
        )
        self.mcps: dict[str, ManagedMcp] = {}
        self.specs: dict[str, McpSpec] = {}
        self.endpoints: dict[str, ToolEndpoint] = {}
        self.discovery = Discovery()
        self.ready = False
        self.started_at = time.monotonic()
        self.version = annabelle_version()
        self.notifier = Notifier(self.call, settings.notify_chat_id)
        self.agents: AgentManager | None = None
        """Set by the app once built: native tools such as spawn_subagent reach the agents through it."""
        self.skills: SkillCache | None = None
        """Set by the app once built: skill writes through the hub refresh its list and use its clock."""
        self.jobs: JobRunner | None = None
        """Set by the app once built: background jobs (queue_task, trigger_backfill), shown in status."""
        self.halt: HaltState | None = None
        """Set by the app once built: system_health_check runs the diagnostics, which read it."""
        self.turns = TurnLedger()
        self.policy = load_policy(settings.approval_policy)
        self.approvals = ApprovalGate(
            ApprovalStore(settings.data_dir / "approvals.db", settings.logs_dir / "approvals-audit.jsonl"),
            timeout=settings.approval_timeout_s,
        )
        self.record_check = RecordCheck(
            self.call, self._first_party_manifest, enabled=settings.approval_unnamed_records
        )
        self._tasks: anyio.abc.TaskGroup | None = None
        self.unconfigured: set[str] = set()
        """MCPs whose manifest `needs` a setting that was missing at start-up and has not appeared since."""
        self._configured: dict[str, anyio.Event] = {}
        """Set when the setting of an MCP in `unconfigured` appears (made by `until_configured`, in the loop)."""
        self.externals = ExternalMcps(
            self,
            settings.external_mcps_config,
            known_path=settings.data_dir / KNOWN_MCPS_FILENAME,
            environ=process_environment,
            poll_seconds=settings.external_mcps_poll_seconds,
            debounce_seconds=settings.external_mcps_debounce_seconds,
        )

    # -- start-up -------------------------------------------------------------------------------------------

    def _managed(self, spec: McpSpec, environ: Mapping[str, str]) -> ManagedMcp:
        policy = RestartPolicy(base_seconds=self.settings.mcp_restart_base_seconds)
        return ManagedMcp(
            spec.name,
            child_command(spec, self.settings, environ),
            call_timeout=spec.manifest.timeout,
            policy=policy,
            health_interval=self.settings.mcp_health_interval_seconds,
            health_timeout=self.settings.mcp_health_timeout_seconds,
            startup_timeout=self.settings.mcp_startup_timeout_seconds,
            on_tools_changed=self._tools_changed,
            spawner=self._spawn,
        )

    @staticmethod
    async def _start_fork_server() -> None:
        """Restarts fork from the fork server: start it now, off the start-up path, rather than at the first crash."""
        try:
            await anyio.to_thread.run_sync(start_fork_server)
        except (OSError, EOFError, ValueError) as exc:  # each warm start then falls back to a new process
            log.warning("fork server did not start", extra={"error": str(exc)})

    async def _spawn(self, command: ChildCommand) -> anyio.abc.Process:
        """The child forked for `command` before the hub's imports, if there is one; else a new one."""
        adopted = await self.prestarted.adopt(command)
        return adopted if adopted is not None else await spawn(command)

    def _tools_changed(self, mcp: ManagedMcp) -> None:
        spec = self.specs.get(mcp.name)
        if spec is None or self.mcps.get(mcp.name) is not mcp:
            return  # a removed (or replaced) MCP whose last life is still ending: its routes are gone already
        self.router.set_tools(spec.manifest, mcp.tools)

    async def start(self, tasks: anyio.abc.TaskGroup) -> None:
        self._tasks = tasks
        environ = process_environment()
        self.discovery = discover(self.settings.annabelle_mcps_root, environ)
        for problem in self.discovery.problems:
            log.error("mcp skipped", extra={"problem": problem})
        for name in self.discovery.disabled:
            log.info("mcp disabled by configuration", extra={"mcp": name})

        # Guardian is spawned first, the others right after it, all initialising in parallel: nothing is
        # served (so nothing is scanned) until every one of them is ready or has failed.
        guardian_spec = self.discovery.guardian
        guardian = self._register(guardian_spec, environ) if guardian_spec is not None else None
        self.gate.guardian = guardian
        others = [self._register(spec, environ) for spec in self.discovery.others]
        self.unconfigured = {
            spec.name
            for spec in self.discovery.others
            if missing_setting(spec, environ, self.settings.annabelle_home) is not None
        }
        now = [mcp for mcp in others if not self._leave_for_first_use(mcp, tasks, environ)]
        async with anyio.create_task_group() as starting:
            for mcp in [guardian, *now] if guardian is not None else now:
                starting.start_soon(mcp.start, tasks)
            starting.start_soon(self.externals.start)  # never required: its failures are reported, not raised
        self.prestarted.discard()  # forked for a configuration that has changed since: nobody will adopt them
        if guardian is None or not guardian.available:
            log.error(
                "guardian is not running; scanned calls follow the fail mode",
                extra={
                    "fail_mode": self.settings.guardian_fail_mode,
                    "reason": guardian.last_error if guardian is not None else "not discovered or disabled",
                },
            )

        failed = [mcp for mcp in now if not mcp.available]
        required = [mcp for mcp in failed if self.specs[mcp.name].manifest.required]
        if required:
            details = "; ".join(f"{mcp.name}: {mcp.last_error}" for mcp in required)
            hints = ", ".join(self.specs[mcp.name].manifest.env_enabled_variable + "=false" for mcp in required)
            raise StartupError(f"Required MCP server(s) failed to start ({details}). Fix them or set {hints}.")
        self.ready = True
        tasks.start_soon(self.externals.watch, name="external-mcps")
        tasks.start_soon(self._start_fork_server, name="fork-server")
        if self.unconfigured:
            tasks.start_soon(self._start_once_configured, name="mcps-waiting-for-a-setting")
        log.info(
            "hub ready",
            extra={
                "mcps": sorted(name for name, mcp in self.mcps.items() if mcp.available),
                "not_started": sorted(name for name, mcp in self.mcps.items() if mcp.not_started),
                "failed": sorted(mcp.name for mcp in failed),
                "tools": len(self.router.public_routes()),
            },
        )

    def _leave_for_first_use(self, mcp: ManagedMcp, tasks: anyio.abc.TaskGroup, environ: Mapping[str, str]) -> bool:
        """An MCP that cannot work before a setting appears is not started now: its shipped tools are listed."""
        spec = self.specs[mcp.name]
        reason = leave_for_first_use(spec, environ, self.settings.annabelle_home)
        tools = shipped_tools(spec) if reason is not None else None
        if reason is None or tools is None:
            return False
        mcp.start_on_first_use(tasks, tools, reason, lambda: child_command(spec, self.settings, process_environment()))
        self.router.set_tools(spec.manifest, tools)
        log.info("mcp left for first use", extra={"mcp": mcp.name, "reason": reason, "tools": len(tools)})
        return True

    async def _start_once_configured(self) -> None:
        """Each MCP that lacked its setting at start-up gets it as soon as it appears (a token in .env, a client
        file): one left for first use is started; one that a call started meanwhile (and that answers "not
        configured") is restarted with it. No restart of the hub is needed."""
        assert self._tasks is not None
        while self.unconfigured:
            await anyio.sleep(self.settings.mcp_health_interval_seconds)
            environ = process_environment()
            for name in sorted(self.unconfigured):
                spec, mcp = self.specs.get(name), self.mcps.get(name)
                if spec is not None and mcp is not None:
                    if missing_setting(spec, environ, self.settings.annabelle_home) is not None:
                        continue
                    log.info("mcp setting appeared", extra={"mcp": name, "state": mcp.state.value})
                    if mcp.state is McpState.NOT_STARTED:
                        self._tasks.start_soon(mcp.wake, name=f"mcp-configured:{name}")
                    else:
                        mcp.renew(child_command(spec, self.settings, environ))
                self.unconfigured.discard(name)
                if (event := self._configured.pop(name, None)) is not None:
                    event.set()

    async def until_configured(self, name: str) -> None:
        """Return once `name`'s MCP has the setting its manifest `needs`: at once when it had it at start-up (or
        needs none), else when the setting appears and the MCP is started, or restarted, with it."""
        if name in self.unconfigured:
            await self._configured.setdefault(name, anyio.Event()).wait()

    def _register(self, spec: McpSpec, environ: Mapping[str, str]) -> ManagedMcp:
        mcp = self._managed(spec, environ)
        self._attach(spec, mcp)
        return mcp

    def _attach(self, spec: McpSpec, mcp: ManagedMcp) -> None:
        self.specs[spec.name] = spec
        self.mcps[spec.name] = mcp
        self.endpoints[spec.name] = wrap_endpoint(spec, DirectEndpoint(mcp), self.gate)

    # -- MCPs added and removed while the hub runs (external MCPs) -------------------------------------------

    async def add_mcp(self, spec: McpSpec, build: McpBuilder) -> ManagedMcp:
        """Start an MCP at run time with its Guardian wrapping; its routes appear once it has listed its tools.

        `build` gets the hub's routing hook and returns the supervised client. Never raises for a failing MCP:
        it is then registered as failed, with its reason in /status."""
        if self._tasks is None:
            raise RuntimeError("Hub.add_mcp needs a started hub.")
        mcp = build(self._tools_changed)
        self._attach(spec, mcp)
        await mcp.start(self._tasks)
        return mcp

    async def remove_mcp(self, name: str) -> None:
        """Stop an MCP and drop its routes; calls to its tools become UNKNOWN_TOOL at once."""
        mcp = self.mcps.pop(name, None)
        self.specs.pop(name, None)
        self.endpoints.pop(name, None)
        self.router.remove_mcp(name)
        if mcp is not None:
            await mcp.stop()

    async def stop(self) -> None:
        self.ready = False
        await self.externals.stop()
        for mcp in self.mcps.values():
            await mcp.stop()

    # -- what clients read ----------------------------------------------------------------------------------

    def tool_listing(self, agent: AgentDefinition | None = None) -> list[dict[str, Any]]:
        """Every tool the caller may use: the master token (`agent=None`) sees all."""
        native = [tool.listing for tool in NATIVE_TOOLS.values()]
        listing = native + [route.listing() for route in self.router.public_routes()]
        return [tool for tool in listing if tool_allowed(agent, tool["name"])]

    def mcps_metadata(self) -> dict[str, dict[str, Any]]:
        return {
            name: {
                "label": spec.manifest.label,
                "toolGroup": spec.manifest.toolGroup,
                "keywords": spec.manifest.keywords,
                "toolCount": len(self.router.routes_of(name)),
                "available": self.mcps[name].available,
                "external": spec.external,
                **({"notStarted": reason} if (reason := self.mcps[name].not_started) else {}),
            }
            for name, spec in self.specs.items()
            if spec.manifest.role != "guardian"
        }

    def status(self) -> dict[str, Any]:
        return {
            "status": "ready" if self.ready else "starting",
            "version": self.version,
            "uptimeSeconds": round(time.monotonic() - self.started_at, 1),
            "mcps": {
                name: {
                    **mcp.describe(),
                    # What callers can use, as /tools/list counts it (hidden and privileged tools are not).
                    "toolCount": len(self.router.routes_of(name)),
                    "required": self.specs[name].manifest.required,
                    "role": self.specs[name].manifest.role,
                    "external": self.specs[name].external,
                }
                for name, mcp in self.mcps.items()
            },
            "disabledMcps": self.discovery.disabled,
            "problems": self.discovery.problems,
            "externalMcps": self.externals.describe(),
            "toolCount": len(self.tool_listing()),
            "hiddenTools": sorted(route.exposed for route in self.router.hidden_routes()),
            "guardian": {
                "available": self.gate.available,
                "failMode": self.gate.fail_mode,
                "scans": self.gate.stats.scans,
                "blocked": self.gate.stats.blocked,
                "marked": self.gate.stats.marked,
                "unavailable": self.gate.stats.unavailable,
            },
            "jobs": self.jobs.summary() if self.jobs is not None and self.jobs.started else None,
        }

    # -- calls ------------------------------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]:
        """Run one tool by its exposed name: the one road every tool call of the system takes.

        Which tool (native, a skill write to normalise first, or a route to an MCP; privileged routes for the hub's
        own features only) → refusals (the agent's allowed tools, undeclared arguments) → in a tainted turn, the
        side-effect policy, and in any turn the bulk limit and the owner's records the request did not name, any of
        which may hold the call for the owner's approval → Guardian in the directions the MCP's manifest asks, unless
        the system caller declared why not → the call (an untrusted result taints the turn; one that changed
        something counts toward the bulk limit; a record it made is the turn's own) → one envelope, one trace event,
        one log line."""
        started = time.perf_counter()
        native = NATIVE_TOOLS.get(name)
        route = None if native is not None else self.router.resolve(name, privileged=caller.privileged)
        mcp = "hub" if native is not None else route.mcp if route is not None else None
        effects = native.effects if native is not None else route.effects if route is not None else None
        scanned, unscanned = False, None
        envelope = self._refusal(name, arguments, caller, native, route)
        if envelope is None and effects is not None:
            envelope = await self._approval(name, effects, arguments, caller, route)
        if envelope is None:
            envelope, scanned, unscanned = await self._run(name, arguments, caller, native, route)
            _count_change(name, effects, arguments, caller, envelope)
            self.record_check.note_made(route, caller.turn, envelope)
        elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
        # Only inside a trace (a turn, a skill run, a request with X-Trace-Id): polling records nothing.
        trace_event(
            "tool_call",
            name=name,
            mcp=mcp,
            caller=caller.label,
            success=envelope["success"],
            errorCode=envelope.get("errorCode"),
            scanned=scanned,
            unscanned=unscanned,
            blocked=bool(envelope.get("blocked")),
            suspicious=envelope.get("suspicious") or None,
            ms=elapsed_ms,
        )
        where = {"tool": name, "caller": caller.label, "ms": elapsed_ms}
        if envelope["success"]:
            log.debug("tool call", extra=where)
        else:
            log.info("tool call failed", extra={**where, "code": envelope["errorCode"], "error": envelope["error"]})
        return envelope

    def _refusal(
        self, name: str, arguments: dict[str, Any], caller: Caller, native: NativeTool | None, route: Route | None
    ) -> dict[str, Any] | None:
        """Why the call cannot run at all (policy, an unknown tool, undeclared arguments), or None."""
        if caller.agent is not None and not tool_allowed(caller.agent, name):
            return fail(
                ErrorCode.NOT_ALLOWED,
                f"The agent {caller.agent.agentId!r} may not use {name} (allowedTools/deniedTools in agents.json).",
            )
        if native is not None or (name in SKILL_TOOLS and not caller.privileged):
            return None
        if route is None:
            return self._not_routed(name)
        if unknown := unknown_arguments(route.input_schema, arguments, closed=not self.specs[route.mcp].external):
            return fail(ErrorCode.INVALID_ARGUMENTS, f"{name}: {unknown_names_message(unknown)}")
        return None

    async def _approval(
        self, name: str, effects: ToolEffects, arguments: dict[str, Any], caller: Caller, route: Route | None
    ) -> dict[str, Any] | None:
        """None when the call may run, else why it did not (denied or expired): in a tainted turn the side-effect
        policy decides, in any turn the bulk limit and the owner's records the request did not name."""
        if caller.agent is None:
            return None
        verdict = self._verdict(name, effects, arguments, caller)
        if not verdict.hold and route is not None:
            verdict = await self.record_check.verdict(name, route, arguments, caller.turn)
        if not verdict.hold:
            return None
        record = await self.approvals.hold(caller.agent.agentId, name, arguments, verdict.reason)
        if record.status == "approved":
            if verdict.per_turn and caller.turn is not None:
                caller.turn.approved.add(name)
            return None
        if record.status == "denied":
            return fail(
                ErrorCode.APPROVAL_DENIED,
                f"The owner denied {name} (approval {record.id}), so it did not run: {verdict.reason}. Tell them "
                "what was not done.",
            )
        return fail(
            ErrorCode.APPROVAL_EXPIRED,
            f"{name} waited for the owner's approval (approval {record.id}) and nobody decided in time, so it did "
            "not run. Tell them what was not done.",
        )

    def _verdict(self, name: str, effects: ToolEffects, arguments: dict[str, Any], caller: Caller) -> Verdict:
        assert caller.agent is not None
        if caller.tainted:
            verdict = judge(
                self.policy.for_agent(caller.agent.agentId),
                name,
                effects,
                arguments,
                tainted_by=caller.turn.tainted_by if caller.turn is not None else [],
                owner_chat=self.notifier.default_chat_id,
            )
            if verdict.hold:
                return verdict
        turn = caller.turn
        if turn is None or name in turn.approved:
            return Verdict(False)
        limit = self.settings.approval_bulk_limit
        return bulk_verdict(name, effects, arguments, done=turn.changes[name], limit=limit)

    async def _run(
        self, name: str, arguments: dict[str, Any], caller: Caller, native: NativeTool | None, route: Route | None
    ) -> tuple[dict[str, Any], bool, str | None]:
        """The call itself: the envelope, whether Guardian scanned it, and why not if the caller said so."""
        if native is not None:
            envelope = await self._call_native(native, arguments, caller)
            if envelope.get("untrusted") and caller.turn is not None:
                caller.turn.taint(name)
            return envelope, False, None
        if name in SKILL_TOOLS and not caller.privileged:
            # Skill writes are normalised and checked first; the hub's own features did that already.
            return await call_skill_tool(self, name, arguments), False, None
        assert route is not None  # _refusal answered for an unrouted name
        if "provenance" in route.input_schema.get("properties", {}) and not self.specs[route.mcp].external:
            # Only the hub knows the turn's taint: what a memory write may claim is decided here, not by the model.
            requested = arguments.get("provenance")
            vouched = caller.vouch(requested if isinstance(requested, str) else None)
            if vouched is not None:
                arguments = {**arguments, "provenance": vouched}
        endpoint, scanned, unscanned = self.endpoints[route.mcp], False, None
        if isinstance(endpoint, GuardedEndpoint):
            if caller.unscanned is None:
                scanned = endpoint.scans(route.tool)
            else:
                endpoint, unscanned = endpoint.inner, caller.unscanned
        envelope = await endpoint.call(route.tool, arguments, exposed=name)
        if route.untrusted_output or envelope.get("untrusted"):
            # Passed by Guardian or not, this content is nobody's word: the turn is tainted from here on.
            envelope["untrusted"] = True
            if caller.turn is not None:
                caller.turn.taint(name)
        return envelope, scanned, unscanned

    async def _call_native(self, tool: NativeTool, arguments: dict[str, Any], caller: Caller) -> dict[str, Any]:
        try:
            params = tool.params.model_validate(arguments)
        except ValidationError as exc:
            return fail(ErrorCode.INVALID_ARGUMENTS, f"{tool.name}: {describe_validation(exc)}")
        try:
            result = await tool.handler(self, params, caller)
        except ToolFailure as failure:
            return fail(failure.code, str(failure))
        if isinstance(result, Untrusted):
            return {**ok(result.data), "untrusted": True}
        return ok(result)

    def _first_party_manifest(self, name: str) -> McpManifest | None:
        spec = self.specs.get(name)
        return spec.manifest if spec is not None and not spec.external else None

    def _not_routed(self, name: str) -> dict[str, Any]:
        prefix = name.split("_", 1)[0]
        if prefix in self.discovery.disabled:
            return fail(
                ErrorCode.MCP_UNAVAILABLE,
                f"{name} belongs to the {prefix} MCP, which is disabled ({prefix.upper()}_MCP_ENABLED=false).",
            )
        mcp = self.mcps.get(prefix)
        if mcp is not None and not mcp.available and not self.router.routes_of(prefix):
            return fail(
                ErrorCode.MCP_UNAVAILABLE,
                f"{name} belongs to the {prefix} MCP, which is not running: {mcp.last_error or mcp.state.value}.",
            )
        names = [tool["name"] for tool in self.tool_listing()]
        suggestions = closest_names(name, names)
        hint = f" Did you mean {', '.join(suggestions)}?" if suggestions else ""
        return fail(ErrorCode.UNKNOWN_TOOL, f"Unknown tool: {name}.{hint} GET /tools/list shows every tool.")


def _count_change(
    name: str, effects: ToolEffects | None, arguments: dict[str, Any], caller: Caller, envelope: dict[str, Any]
) -> None:
    """A call that ran and deleted, overwrote or acted beyond this machine counts toward its turn's bulk limit."""
    if not envelope["success"] or caller.turn is None or effects is None:
        return
    if counts_as_change(as_called(effects, arguments)):
        caller.turn.changes[name] += 1
