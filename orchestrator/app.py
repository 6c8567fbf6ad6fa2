"""The hub's HTTP API (FastAPI). `GET /health` is open; everything else needs `X-Annabelle-Token`.

Tool outcomes are always HTTP 200 with the bare envelope; 4xx is only for faults of the request itself
(auth, malformed JSON, missing `name`, body too large), each with a readable `error`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from orchestrator.errors import StartupError
from orchestrator.hub import Hub
from orchestrator.settings import OrchestratorSettings
from shared.auth import TOKEN_HEADER, load_or_create_token, tokens_equal
from shared.validation import error_lines

log = logging.getLogger(__name__)

ModelT = TypeVar("ModelT", bound=BaseModel)


class ToolCallRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="Exposed tool name, e.g. `filer_read_file`.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments as an object.")


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


def _describe_request_error(exc: RequestValidationError) -> str:
    if any(error.get("type") == "json_invalid" for error in exc.errors()):
        return "The request body is not valid JSON."
    return "Invalid request: " + "; ".join(error_lines(exc, root="body", drop=("body",)))


def _json_body(model: type[BaseModel]) -> dict[str, Any]:
    schema = {"schema": model.model_json_schema()}
    return {"requestBody": {"required": True, "content": {"application/json": schema}}}


async def _parse_body(request: Request, model: type[ModelT]) -> ModelT:
    """Parse a JSON body whatever Content-Type curl sent, with a readable 400 on mistakes."""
    body = await request.body()
    if not body.strip():
        raise StarletteHTTPException(400, 'The request needs a JSON body, e.g. {"name": "get_status"}.')
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


def create_app(settings: OrchestratorSettings) -> FastAPI:
    token = settings.annabelle_token.get_secret_value() if settings.annabelle_token else None
    master_token = token or load_or_create_token(settings.annabelle_home)
    hub = Hub(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tasks:
            try:
                await hub.start(tasks)
            except StartupError as exc:
                log.critical(str(exc))
                await hub.stop()
                raise
            yield
            await hub.stop()

    async def require_token(request: Request) -> None:
        if not tokens_equal(request.headers.get(TOKEN_HEADER), master_token):
            raise StarletteHTTPException(
                401, f"Missing or wrong {TOKEN_HEADER} header (the token is in $ANNABELLE_HOME/annabelle.token)."
            )

    app = FastAPI(
        title="Annabelle hub",
        version=hub.version,
        description="Tool routing with Guardian scanning for the Annabelle assistant.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.hub = hub
    app.add_middleware(BodySizeLimit, limit=settings.orchestrator_max_body_bytes)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _describe_request_error(exc)}, status_code=400)

    @app.exception_handler(ClientDisconnect)
    async def client_gone(_: Request, __: ClientDisconnect) -> Response:
        # The caller hung up mid-request: nobody will read an answer, and it is not the hub's error.
        return Response(status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "Request failed."
        if exc.status_code == 404:
            detail = "No such endpoint; GET /docs lists them."
        if exc.status_code == 405:
            detail = "Method not allowed on this endpoint."
        return JSONResponse({"error": detail}, status_code=exc.status_code)

    @app.get("/health", tags=["health"])
    async def health() -> dict[str, str]:
        """Liveness: open, no token needed."""
        return {"status": "ok" if hub.ready else "starting", "version": hub.version}

    docs_dependencies = [] if settings.annabelle_public_docs else [Depends(require_token)]

    @app.get("/openapi.json", include_in_schema=False, dependencies=docs_dependencies)
    async def openapi() -> JSONResponse:
        return JSONResponse(app.openapi())

    @app.get("/docs", include_in_schema=False, dependencies=docs_dependencies)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="Annabelle hub API")

    api = APIRouter(dependencies=[Depends(require_token)])

    @api.get("/status", tags=["hub"])
    async def status() -> dict[str, Any]:
        """MCP servers (state, pid, restarts, last error), tool counts and Guardian statistics."""
        return hub.status()

    @api.get("/tools/list", tags=["tools"])
    async def tools_list() -> dict[str, Any]:
        """Every routed tool (`{mcpName}_{tool}`, tagged descriptions, input schemas) and per-MCP metadata."""
        return {"tools": hub.tool_listing(), "mcps": hub.mcps_metadata()}

    @api.post("/tools/call", tags=["tools"], openapi_extra=_json_body(ToolCallRequest))
    async def tools_call(request: Request) -> JSONResponse:
        """Run a tool. Always HTTP 200 with the envelope `{success, data?, error?, errorCode?, blocked?}`."""
        call = await _parse_body(request, ToolCallRequest)
        return JSONResponse(await hub.call(call.name, call.arguments))

    app.include_router(api)
    return app
