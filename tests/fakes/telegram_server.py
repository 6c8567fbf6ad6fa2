"""A fake Telegram Bot API on 127.0.0.1, speaking what python-telegram-bot sends.

    with FakeTelegram(token="123:abc") as tg:
        tg.inject_message(chat_id=42, text="hello")            # a user writes to the bot
        ... TELEGRAM_API_BASE=tg.url, TELEGRAM_BOT_TOKEN=tg.token ...
        assert tg.sent_texts(42) == ["hi!"]

Requests go to `/bot{token}/{method}` as form-encoded (complex values JSON-encoded), multipart (files) or JSON
bodies; a wrong token gets 401. getUpdates honours `offset` (earlier updates are forgotten, as on Telegram) and
`timeout` (a long poll capped at `max_wait` seconds). Every request is recorded as (method, params).

`sendMessage` with `parse_mode=HTML` is parsed as Telegram does: only its tags, properly nested, with `<`, `>`
and `&` escaped elsewhere, else HTTP 400 "Bad Request: can't parse entities: ..."; the 4,096-character limit
applies to the text after parsing, which is what the stored message holds. `refuse_markup = True` makes it refuse
every message with a `parse_mode`, as Telegram does with markup it cannot parse.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.loopback import LoopbackServer

BOT_USER = {"id": 777000111, "is_bot": True, "first_name": "Annabelle", "username": "annabelle_test_bot"}
HTML_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "blockquote", "span"}


class EntityError(Exception):
    """Markup Telegram would refuse."""


class _TelegramHtml(HTMLParser):
    """Telegram's HTML mode: its tags only, closed in order; the text is what the user sees."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in HTML_TAGS:
            raise EntityError(f'Unsupported start tag "{tag}"')
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            expected = self.open[-1] if self.open else tag
            raise EntityError(f'Can\'t find end tag corresponding to start tag "{expected}"')
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse_html(text: str) -> str:
    """The visible text of a Telegram HTML message; raises EntityError as Telegram would refuse it."""
    parser = _TelegramHtml()
    parser.feed(text)
    parser.close()
    if parser.open:
        raise EntityError(f'Can\'t find end tag corresponding to start tag "{parser.open[-1]}"')
    return "".join(parser.text)


@dataclass(frozen=True)
class TelegramRequest:
    method: str
    params: dict[str, Any]


def _chat(chat_id: int, chat_type: str) -> dict[str, Any]:
    chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
    if chat_type == "private":
        chat["first_name"] = f"User{chat_id}"
    else:
        chat["title"] = f"Group {chat_id}"
    return chat


class FakeTelegram(LoopbackServer):
    name = "fake-telegram"

    def __init__(self, token: str = "123456:TEST-token", max_wait: float = 0.5) -> None:
        super().__init__()
        self.token = token
        self.max_wait = max_wait
        self.requests: list[TelegramRequest] = []
        self.updates: list[dict[str, Any]] = []
        self.sent: dict[int, list[dict[str, Any]]] = {}
        self.deleted: list[tuple[int, int]] = []
        self.files: dict[str, tuple[str, bytes]] = {}
        self.chat_types: dict[int, str] = {}
        self.refuse_markup = False
        self._lock = threading.Lock()
        self._update_ids = itertools.count(1000)
        self._message_ids = itertools.count(1)
        self._file_ids = itertools.count(1)
        self.app = Starlette(
            routes=[
                Route("/bot{token}/{method}", self._api, methods=["GET", "POST"]),
                Route("/file/bot{token}/{path:path}", self._file, methods=["GET"]),
            ]
        )

    # --- test side -----------------------------------------------------------------------------------------
    def inject_message(
        self,
        chat_id: int,
        text: str | None = "hello",
        *,
        chat_type: str = "private",
        from_id: int | None = None,
        document: tuple[str, bytes] | None = None,
    ) -> int:
        """Queue an update with a user's message; returns its update_id."""
        with self._lock:
            self.chat_types[chat_id] = chat_type
            message: dict[str, Any] = {
                "message_id": next(self._message_ids),
                "date": int(time.time()),
                "chat": _chat(chat_id, chat_type),
                "from": {"id": from_id or abs(chat_id), "is_bot": False, "first_name": f"User{chat_id}"},
            }
            if text is not None:
                message["text" if document is None else "caption"] = text
            if document is not None:
                file_id = self._store_file(document[0], document[1])
                message["document"] = {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_name": document[0]}
            update_id = next(self._update_ids)
            self.updates.append({"update_id": update_id, "message": message})
            return update_id

    def press_button(self, chat_id: int, message_id: int, data: str, *, from_id: int | None = None) -> int:
        """Queue an update: a user pressed the inline button carrying `data` under the bot's message."""
        with self._lock:
            original = next(m for m in self.sent.get(chat_id, []) if m["message_id"] == message_id)
            update_id = next(self._update_ids)
            query = {
                "id": f"cb{update_id}",
                "from": {"id": from_id or abs(chat_id), "is_bot": False, "first_name": f"User{chat_id}"},
                "chat_instance": str(chat_id),
                "message": original,
                "data": data,
            }
            self.updates.append({"update_id": update_id, "callback_query": query})
            return update_id

    def buttons(self, chat_id: int) -> list[tuple[int, list[str]]]:
        """The bot's messages in `chat_id` that carry inline buttons: (message_id, [callback data...])."""
        return [
            (m["message_id"], [b["callback_data"] for row in m["reply_markup"]["inline_keyboard"] for b in row])
            for m in self.sent.get(chat_id, [])
            if m.get("reply_markup")
        ]

    def sent_texts(self, chat_id: int) -> list[str]:
        return [m.get("text", "") for m in self.sent.get(chat_id, [])]

    def calls(self, method: str) -> list[TelegramRequest]:
        return [r for r in self.requests if r.method == method]

    def _store_file(self, name: str, data: bytes) -> str:
        file_id = f"file{next(self._file_ids)}"
        self.files[file_id] = (f"documents/{file_id}_{name}", data)
        return file_id

    # --- server side ---------------------------------------------------------------------------------------
    async def _params(self, request: Request) -> tuple[dict[str, Any], dict[str, bytes]]:
        params: dict[str, Any] = dict(request.query_params)
        uploads: dict[str, bytes] = {}
        content_type = request.headers.get("content-type", "")
        if content_type.startswith("application/json"):
            body = await request.body()
            if body:
                params.update(json.loads(body))
        elif content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
            form = await request.form()
            for key, value in form.multi_items():
                if isinstance(value, UploadFile):
                    uploads[key] = await value.read()
                    params[key] = f"<upload {value.filename}>"
                else:
                    params[key] = value
        return params, uploads

    async def _api(self, request: Request) -> Response:
        method = request.path_params["method"]
        params, uploads = await self._params(request)
        with self._lock:
            self.requests.append(TelegramRequest(method, params))
        if request.path_params["token"] != self.token:
            return JSONResponse({"ok": False, "error_code": 401, "description": "Unauthorized"}, status_code=401)
        handler = getattr(self, f"_m_{method}", None)
        if handler is None:
            return JSONResponse({"ok": False, "error_code": 404, "description": "Not Found"}, status_code=404)
        if method == "getUpdates":
            result = await self._m_getUpdates(params)
        else:
            with self._lock:
                result = handler(params, uploads)
        if isinstance(result, Response):
            return result
        return JSONResponse({"ok": True, "result": result})

    async def _file(self, request: Request) -> Response:
        if request.path_params["token"] != self.token:
            return Response(status_code=401)
        for path, data in self.files.values():
            if path == request.path_params["path"]:
                return Response(data, media_type="application/octet-stream")
        return Response(status_code=404)

    async def _m_getUpdates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        deadline = time.monotonic() + min(float(params.get("timeout") or 0), self.max_wait)
        while True:
            with self._lock:
                if offset:
                    # Like Telegram: asking from `offset` confirms (and forgets) everything before it.
                    self.updates = [u for u in self.updates if u["update_id"] >= offset]
                ready = list(self.updates[: int(params.get("limit") or 100)])
            if ready or time.monotonic() >= deadline:
                return ready
            await asyncio.sleep(0.02)

    def _m_getMe(self, _params: dict[str, Any], _uploads: dict[str, bytes]) -> dict[str, Any]:
        return {**BOT_USER, "can_join_groups": True, "can_read_all_group_messages": False}

    def _m_deleteWebhook(self, _params: dict[str, Any], _uploads: dict[str, bytes]) -> bool:
        return True

    def _m_sendChatAction(self, _params: dict[str, Any], _uploads: dict[str, bytes]) -> bool:
        return True

    def _new_message(self, chat_id: int, extra: dict[str, Any]) -> dict[str, Any]:
        message = {
            "message_id": next(self._message_ids),
            "date": int(time.time()),
            "chat": _chat(chat_id, self.chat_types.get(chat_id, "private")),
            "from": BOT_USER,
            **extra,
        }
        self.sent.setdefault(chat_id, []).append(message)
        return message

    def _m_sendMessage(self, params: dict[str, Any], _uploads: dict[str, bytes]) -> Response | dict[str, Any]:
        text = str(params.get("text", ""))
        if params.get("parse_mode"):
            try:
                if self.refuse_markup:
                    raise EntityError("Unsupported start tag at byte offset 0")
                text = parse_html(text) if params["parse_mode"] == "HTML" else text
            except EntityError as exc:
                description = f"Bad Request: can't parse entities: {exc}"
                return JSONResponse({"ok": False, "error_code": 400, "description": description}, status_code=400)
        if not text or len(text) > 4096:
            return JSONResponse(
                {"ok": False, "error_code": 400, "description": "Bad Request: message is too long or empty"},
                status_code=400,
            )
        extra: dict[str, Any] = {"text": text}
        if params.get("reply_markup"):
            markup = params["reply_markup"]
            extra["reply_markup"] = json.loads(markup) if isinstance(markup, str) else markup
        return self._new_message(int(params["chat_id"]), extra)

    def _m_answerCallbackQuery(self, _params: dict[str, Any], _uploads: dict[str, bytes]) -> bool:
        return True

    def _m_editMessageText(self, params: dict[str, Any], _uploads: dict[str, bytes]) -> dict[str, Any]:
        chat_id, message_id = int(params["chat_id"]), int(params["message_id"])  # called with the lock held
        message = next(m for m in self.sent.get(chat_id, []) if m["message_id"] == message_id)
        message["text"] = str(params.get("text", ""))
        message.pop("reply_markup", None)
        return message

    def _send_file(self, params: dict[str, Any], uploads: dict[str, bytes], field: str) -> dict[str, Any]:
        data = uploads.get(field, b"")
        file_id = self._store_file(field, data)
        extra: dict[str, Any] = {}
        if params.get("caption"):
            extra["caption"] = params["caption"]
        if field == "photo":
            extra["photo"] = [{"file_id": file_id, "file_unique_id": f"u{file_id}", "width": 1, "height": 1}]
        else:
            extra["document"] = {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_size": len(data)}
        return self._new_message(int(params["chat_id"]), extra)

    def _m_sendDocument(self, params: dict[str, Any], uploads: dict[str, bytes]) -> dict[str, Any]:
        return self._send_file(params, uploads, "document")

    def _m_sendPhoto(self, params: dict[str, Any], uploads: dict[str, bytes]) -> dict[str, Any]:
        return self._send_file(params, uploads, "photo")

    def _m_getFile(self, params: dict[str, Any], _uploads: dict[str, bytes]) -> Response | dict[str, Any]:
        file_id = str(params.get("file_id"))
        if file_id not in self.files:
            return JSONResponse({"ok": False, "error_code": 400, "description": "Bad Request: invalid file_id"}, 400)
        path, data = self.files[file_id]
        return {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_size": len(data), "file_path": path}

    def _m_deleteMessage(self, params: dict[str, Any], _uploads: dict[str, bytes]) -> bool:
        self.deleted.append((int(params["chat_id"]), int(params["message_id"])))
        return True

    def _m_deleteMessages(self, params: dict[str, Any], _uploads: dict[str, bytes]) -> bool:
        ids = params["message_ids"]
        ids = json.loads(ids) if isinstance(ids, str) else ids
        self.deleted.extend((int(params["chat_id"]), int(i)) for i in ids)
        return True

    def _m_getChat(self, params: dict[str, Any], _uploads: dict[str, bytes]) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        return {
            **_chat(chat_id, self.chat_types.get(chat_id, "private")),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }
