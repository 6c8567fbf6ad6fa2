"""The Thinker's HTTP API (FastAPI).

`GET /health` is open (503 `{"status": "initializing"}` until start-up finished). Everything else needs
`X-Annabelle-Token`: this agent's token (minted by the hub) or the master token, compared in constant time.

    POST /process-message  ProcessMessageRequest → TurnAnswer
    POST /execute-skill    ExecuteSkillRequest   → SkillAnswer
    POST /clear-session    ClearSessionRequest   → Acknowledgement
    GET  /cost-status                            → CostStatus
    POST /cost-resume      CostResumeRequest     → Acknowledgement

(the models are the hub's too: `shared.contracts.thinker_api`).

A request mistake is a 4xx with `{"success": false, "error": "<sentence>"}`; an unexpected failure is a 500
with a sentence (the traceback goes to the log, never to the caller).
"""

# No `from __future__ import annotations`: FastAPI reads the endpoint annotations at run time.
import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from shared.auth import TOKEN_HEADER, tokens_equal
from shared.contracts.thinker_api import (
    Acknowledgement,
    ClearSessionRequest,
    CostResumeRequest,
    ExecuteSkillRequest,
    ProcessMessageRequest,
)
from shared.http_api import install_error_handlers, json_body_schema, parse_json_body, service_app
from shared.traces import TRACE_HEADER, trace_event, traced, valid_trace_id
from thinker.hub_tools import HubTools
from thinker.runtime import BadRequest, MessageIn, SkillIn, ThinkerRuntime

log = logging.getLogger(__name__)


@contextmanager
def request_trace(request: Request, kind: str) -> Iterator[str]:
    """The hub's trace for this request (its X-Trace-Id header), or a new one for a caller that sent none."""
    with traced(valid_trace_id(request.headers.get(TRACE_HEADER))) as trace_id:
        try:
            yield trace_id
        except Exception as exc:
            # Recorded here: the app's error handler runs after the trace's context has been left.
            trace_event("error", stage=kind, error=type(exc).__name__)
            raise


def _log_start_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.critical("the Thinker failed to start", exc_info=task.exception())


def create_app(runtime: ThinkerRuntime) -> FastAPI:
    settings = runtime.settings
    starting: list[asyncio.Task[None]] = []

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Start-up (litellm import and warm-up: seconds) runs behind the server, so /health can say
        # "initializing" meanwhile instead of the port staying closed.
        task = asyncio.create_task(runtime.start())
        task.add_done_callback(_log_start_failure)
        starting.append(task)
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await runtime.aclose()

    unauthorized = (
        f"Missing or wrong {TOKEN_HEADER} header: send this agent's token (ANNABELLE_AGENT_TOKEN) or the master "
        "token ($ANNABELLE_HOME/annabelle.token)."
    )

    async def require_token(request: Request) -> None:
        given = request.headers.get(TOKEN_HEADER)
        agent_token = settings.agent_token
        master = settings.master_token()
        if (agent_token and tokens_equal(given, agent_token)) or (master and tokens_equal(given, master)):
            return
        raise StarletteHTTPException(401, unauthorized)

    def start_failure() -> str | None:
        task = starting[0] if starting else None
        if task is None or not task.done() or task.cancelled() or task.exception() is None:
            return None
        exc = task.exception()
        return f"{type(exc).__name__}: {exc}"

    async def require_ready(_: Request) -> None:
        if not runtime.state.ready:
            failure = start_failure()
            if failure:
                raise StarletteHTTPException(503, f"The Thinker failed to start ({failure}); see its log.")
            raise StarletteHTTPException(503, "The Thinker is still starting; retry in a moment.")

    app = service_app(
        title=f"Annabelle Thinker ({runtime.agent_id})",
        description="The agent runtime: context, tool selection, the model loop, sessions, cost controls.",
        lifespan=lifespan,
    )
    app.state.runtime = runtime

    install_error_handlers(
        app,
        extra={"success": False},
        not_found="No such endpoint; see GET /health and the Thinker's documentation (docs/thinker.md).",
    )

    @app.exception_handler(BadRequest)
    async def bad_request(_: Request, exc: BadRequest) -> JSONResponse:
        return JSONResponse({"success": False, "error": str(exc)}, status_code=400)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("request failed", extra={"path": request.url.path})
        error = f"The Thinker failed on this request ({type(exc).__name__}); the log has the details."
        return JSONResponse({"success": False, "error": error}, status_code=500)

    @app.get("/health", tags=["health"])
    async def health() -> JSONResponse:
        """Open. 503 `{"status": "initializing"}` until start-up finished, then the agent's state."""
        if not runtime.state.ready:
            body = {"status": "initializing", "service": "thinker", "agentId": runtime.agent_id}
            failure = start_failure()
            if failure:
                body = {**body, "status": "failed", "error": failure}
            return JSONResponse(body, status_code=503)
        return JSONResponse(runtime.health())

    guarded = [Depends(require_token), Depends(require_ready)]

    @app.post(
        "/process-message", tags=["agent"], dependencies=guarded, openapi_extra=json_body_schema(ProcessMessageRequest)
    )
    async def process_message(request: Request) -> JSONResponse:
        """One chat turn: `{success, response?, toolsUsed, totalSteps, error?, paused?}`."""
        body = await parse_json_body(request, ProcessMessageRequest)
        if body.agentId is not None and body.agentId != runtime.agent_id:
            raise BadRequest(f"This Thinker runs the agent {runtime.agent_id!r}, not {body.agentId!r}.")
        with request_trace(request, "process-message") as trace_id, HubTools.turn(body.turnId):
            answer = await runtime.process_message(
                MessageIn(
                    chat_id=body.chatId, text=body.text, tainted=body.tainted, turn_id=body.turnId, owner=body.owner
                )
            )
        return JSONResponse(answer.wire(), headers={TRACE_HEADER: trace_id})

    @app.post(
        "/execute-skill", tags=["agent"], dependencies=guarded, openapi_extra=json_body_schema(ExecuteSkillRequest)
    )
    async def execute_skill(request: Request) -> JSONResponse:
        """Run a skill's instructions: `{success, response, summary, toolsUsed, totalSteps, error?, paused?}`."""
        body = await parse_json_body(request, ExecuteSkillRequest)
        skill = SkillIn(
            instructions=body.instructions,
            max_steps=body.maxSteps,
            no_tools=body.noTools,
            required_tools=body.requiredTools,
            chat_id=body.chatId,
            skill_name=body.skillName,
            skill_id=body.skillId,
            max_tokens_per_run=body.maxTokensPerRun,
            daily_tokens=body.dailyTokens,
        )
        with request_trace(request, "execute-skill") as trace_id, HubTools.turn(body.turnId):
            answer = await runtime.execute_skill(skill)
        return JSONResponse(answer.wire(), headers={TRACE_HEADER: trace_id})

    @app.post(
        "/clear-session", tags=["agent"], dependencies=guarded, openapi_extra=json_body_schema(ClearSessionRequest)
    )
    async def clear_session(request: Request) -> JSONResponse:
        """Forget a chat's history: `{success, message}`."""
        body = await parse_json_body(request, ClearSessionRequest)
        existed = runtime.clear_session(body.chatId)
        message = f"Session {body.chatId} cleared." if existed else f"Session {body.chatId} had no history."
        return JSONResponse(Acknowledgement(success=True, message=message).wire())

    @app.get("/cost-status", tags=["cost"], dependencies=[Depends(require_token)])
    async def cost_status() -> JSONResponse:
        """Token usage over the last hour, the limits, whether the agent is paused, and spend against budgets."""
        return JSONResponse(runtime.cost_status().wire())

    @app.post("/cost-resume", tags=["cost"], dependencies=[Depends(require_token)])
    async def cost_resume(request: Request) -> JSONResponse:
        """Lift a cost pause (`resetWindow: true` also forgets the last hour's usage)."""
        body = await parse_json_body(request, CostResumeRequest, optional=True)
        was_paused = runtime.cost.paused
        runtime.cost.resume(body.resetWindow)
        message = "Resumed." if was_paused else "The agent was not paused."
        if body.resetWindow:
            message += " The usage window was reset."
        return JSONResponse(Acknowledgement(success=True, message=message).wire())

    return app
