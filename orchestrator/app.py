"""The hub's HTTP API (FastAPI). `GET /health` is open; everything else needs `X-Annabelle-Token`.

Tool outcomes are always HTTP 200 with the bare envelope; 4xx is only for faults of the request itself
(auth, malformed JSON, missing `name`, body too large), each with a readable `error`.
"""

# No `from __future__ import annotations` here: FastAPI reads the endpoint annotations at runtime, and the
# `Depends(caller)` they name is local to create_app.
import logging
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Annotated, Any

import anyio
import anyio.abc
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from orchestrator.agents import AgentError, AgentManager, child_environment
from orchestrator.approvals.announce import approval_announcer
from orchestrator.approvals.store import AlreadyDecided, ApprovalNotFound
from orchestrator.callers import agent_caller
from orchestrator.channels.dispatch import Dispatcher, InboundMessage, Outcome
from orchestrator.channels.telegram import TelegramChannel
from orchestrator.commands.registry import CommandContext
from orchestrator.diagnostics import checks as _checks  # noqa: F401  (the checks register themselves)
from orchestrator.diagnostics import health as _health  # noqa: F401  (system_health_check registers itself)
from orchestrator.diagnostics.periodic import diagnose_json, periodic_for_hub
from orchestrator.diagnostics.registry import run_checks
from orchestrator.errors import StartupError
from orchestrator.halt import HaltState
from orchestrator.hub import Hub
from orchestrator.jobs import tools as _job_tools  # noqa: F401  (queue_task & co. register themselves)
from orchestrator.jobs.runner import JobRunner
from orchestrator.mcp_warm_up import warm_up_mcps
from orchestrator.prestart import Prestarted
from orchestrator.settings import OrchestratorSettings
from orchestrator.skills.http import skills_router
from orchestrator.skills.scheduler import SkillScheduler
from shared.agents import AgentDefinition, load_agents_config
from shared.auth import TOKEN_HEADER, load_or_create_token, tokens_equal
from shared.contracts.hub_api import (
    TURN_HEADER,
    AgentResumeRequest,
    ApprovalDecision,
    HaltAnswer,
    HaltRequest,
    MessageAnswer,
    MessageRequest,
    ToolCallRequest,
)
from shared.contracts.thinker_api import Acknowledgement, ExecuteSkillRequest, SkillAnswer
from shared.http_api import (
    ERROR_RESPONSES,
    ErrorBody,
    install_error_handlers,
    json_body_schema,
    parse_json_body,
    service_app,
)
from shared.traces import TRACE_HEADER, continue_trace, new_trace_id, traced, valid_trace_id

log = logging.getLogger(__name__)

JOBS_FILENAME = "jobs.db"


class BodySizeLimit:
    """Refuse bodies over `limit` bytes with 413, whether or not Content-Length is declared."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._too_large(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._too_large(scope, receive, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = JSONResponse({"error": f"Request body is larger than {self.limit} bytes."}, status_code=413)
        await response(scope, receive, send)


class _TooLarge(Exception):
    pass


def message_answer(outcome: Outcome) -> MessageAnswer:
    """`POST /message`'s answer for one dispatched message."""
    if outcome.kind == "command":
        return MessageAnswer(success=True, reply=outcome.reply, command=True)
    if outcome.kind != "answer":
        return MessageAnswer(
            success=False,
            error=outcome.reply,
            halted=outcome.kind == "halted" or None,
            paused=outcome.kind == "paused" or None,
            blocked=outcome.kind == "blocked" or None,
        )
    return MessageAnswer(
        success=True,
        reply=outcome.reply,
        agentId=outcome.agent_id,
        toolsUsed=outcome.tools_used,
        paused=bool(outcome.notice) or None,
        notice=outcome.notice,
        tainted=outcome.tainted or None,
    )


def stop_this_process() -> None:
    """The hub cannot serve (a required MCP failed): end the server as Ctrl-C would; `serve()` then exits 1."""
    signal.raise_signal(signal.SIGTERM)


def create_app(
    settings: OrchestratorSettings,
    *,
    on_fatal: Callable[[], None] = stop_this_process,
    prestarted: Prestarted | None = None,
) -> FastAPI:
    """Build the hub's app; raises `AgentsConfigError` when agents.json is invalid.

    The HTTP API is up at once: `/health` says `starting` while the MCPs come up, every other endpoint answers 503
    until they have. A required MCP that fails stops the process (`on_fatal`) and `app.state.startup_failure` says
    why. `prestarted` holds the MCPs `serve()` forked before importing this module, for the hub to adopt."""
    token = settings.annabelle_token.get_secret_value() if settings.annabelle_token else None
    master_token = token or load_or_create_token(settings.annabelle_home)
    hub = Hub(settings, prestarted)
    agents_config = load_agents_config(settings.agents_config)
    if agents_config.compatibility_notes:
        log.warning(
            "agents.json has keys of the original system: read as shown",
            extra={"path": str(settings.agents_config), "notes": agents_config.compatibility_notes},
        )
    agents = AgentManager(
        agents_config,
        config_path=settings.agents_config,
        hub_url=f"http://127.0.0.1:{settings.orchestrator_port}",
        default_port=settings.thinker_port,
        startup_timeout=settings.thinker_startup_timeout_seconds,
        environ=child_environment(),
        home=settings.annabelle_home,
        notifier=hub.notifier,
        health_interval=settings.thinker_health_interval_seconds,
    )
    hub.agents = agents
    hub.approvals.keep_waiting = agents.keep_waiting
    hub.approvals.announce = approval_announcer(hub)

    halt = HaltState(settings.annabelle_home / "data" / "halt.json")
    hub.halt = halt
    skills = SkillScheduler(hub, halt, settings)
    hub.skills = skills
    jobs = JobRunner(hub, settings.data_dir / JOBS_FILENAME, concurrency=settings.jobs_concurrency)
    hub.jobs = jobs
    dispatcher = Dispatcher(hub, agents, halt, settings)
    telegram = TelegramChannel(
        hub,
        dispatcher,
        halt,
        poll_interval=settings.channel_poll_interval_ms / 1000,
        stale_after=timedelta(minutes=settings.channel_stale_minutes),
    )

    async def start_services(tasks: anyio.abc.TaskGroup) -> None:
        """MCPs first (Guardian first among them), then what needs them; `app.state.serving` once all are up."""
        hub.approvals.start()
        try:
            await hub.start(tasks)
        except StartupError as exc:
            log.critical(str(exc))
            app.state.startup_failure = str(exc)
            await hub.stop()
            on_fatal()
            return
        agents.attach(tasks)
        await skills.start(tasks)
        jobs.accept()
        if "telegram" in hub.mcps:
            tasks.start_soon(telegram.run, name="telegram-channel")  # polls once the MCP has its bot token
        periodic = periodic_for_hub(hub, agents, halt, settings)
        if periodic is not None:
            tasks.start_soon(periodic.run_forever, name="periodic-diagnose")
        app.state.serving = True
        if settings.thinker_warm_start:
            tasks.start_soon(agents.warm_start, name="thinker-warm-start")
        if settings.mcp_warm_up:
            tasks.start_soon(warm_up_mcps, hub, name="mcp-warm-up")
        # APScheduler is loaded once the hub serves: jobs queued meanwhile are taken and wait as `queued`.
        await jobs.start()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(start_services, tasks, name="hub-start-up")
            yield
            app.state.serving = False
            skills.stop()
            await jobs.stop()
            telegram.stop()
            await agents.stop()
            await hub.stop()
            # Whatever loop is still running (periodic checks, watchers, a start-up not finished) ends with the hub.
            tasks.cancel_scope.cancel()

    async def require_serving(_: Request) -> None:
        if not app.state.serving:
            ready = sum(1 for mcp in hub.mcps.values() if mcp.available)
            raise StarletteHTTPException(
                503,
                f"The hub is still starting ({ready} of {len(hub.mcps)} MCP servers ready); retry in a moment.",
                headers={"Retry-After": "1"},
            )

    unauthorized = f"Missing or wrong {TOKEN_HEADER} header (the token is in $ANNABELLE_HOME/annabelle.token)."

    async def require_token(request: Request) -> None:
        """The master token: everything but the tool endpoints needs it."""
        if not tokens_equal(request.headers.get(TOKEN_HEADER), master_token):
            raise StarletteHTTPException(401, unauthorized)

    async def caller(request: Request) -> AgentDefinition | None:
        """The master token (None) or an agent's token (that agent, limited to its tools)."""
        given = request.headers.get(TOKEN_HEADER)
        if tokens_equal(given, master_token):
            return None
        agent = agents.agent_for_token(given)
        if agent is None:
            raise StarletteHTTPException(401, unauthorized)
        return agent

    app = service_app(
        title="Annabelle hub",
        version=hub.version,
        description="Tool routing with Guardian scanning for the Annabelle assistant.",
        lifespan=lifespan,
    )
    app.state.serving = False
    app.state.startup_failure = None
    app.state.hub = hub
    app.state.agents = agents
    app.state.halt = halt
    app.state.dispatcher = dispatcher
    app.state.telegram = telegram
    app.state.skills = skills
    app.state.jobs = jobs
    app.add_middleware(BodySizeLimit, limit=settings.orchestrator_max_body_bytes)

    install_error_handlers(app, not_found="No such endpoint; GET /docs lists them.")

    @app.get("/health", tags=["health"])
    async def health() -> dict[str, str]:
        """Liveness: open, no token needed."""
        return {"status": "ok" if app.state.serving else "starting", "version": hub.version}

    docs_dependencies = [] if settings.annabelle_public_docs else [Depends(require_token)]

    @app.get("/openapi.json", include_in_schema=False, dependencies=docs_dependencies)
    async def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False, dependencies=docs_dependencies)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="Annabelle hub API")

    api = APIRouter(dependencies=[Depends(require_token), Depends(require_serving)], responses=ERROR_RESPONSES)
    tools_api = APIRouter(responses=ERROR_RESPONSES)

    @api.get("/status", tags=["hub"])
    async def status() -> dict[str, Any]:
        """MCP servers (state, pid, restarts, last error), tool counts and Guardian statistics."""
        return hub.status()

    @tools_api.get("/tools/list", tags=["tools"], dependencies=[Depends(require_serving)])
    async def tools_list(agent: Annotated[AgentDefinition | None, Depends(caller)]) -> dict[str, Any]:
        """Every tool the caller may use (`{mcpName}_{tool}`, tagged descriptions, schemas) and per-MCP metadata.

        An agent's token sees only the tools its `allowedTools`/`deniedTools` let it use."""
        return {"tools": hub.tool_listing(agent), "mcps": hub.mcps_metadata()}

    @tools_api.post("/tools/call", tags=["tools"], openapi_extra=json_body_schema(ToolCallRequest))
    async def tools_call(request: Request) -> JSONResponse:
        """Run a tool. Always HTTP 200 with the envelope `{success, data?, error?, errorCode?, blocked?}`."""
        # The same checks as /tools/list's dependencies, in the same order, called directly: on the busiest
        # endpoint FastAPI's dependency solving cost more CPU than the checks themselves.
        await require_serving(request)
        agent = await caller(request)
        call = await parse_json_body(request, ToolCallRequest, example='{"name": "get_status"}')
        turn = hub.turns.get(request.headers.get(TURN_HEADER), agent.agentId) if agent is not None else None
        with continue_trace(valid_trace_id(request.headers.get(TRACE_HEADER))):
            return JSONResponse(await hub.call(call.name, call.arguments, caller=agent_caller(agent, turn)))

    @api.post("/message", tags=["agents"], openapi_extra=json_body_schema(MessageRequest))
    async def message(request: Request) -> JSONResponse:
        """Chat with the agent bound to the `http` channel: `{success, reply}`; slash commands work here too.

        Failures say why: `{success: false, error}` plus `paused`, `halted` or `blocked` (Guardian) when that is it."""
        body = await parse_json_body(request, MessageRequest)
        # The caller may name the trace (X-Trace-Id); the id in force comes back in the same header.
        with traced(valid_trace_id(request.headers.get(TRACE_HEADER)) or new_trace_id()) as trace_id:
            outcome = await dispatcher.dispatch(InboundMessage("http", body.chatId, body.message, owner=True))
        return JSONResponse(message_answer(outcome).wire(), headers={TRACE_HEADER: trace_id})

    @api.post("/kill", tags=["halt"], openapi_extra=json_body_schema(HaltRequest))
    async def kill(request: Request) -> JSONResponse:
        """Halt a part of Annabelle (persisted across restarts): `{success, message, halted}`."""
        body = await parse_json_body(request, HaltRequest, example='{"target": "thinker"}')
        described = halt.halt(body.target, body.reason or "POST /kill")
        return JSONResponse(HaltAnswer(success=True, message=f"{body.target} halted", halted=described).wire())

    @api.post("/resume", tags=["halt"], openapi_extra=json_body_schema(HaltRequest))
    async def resume(request: Request) -> JSONResponse:
        """Lift a halt set by `/kill` or `POST /kill`: `{success, message, halted}`."""
        body = await parse_json_body(request, HaltRequest, example='{"target": "thinker"}')
        described = halt.resume(body.target)
        return JSONResponse(HaltAnswer(success=True, message=f"{body.target} resumed", halted=described).wire())

    @api.get("/diagnose", tags=["hub"])
    async def diagnose() -> dict[str, Any]:
        """Every diagnostics check, worst first: `{findings: [{name, category, severity, summary, fix}], counts,
        critical}` (what `annabelle doctor` prints)."""
        return diagnose_json(
            await run_checks(CommandContext(hub, agents, halt, settings, "http", "diagnose", command="diagnose"))
        )

    @api.get("/agents", tags=["agents"])
    async def list_agents() -> dict[str, Any]:
        """The agents of agents.json: state, url, pid, model, paused."""
        return {"agents": agents.describe()}

    @api.post("/agents/{agent_id}/execute-skill", tags=["agents"], openapi_extra=json_body_schema(ExecuteSkillRequest))
    async def execute_skill(agent_id: str, request: Request) -> JSONResponse:
        """Run a skill on an agent (its Thinker is started if needed); the Thinker's `/execute-skill` answer."""
        body = await parse_json_body(request, ExecuteSkillRequest)
        # The owner asked for this run: it starts clean (what it reads may taint it, as in any turn).
        said = [body.skillName or "", body.instructions]
        body = body.model_copy(update={"turnId": hub.turns.mint(agent_id, said=said).id})
        try:
            with continue_trace(valid_trace_id(request.headers.get(TRACE_HEADER))):
                return JSONResponse((await agents.execute_skill(agent_id, body)).wire())
        except AgentError as exc:
            return JSONResponse(SkillAnswer(success=False, error=str(exc)).wire())

    @api.post(
        "/agents/{agent_id}/resume", tags=["agents"], openapi_extra=json_body_schema(AgentResumeRequest, required=False)
    )
    async def resume_agent(agent_id: str, request: Request) -> JSONResponse:
        """Resume an agent paused by its cost controls."""
        body = await parse_json_body(request, AgentResumeRequest, optional=True)
        try:
            return JSONResponse((await agents.resume(agent_id, body.resetWindow)).wire())
        except AgentError as exc:
            return JSONResponse(Acknowledgement(success=False, error=str(exc)).wire())

    @api.get("/approvals", tags=["approvals"])
    async def list_approvals() -> dict[str, Any]:
        """Calls held for the owner's approval, pending first: `{approvals: [{id, agentId, tool, arguments, reason,
        createdAt, expiresAt, status}]}`."""
        return {"approvals": [record.model_dump(exclude_none=True) for record in hub.approvals.list()]}

    @api.post(
        "/approvals/{approval_id}",
        tags=["approvals"],
        openapi_extra=json_body_schema(ApprovalDecision),
        responses={404: {"model": ErrorBody}, 409: {"model": ErrorBody}},
    )
    async def decide_approval(approval_id: str, request: Request) -> JSONResponse:
        """Approve or deny a held call: the updated record. 404 for an unknown id, 409 when already decided."""
        body = await parse_json_body(request, ApprovalDecision, example='{"decision": "approve"}')
        try:
            record = hub.approvals.decide(approval_id, body.decision, "the owner (HTTP)")
        except ApprovalNotFound:
            raise StarletteHTTPException(404, f"No approval {approval_id!r}; GET /approvals lists them.") from None
        except AlreadyDecided as exc:
            raise StarletteHTTPException(409, f"Approval {approval_id} is already {exc.record.status}.") from None
        return JSONResponse(record.model_dump(exclude_none=True))

    app.include_router(tools_api)
    app.include_router(api)
    app.include_router(
        skills_router(skills),
        dependencies=[Depends(require_token), Depends(require_serving)],
        responses=ERROR_RESPONSES,
    )
    return app
