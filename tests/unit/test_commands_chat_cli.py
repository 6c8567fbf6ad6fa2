"""`annabelle chat` logic over an httpx MockTransport: rendering answers, /exit, --reset, exit codes."""

from __future__ import annotations

import io
import json

import httpx
import pytest

from orchestrator.chat_cli import ChatError, ChatSession, Rendered, render_answer, run_chat
from shared.contracts.hub_api import MessageAnswer
from shared.hub_client import HubClient


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"success": True, "reply": "Hi."}, Rendered("Hi.", True)),
        ({"success": True, "reply": "/help text", "command": True}, Rendered("/help text", True)),
        ({"success": True, "reply": "Done.", "paused": True, "notice": "Paused."}, Rendered("Done.\n(Paused.)", True)),
        ({"success": False, "halted": True, "error": "Halted."}, Rendered("Halted.", False)),
        ({"success": False, "paused": True, "error": "Paused."}, Rendered("Paused.", False)),
        ({"success": False, "error": "No agent."}, Rendered("Error: No agent.", False)),
        ({"success": True, "reply": ""}, Rendered("(no answer)", True)),
    ],
)
def test_answers_render_as_the_user_should_read_them(answer: dict[str, object], expected: Rendered) -> None:
    assert render_answer(MessageAnswer.model_validate(answer)) == expected


def hub(sent: list[str], answers: dict[str, dict[str, object]]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/health":
            return httpx.Response(200, json={"status": "ok"})
        assert request.headers["X-Annabelle-Token"] == "tok"
        body = json.loads(request.content)
        sent.append(body["message"])
        assert body["chatId"] == "cli"
        return httpx.Response(200, json=answers.get(body["message"], {"success": True, "reply": "ok"}))

    return httpx.MockTransport(handle)


def session(url: str, transport: httpx.MockTransport) -> ChatSession:
    return ChatSession(HubClient(url, "tok", transport=transport), "cli")


async def test_lines_are_sent_until_exit_and_a_failed_answer_sets_the_exit_code() -> None:
    sent: list[str] = []
    chat = session("http://hub", hub(sent, {"b": {"success": False, "error": "x"}}))
    out = io.StringIO()
    code = await run_chat(chat, reset=True, interactive=False, lines=["a", "  ", "b", "/EXIT", "c"], out=out)
    assert sent == ["/clear", "a", "b"]
    assert out.getvalue().splitlines() == ["ok", "ok", "Error: x"]
    assert code == 1


async def test_a_refused_token_and_a_missing_hub_stop_the_chat_with_a_sentence() -> None:
    refused = httpx.MockTransport(
        lambda r: httpx.Response(200 if r.url.path == "/health" else 401, json={"error": "no"})
    )
    with pytest.raises(ChatError, match="rejected the token"):
        await run_chat(session("http://hub", refused), reset=False, interactive=False, lines=["x"])

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    chat = session("http://127.0.0.1:1", httpx.MockTransport(down))
    with pytest.raises(ChatError, match=r"not running at http://127.0.0.1:1; start it with `annabelle up`"):
        await run_chat(chat, reset=False, interactive=False, lines=["x"])
