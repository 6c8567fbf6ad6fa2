"""What the hub's and the Thinker's HTTP APIs share: JSON bodies parsed leniently, 4xx answers that read well.

- `parse_json_body` reads the body as JSON whatever Content-Type the client sent (curl's default is a form type)
  and validates it with a pydantic model. No body, or a body that is not JSON: 400. JSON that does not fit the
  model (a missing or unknown field, a wrong type, NaN or Infinity, which are not JSON): 422 naming the fields,
  bounded however many there are (`shared.validation`).
- `install_error_handlers` turns validation errors, HTTP errors and client hang-ups into `{"error": ...}` bodies
  (plus the fields the service adds, e.g. `success: false`), never a traceback; a 405 says which methods the
  endpoint allows (`Allow`), a 503 when to retry (`Retry-After`).
- `ERROR_RESPONSES` documents those answers in the OpenAPI description, so what a client reads there is what it
  gets.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from shared.validation import describe_problems

ModelT = TypeVar("ModelT", bound=BaseModel)


class ErrorBody(BaseModel):
    error: str


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "No body, or a body that is not JSON."},
    401: {"model": ErrorBody, "description": "Missing or wrong X-Annabelle-Token."},
    413: {"model": ErrorBody, "description": "The body is larger than the configured limit."},
    422: {"model": ErrorBody, "description": "The JSON or a path parameter does not fit: the fields are named."},
    503: {"model": ErrorBody, "description": "Still starting; retry after the Retry-After seconds."},
}
"""The failure answers every endpoint that takes the token may give, for `responses=` in the OpenAPI."""


class NotJson(ValueError):
    """NaN and Infinity are accepted by Python's JSON reader but are not JSON."""


def _refuse_constant(name: str) -> float:
    raise NotJson(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise NotJson(f"{text[:20]} is too large for a JSON number")
    return value


def describe_request_error(exc: RequestValidationError) -> str:
    return describe_problems(exc, prefix="Invalid request: ", root="body", drop=("body",))


def json_body_schema(model: type[BaseModel], *, required: bool = True) -> dict[str, Any]:
    """`openapi_extra` documenting a body that the endpoint parses itself with `parse_json_body`."""
    content = {"application/json": {"schema": model.model_json_schema()}}
    return {"requestBody": {"required": required, "content": content}}


async def parse_json_body(
    request: Request, model: type[ModelT], *, optional: bool = False, example: str = ""
) -> ModelT:
    """The body as `model`; an empty body is the model's defaults when `optional`, else a 400."""
    body = await request.body()
    if not body.strip():
        if optional:
            return model()
        raise HTTPException(400, f"The request needs a JSON body{', e.g. ' + example if example else ''}.")
    try:
        data = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite)
    except NotJson as exc:
        raise HTTPException(422, f"Invalid request: {exc}.") from None
    except ValueError:  # JSONDecodeError, and bytes that are not UTF-8
        raise HTTPException(400, "The request body is not valid JSON.") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


def service_app(
    *,
    title: str,
    description: str,
    lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]],
    version: str = "0.1.0",  # FastAPI's own default
) -> FastAPI:
    """The app of the hub or a Thinker. FastAPI's own documentation routes are left out: they would be open to
    anyone, and what a service describes is served behind its token (the hub's `/docs`) or not at all."""
    return FastAPI(
        title=title,
        version=version,
        description=description,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )


def install_error_handlers(app: FastAPI, *, extra: Mapping[str, Any] | None = None, not_found: str) -> None:
    """400/401/404/405/413/422/503 as `{**extra, "error": sentence}`; `not_found` tells a lost caller where to
    look."""
    fields = dict(extra or {})

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({**fields, "error": describe_request_error(exc)}, status_code=422)

    @app.exception_handler(ClientDisconnect)
    async def client_gone(_: Request, __: ClientDisconnect) -> Response:
        # The caller hung up mid-request: nobody will read an answer, and it is not the server's error.
        return Response(status_code=400)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "Request failed."
        if (
            exc.status_code == 404 and detail == "Not Found"
        ):  # the router's: no such endpoint (an endpoint's own says what)
            detail = not_found
        elif exc.status_code == 405:
            detail = "Method not allowed on this endpoint."
        return JSONResponse({**fields, "error": detail}, status_code=exc.status_code, headers=exc.headers)
