"""The one client of the hub's HTTP API, typed with its contract (`shared.contracts.hub_api`).

Used by the Thinker (tools), the `annabelle` CLI (through `anyio.run`), `annabelle chat`, `annabelle mcp` and
`annabelle doctor`. It sends the token (a string, or a function asked on every request, for a token file that
may appear later) and the current trace id; it answers with contract models, or raises one of:

    HubError             the base: its message is a sentence for the user
    ├── HubUnreachable   no connection, or no answer in time (`timed_out`)
    ├── HubRefused       HTTP 401: the token is not one the hub knows
    └── HubRejected      any other 4xx/5xx, with the hub's own `error` sentence and the `status`

`call_tool` never raises: a tool call's every outcome is an envelope, and a hub that cannot be asked becomes
one too (`MCP_UNAVAILABLE`, `TIMEOUT`, `NOT_ALLOWED`), so a model reads what happened instead of a turn crashing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from shared.agents import MAX_TURN_SECONDS, TURN_GRACE_SECONDS
from shared.auth import TOKEN_HEADER
from shared.contracts.hub_api import MessageAnswer, MessageRequest, ToolCallRequest, ToolListing
from shared.envelope import Envelope, ErrorCode, fail
from shared.traces import trace_headers

DEFAULT_TIMEOUT_SECONDS = 130.0
"""A tool call or any other request; the hub bounds a tool call well before this."""
MESSAGE_TIMEOUT_SECONDS = MAX_TURN_SECONDS + TURN_GRACE_SECONDS + 60.0
"""`POST /message` waits for a whole turn, which the hub ends within the agent's `turnTimeoutSeconds` (up to
`MAX_TURN_SECONDS`): a slow local model may take minutes, and giving up earlier would only leave the turn running."""

TokenSource = str | Callable[[], str | None] | None
ModelT = TypeVar("ModelT", bound=BaseModel)


class HubError(Exception):
    """The hub could not be asked, or refused: the message says what happened and what to do."""


class HubUnreachable(HubError):
    def __init__(self, message: str, *, cause: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.cause = cause
        """What failed, in a word (the httpx error's name), for messages of the caller's own."""
        self.timed_out = timed_out


class HubRefused(HubError):
    """HTTP 401: the token is not the hub's master token nor an agent's."""


class HubRejected(HubError):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class HubClient:
    def __init__(
        self,
        base_url: str,
        token: TokenSource,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._token = token
        self._client = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport)

    async def __aenter__(self) -> HubClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    def _headers(self) -> dict[str, str]:
        token = self._token() if callable(self._token) else self._token
        return {**({TOKEN_HEADER: token} if token else {}), **trace_headers()}

    # -- the API ----------------------------------------------------------------------------------------------

    async def health(self) -> dict[str, Any]:
        return dict(await self.request("GET", "/health", seconds=5.0))

    async def list_tools(self) -> ToolListing:
        return self._parse(ToolListing, await self.request("GET", "/tools/list"), "/tools/list")

    async def message(self, text: str, chat_id: str = "http") -> MessageAnswer:
        body = MessageRequest(message=text, chatId=chat_id)
        answer = await self.request("POST", "/message", body.model_dump(), seconds=MESSAGE_TIMEOUT_SECONDS)
        return self._parse(MessageAnswer, answer, "/message")

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        seconds: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Run a tool through the hub: always an envelope `{success, data?, error?, errorCode?, blocked?}`.
        `headers` add to the request's (an agent's turn, `TURN_HEADER`)."""
        body = ToolCallRequest.model_construct(name=name, arguments=dict(arguments))
        try:
            answer = await self.request("POST", "/tools/call", body.model_dump(), seconds=seconds, headers=headers)
        except HubUnreachable as exc:
            if exc.timed_out:
                return fail(ErrorCode.TIMEOUT, f"The hub did not answer the call to {name} in time.")
            return fail(
                ErrorCode.MCP_UNAVAILABLE,
                f"The hub at {self.base_url} is not reachable ({exc.cause}), so {name} did not run.",
            )
        except HubRefused:
            return fail(ErrorCode.NOT_ALLOWED, f"The hub refused this caller's token, so {name} did not run.")
        except HubRejected as exc:
            return fail(ErrorCode.TOOL_ERROR, f"The hub answered HTTP {exc.status} to the call to {name}: {exc}")
        try:
            return Envelope.model_validate(answer).to_dict()
        except ValidationError:
            return fail(ErrorCode.TOOL_ERROR, f"The hub answered the call to {name} without an envelope.")

    async def request(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        seconds: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """Any endpoint: its JSON answer, or a `HubError` with a sentence."""
        try:
            response = await self._client.request(
                method, path, json=body, headers={**self._headers(), **(headers or {})}, timeout=seconds or self.timeout
            )
        except httpx.TimeoutException:
            raise HubUnreachable(
                f"The hub at {self.base_url} did not answer in time.", cause="timeout", timed_out=True
            ) from None
        except httpx.HTTPError as exc:
            raise HubUnreachable(
                f"The hub is not running at {self.base_url} ({type(exc).__name__}); start it with `make run` or "
                "`annabelle up` (or set ORCHESTRATOR_URL).",
                cause=type(exc).__name__,
            ) from None
        if response.status_code == 401:
            raise HubRefused(
                f"The hub at {self.base_url} rejected the token: ANNABELLE_TOKEN or ANNABELLE_HOME differs from the "
                "hub's (an agent uses the token the hub minted for it)."
            )
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code >= 400:
            detail = answer.get("error") if isinstance(answer, dict) else None
            raise HubRejected(str(detail or f"HTTP {response.status_code} from {path}."), response.status_code)
        if answer is None:
            raise HubRejected(f"The hub answered {path} without JSON.", response.status_code)
        return answer

    @staticmethod
    def _parse(model: type[ModelT], answer: Any, path: str) -> ModelT:
        try:
            return model.model_validate(answer)
        except ValidationError:
            raise HubRejected(
                f"The hub answered {path} in a shape this client does not know; are both the same version?", 200
            ) from None


__all__ = ["HubClient", "HubError", "HubRefused", "HubRejected", "HubUnreachable", "TokenSource"]
