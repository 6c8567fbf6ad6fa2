"""`annabelle chat`: a terminal chat with the running hub through `POST /message` (channel `http`).

Interactive on a terminal (prompt, "…thinking" while the agent works, Ctrl-D or /exit to quit); otherwise each
line of stdin is one message (`echo hi | annabelle chat`) and the exit code says whether every answer succeeded.
Slash commands go through the same endpoint and answer without an LLM. Rendering an answer is pure
(`render_answer`); `ChatClient` is the one HTTP seam (tests pass an httpx transport).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO

import httpx

from shared.auth import TOKEN_HEADER

EXIT_WORDS = frozenset({"/exit", "/quit"})
MESSAGE_TIMEOUT_SECONDS = 130.0  # the Thinker gives up on its LLM well before this


class ChatError(Exception):
    """The chat cannot go on (hub down, token refused); the message says what to do."""


@dataclass(frozen=True)
class Rendered:
    text: str
    ok: bool


def render_answer(answer: dict[str, Any]) -> Rendered:
    """What the user sees for one `POST /message` answer (pure)."""
    if answer.get("success"):
        text = str(answer.get("reply") or "")
        if answer.get("notice"):
            text = f"{text}\n({answer['notice']})" if text else str(answer["notice"])
        return Rendered(text or "(no answer)", True)
    if answer.get("halted") or answer.get("paused"):
        return Rendered(str(answer.get("error") or "The assistant is paused."), False)
    return Rendered(f"Error: {answer.get('error') or 'the hub could not answer.'}", False)


class ChatClient:
    def __init__(self, hub_url: str, token: str, chat_id: str, *, transport: httpx.BaseTransport | None = None) -> None:
        self.hub_url = hub_url
        self.chat_id = chat_id
        self._client = httpx.Client(
            base_url=hub_url, headers={TOKEN_HEADER: token}, timeout=MESSAGE_TIMEOUT_SECONDS, transport=transport
        )

    def close(self) -> None:
        self._client.close()

    def check(self) -> None:
        """Fail early, with a sentence, when no hub answers at the URL."""
        try:
            self._client.get("/health", timeout=5.0)
        except httpx.HTTPError:
            raise ChatError(
                f"The hub is not running at {self.hub_url}; start it with `annabelle up` (or `make run`)."
            ) from None

    def send(self, text: str) -> dict[str, Any]:
        try:
            response = self._client.post("/message", json={"message": text, "chatId": self.chat_id})
        except httpx.TimeoutException:
            return {"success": False, "error": f"No answer within {MESSAGE_TIMEOUT_SECONDS:g} s; try again."}
        except httpx.HTTPError:
            raise ChatError(f"Lost the hub at {self.hub_url}; is it still running?") from None
        if response.status_code == 401:
            raise ChatError("The hub rejected the token: ANNABELLE_TOKEN or ANNABELLE_HOME differs from the hub's.")
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            return {"success": False, "error": f"HTTP {response.status_code} without a JSON answer."}
        return answer


def _interactive_lines(prompt: str) -> Iterator[str]:
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input(), where the platform has it)
    while True:
        try:
            yield input(prompt)
        except EOFError:
            print(file=sys.stderr)
            return


def run_chat(
    client: ChatClient,
    *,
    reset: bool,
    interactive: bool,
    lines: Iterable[str] | None = None,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """Chat until the input ends or /exit; returns the exit code (1 when a piped message failed)."""
    client.check()
    if interactive:
        print(
            f"Chatting with Annabelle at {client.hub_url} (chat {client.chat_id!r}). "
            "/help lists commands; Ctrl-D or /exit quits.",
            file=err,
        )
    if reset:
        cleared = render_answer(client.send("/clear"))
        print(cleared.text, file=err if interactive else out)
    all_ok = True
    source = _interactive_lines("you> ") if lines is None else lines
    for raw in source:
        text = raw.strip()
        if not text:
            continue
        if text.lower() in EXIT_WORDS:
            break
        thinking = interactive and err.isatty()
        if thinking:
            err.write("…thinking")
            err.flush()
        try:
            rendered = render_answer(client.send(text))
        finally:
            if thinking:
                err.write("\r\x1b[K")  # erase the "…thinking" line before the answer is printed
                err.flush()
        all_ok = all_ok and rendered.ok
        print(rendered.text, file=out, flush=True)
    return 0 if interactive or all_ok else 1
