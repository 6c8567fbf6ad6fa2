"""`annabelle chat`: a terminal chat with the running hub through `POST /message` (channel `http`).

Interactive on a terminal (prompt, "…thinking" while the agent works, Ctrl-D or /exit to quit); otherwise each
line of stdin is one message (`echo hi | annabelle chat`) and the exit code says whether every answer succeeded.
Slash commands go through the same endpoint and answer without an LLM. Rendering an answer is pure
(`render_answer`); the hub is reached through `shared.hub_client.HubClient` (tests pass an httpx transport).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TextIO

import anyio.to_thread

from shared.contracts.hub_api import MessageAnswer
from shared.hub_client import MESSAGE_TIMEOUT_SECONDS, HubClient, HubError, HubRefused, HubUnreachable

EXIT_WORDS = frozenset({"/exit", "/quit"})


class ChatError(Exception):
    """The chat cannot go on (hub down, token refused); the message says what to do."""


@dataclass(frozen=True)
class Rendered:
    text: str
    ok: bool


def render_answer(answer: MessageAnswer) -> Rendered:
    """What the user sees for one `POST /message` answer (pure)."""
    if answer.success:
        text = answer.reply or ""
        if answer.notice:
            text = f"{text}\n({answer.notice})" if text else answer.notice
        return Rendered(text or "(no answer)", True)
    if answer.halted or answer.paused:
        return Rendered(answer.error or "The assistant is paused.", False)
    return Rendered(f"Error: {answer.error or 'the hub could not answer.'}", False)


class ChatSession:
    """One conversation with the hub: `POST /message` on one chat id, through the one hub client."""

    def __init__(self, hub: HubClient, chat_id: str) -> None:
        self.hub = hub
        self.chat_id = chat_id

    @property
    def hub_url(self) -> str:
        return self.hub.base_url

    async def check(self) -> None:
        """Fail early, with a sentence, when no hub answers at the URL."""
        try:
            await self.hub.health()
        except HubUnreachable:
            raise ChatError(
                f"The hub is not running at {self.hub_url}; start it with `annabelle up` (or `make run`)."
            ) from None
        except HubError:
            return  # it answered: whatever is wrong with /health, /message will say more

    async def send(self, text: str) -> MessageAnswer:
        try:
            return await self.hub.message(text, self.chat_id)
        except HubUnreachable as exc:
            if exc.timed_out:
                return MessageAnswer(success=False, error=f"No answer within {MESSAGE_TIMEOUT_SECONDS:g} s; try again.")
            raise ChatError(f"Lost the hub at {self.hub_url}; is it still running?") from None
        except HubRefused:
            raise ChatError(
                "The hub rejected the token: ANNABELLE_TOKEN or ANNABELLE_HOME differs from the hub's."
            ) from None
        except HubError as exc:
            return MessageAnswer(success=False, error=str(exc))


def _interactive_lines(prompt: str) -> Iterator[str]:
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input(), where the platform has it)
    while True:
        try:
            yield input(prompt)
        except EOFError:
            print(file=sys.stderr)
            return


async def run_chat(
    session: ChatSession,
    *,
    reset: bool,
    interactive: bool,
    lines: Iterable[str] | None = None,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    """Chat until the input ends or /exit; returns the exit code (1 when a piped message failed)."""
    await session.check()
    if interactive:
        print(
            f"Chatting with Annabelle at {session.hub_url} (chat {session.chat_id!r}). "
            "/help lists commands; Ctrl-D or /exit quits.",
            file=err,
        )
    if reset:
        cleared = render_answer(await session.send("/clear"))
        print(cleared.text, file=err if interactive else out)
    all_ok = True
    source = iter(_interactive_lines("you> ") if lines is None else lines)
    # Reading a line blocks (a terminal, a pipe): it happens off the event loop.
    while (raw := await anyio.to_thread.run_sync(next, source, None)) is not None:
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
            rendered = render_answer(await session.send(text))
        finally:
            if thinking:
                err.write("\r\x1b[K")  # erase the "…thinking" line before the answer is printed
                err.flush()
        all_ok = all_ok and rendered.ok
        print(rendered.text, file=out, flush=True)
    return 0 if interactive or all_ok else 1
