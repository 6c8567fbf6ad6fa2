"""What the hub's and the Thinker's HTTP APIs share: JSON bodies parsed leniently, 4xx answers that read well.

- `parse_json_body` reads the body as JSON whatever Content-Type the client sent (curl's default is a form type)
  and validates it with a pydantic model; a mistake becomes a 400 naming the field.
- `install_error_handlers` turns validation errors, HTTP errors and client hang-ups into `{"error": ...}` bodies
  (plus the fields the service adds, e.g. `success: false`), never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from shared.validation import error_lines

ModelT = TypeVar("ModelT", bound=BaseModel)


def describe_request_error(exc: RequestValidationError) -> str:
    if any(error.get("type") == "json_invalid" for error in exc.errors()):
        return "The request body is not valid JSON."
    return "Invalid request: " + "; ".join(error_lines(exc, root="body", drop=("body",)))


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
        return model.model_validate_json(body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors()) from None


def install_error_handlers(app: FastAPI, *, extra: Mapping[str, Any] | None = None, not_found: str) -> None:
    """400/401/404/405/413... as `{**extra, "error": sentence}`; `not_found` tells a lost caller where to look."""
    fields = dict(extra or {})

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({**fields, "error": describe_request_error(exc)}, status_code=400)

    @app.exception_handler(ClientDisconnect)
    async def client_gone(_: Request, __: ClientDisconnect) -> Response:
        # The caller hung up mid-request: nobody will read an answer, and it is not the server's error.
        return Response(status_code=400)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "Request failed."
        if exc.status_code == 404:
            detail = not_found
        elif exc.status_code == 405:
            detail = "Method not allowed on this endpoint."
        return JSONResponse({**fields, "error": detail}, status_code=exc.status_code, headers=exc.headers)
