"""A fake Google on 127.0.0.1: the Gmail and Calendar REST APIs the Gmail MCP uses, and an OAuth token endpoint.

It speaks the real paths (`/gmail/v1/users/me/...`, `/calendar/v3/...`, `POST /token`), checks the
`Authorization: Bearer` header on every API call, and keeps a small mailbox and calendar in memory so tools
round-trip: a sent message is parsed from its base64url `raw` MIME and can be read back, a draft sent becomes a
message, labels and filters are created and deleted, freeBusy answers from the stored events.

    with FakeGoogle() as google:
        google.add_message(sender="ann@example.com", subject="Hi", body="Hello")   # seeded mail
        google.expire_token()              # the next API call gets one 401, until the client refreshes
        ... point GOOGLE_API_BASE at google.url, and the credentials file's token_uri at google.token_uri
        assert google.requests[-1].path == "/gmail/v1/users/me/messages/send"
"""

from __future__ import annotations

import base64
import email
import itertools
import json
import threading
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from email.policy import default as default_policy
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.loopback import LoopbackServer

GMAIL = "/gmail/v1/users/me"
CAL = "/calendar/v3"
SYSTEM_LABELS = ("INBOX", "SENT", "DRAFT", "TRASH", "UNREAD", "STARRED", "IMPORTANT", "SPAM")
CLIENT_ID = "client-123.apps.googleusercontent.com"
CLIENT_SECRET = "secret-456"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, str]:
        return {key: values[0] for key, values in parse_qs(self.body.decode()).items()}


@dataclass
class StoredMessage:
    id: str
    thread_id: str
    mime: Message
    label_ids: list[str]
    internal_date: int
    attachments: dict[str, bytes] = field(default_factory=dict)


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": status, "message": message, "status": "ERROR"}}, status_code=status)


class FakeGoogle(LoopbackServer):
    name = "fake-google"

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.RLock()
        self.requests: list[Recorded] = []
        self.ids = itertools.count(1)
        self.access_token = "access-1"
        self.refresh_token = "refresh-1"
        self.refreshes = 0
        self.expired = False
        self.refusal: str | None = None  # set to make refresh fail with this OAuth error
        self.messages: dict[str, StoredMessage] = {}
        self.drafts: dict[str, str] = {}  # draft id -> message id
        self.labels: dict[str, dict[str, Any]] = {
            name: {"id": name, "name": name, "type": "system"} for name in SYSTEM_LABELS
        }
        self.filters: dict[str, dict[str, Any]] = {}
        self.calendars: dict[str, dict[str, Any]] = {
            "primary": {"id": "owner@example.com", "summary": "Owner", "primary": True, "accessRole": "owner"},
        }
        self.events: dict[str, dict[str, dict[str, Any]]] = {"primary": {}}
        self.app = Starlette(
            routes=[
                Route("/token", self.token, methods=["POST"]),
                Route("/{path:path}", self.api, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
            ]
        )

    # --- test helpers -----------------------------------------------------------------------------------

    @property
    def token_uri(self) -> str:
        return f"{self.url}/token"

    def client_file(self) -> dict[str, Any]:
        return {
            "installed": {
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "auth_uri": f"{self.url}/o/oauth2/auth",
                "token_uri": self.token_uri,
                "redirect_uris": ["http://localhost"],
            }
        }

    def expire_token(self) -> None:
        """The current access token stops working: the next API call answers 401 until a refresh."""
        self.expired = True

    def api_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path != "/token"]

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{next(self.ids)}"

    def add_message(
        self,
        *,
        sender: str = "ann@example.com",
        to: str = "owner@example.com",
        subject: str = "Hello",
        body: str = "Hi there",
        html: str | None = None,
        labels: tuple[str, ...] = ("INBOX", "UNREAD"),
        attachment: tuple[str, bytes] | None = None,
        message_id: str | None = None,
        thread_id: str | None = None,
    ) -> str:
        mime = EmailMessage()
        mime["From"] = sender
        mime["To"] = to
        mime["Subject"] = subject
        mime["Date"] = "Mon, 04 May 2026 09:00:00 +0000"
        mime["Message-ID"] = message_id or f"<m{next(self.ids)}@example.com>"
        mime.set_content(body)
        if html is not None:
            mime.add_alternative(html, subtype="html")
        if attachment is not None:
            mime.add_attachment(attachment[1], maintype="application", subtype="octet-stream", filename=attachment[0])
        return self.store(mime, list(labels), thread_id)

    def store(self, mime: Message, labels: list[str], thread_id: str | None = None) -> str:
        with self.lock:
            mid = self.next_id("msg")
            self.messages[mid] = StoredMessage(
                mid, thread_id or f"thr-{mid}", mime, labels, 1777885200000 + len(self.messages)
            )
        return mid

    def add_event(self, calendar: str = "primary", **event: Any) -> str:
        eid = self.next_id("evt")
        self.events.setdefault(calendar, {})[eid] = {"id": eid, "status": "confirmed", **event}
        return eid

    # --- the token endpoint --------------------------------------------------------------------------------

    async def token(self, request: Request) -> Response:
        body = await request.body()
        self.record(request, body)
        form = {key: values[0] for key, values in parse_qs(body.decode()).items()}
        if form.get("client_id") != CLIENT_ID or form.get("client_secret") != CLIENT_SECRET:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        grant = form.get("grant_type")
        if grant == "refresh_token":
            if self.refusal or form.get("refresh_token") != self.refresh_token:
                return JSONResponse(
                    {
                        "error": self.refusal or "invalid_grant",
                        "error_description": "Token has been expired or revoked.",
                    },
                    status_code=400,
                )
            self.refreshes += 1
            self.access_token = f"access-{self.refreshes + 1}"
            self.expired = False
            return JSONResponse({"access_token": self.access_token, "expires_in": 3599, "token_type": "Bearer"})
        if grant == "authorization_code":
            if form.get("code") != "good-code" or not form.get("code_verifier") or not form.get("redirect_uri"):
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
            return JSONResponse(
                {
                    "access_token": self.access_token,
                    "refresh_token": self.refresh_token,
                    "expires_in": 3599,
                    "token_type": "Bearer",
                    "scope": "https://www.googleapis.com/auth/gmail.modify",
                }
            )
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)

    # --- the APIs -----------------------------------------------------------------------------------------

    def record(self, request: Request, body: bytes) -> None:
        query: dict[str, list[str]] = {}
        for key, value in request.query_params.multi_items():
            query.setdefault(key, []).append(value)
        self.requests.append(
            Recorded(request.method, request.url.path, query, {k.lower(): v for k, v in request.headers.items()}, body)
        )

    async def api(self, request: Request) -> Response:
        body = await request.body()
        self.record(request, body)
        if request.headers.get("authorization") != f"Bearer {self.access_token}" or self.expired:
            return error(401, "Request had invalid authentication credentials.")
        path = "/" + request.path_params["path"]
        method = request.method
        query = request.query_params
        data = json.loads(body) if body else None
        with self.lock:
            return self.route(method, path, query, data)

    def route(self, method: str, path: str, query: Any, data: Any) -> Response:
        parts = path.strip("/").split("/")
        if path.startswith(GMAIL + "/"):
            rest = parts[4:]
            handler = {
                "messages": self.gmail_messages,
                "drafts": self.gmail_drafts,
                "labels": self.gmail_labels,
                "settings": self.gmail_filters,
            }.get(rest[0])
            if handler is None:
                return error(404, "Unknown Gmail path.")
            return handler(method, rest[1:], query, data)
        if path.startswith(CAL + "/"):
            return self.calendar(method, parts[2:], query, data)
        return error(404, f"Unknown path {path}")

    # mail

    def resource(self, stored: StoredMessage, fmt: str, headers: list[str]) -> dict[str, Any]:
        payload = self.payload(stored, stored.mime, headers if fmt == "metadata" else None, with_body=fmt != "metadata")
        text = ""
        for part in stored.mime.walk():
            if part.get_content_type() == "text/plain" and not part.get_filename():
                text = part.get_content()
                break
        return {
            "id": stored.id,
            "threadId": stored.thread_id,
            "labelIds": stored.label_ids,
            "snippet": text.strip()[:100],
            "internalDate": str(stored.internal_date),
            "payload": payload,
        }

    def payload(self, stored: StoredMessage, part: Message, only: list[str] | None, with_body: bool) -> dict[str, Any]:
        headers = [{"name": k, "value": str(v)} for k, v in part.items()]
        if only is not None:
            wanted = {name.lower() for name in only}
            headers = [h for h in headers if h["name"].lower() in wanted]
        out: dict[str, Any] = {
            "mimeType": part.get_content_type(),
            "filename": part.get_filename() or "",
            "headers": headers,
            "body": {"size": 0},
        }
        if part.is_multipart():
            if with_body:
                out["parts"] = [self.payload(stored, sub, [], True) for sub in part.iter_parts()]  # type: ignore[attr-defined]
            return out
        raw = part.get_payload(decode=True) or b""
        if part.get_filename():
            aid = f"att-{stored.id}-{len(stored.attachments) + 1}"
            for known, content in stored.attachments.items():
                if content == raw:
                    aid = known
            stored.attachments[aid] = raw
            out["body"] = {"size": len(raw), "attachmentId": aid}
        elif with_body:
            out["body"] = {"size": len(raw), "data": b64url(raw)}
        return out

    def matches(self, stored: StoredMessage, q: str | None, label_ids: list[str]) -> bool:
        if any(label not in stored.label_ids for label in label_ids):
            return False
        if "TRASH" in stored.label_ids and "TRASH" not in label_ids:
            return False
        for term in (q or "").split():
            if term == "is:unread":
                if "UNREAD" not in stored.label_ids:
                    return False
            elif term.startswith("from:"):
                if term[5:].lower() not in str(stored.mime["From"]).lower():
                    return False
            elif term.lower() not in (str(stored.mime["Subject"]) + " " + str(stored.mime.get_body())).lower():
                return False
        return True

    def parse_raw(self, raw: str) -> Message:
        return email.message_from_bytes(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)), policy=default_policy)

    def gmail_messages(self, method: str, rest: list[str], query: Any, data: Any) -> Response:
        if method == "GET" and not rest:
            label_ids = query.getlist("labelIds")
            found = [m for m in reversed(self.messages.values()) if self.matches(m, query.get("q"), label_ids)]
            size_text, token = query.get("maxResults", "100"), query.get("pageToken", "0")
            if not (size_text.isdigit() and token.isdigit()):
                # Gmail answers a page token it did not hand out (a model passed a thread id as one) with a 400.
                return error(400, "Invalid pageToken" if not token.isdigit() else "Invalid maxResults")
            size, start = int(size_text), int(token)
            page = found[start : start + size]
            out: dict[str, Any] = {
                "messages": [{"id": m.id, "threadId": m.thread_id} for m in page],
                "resultSizeEstimate": len(found),
            }
            if start + size < len(found):
                out["nextPageToken"] = str(start + size)
            if not page:
                del out["messages"]
            return JSONResponse(out)
        if method == "POST" and rest == ["send"]:
            if not isinstance(data, dict) or not data.get("raw"):
                return error(400, "raw is required")
            mime = self.parse_raw(data["raw"])
            if not mime["To"]:
                return error(400, "Invalid To header")
            mid = self.store(mime, ["SENT"], data.get("threadId"))
            return JSONResponse({"id": mid, "threadId": self.messages[mid].thread_id, "labelIds": ["SENT"]})
        if not rest or rest[0] not in self.messages:
            return error(404, "Requested entity was not found.")
        stored = self.messages[rest[0]]
        if method == "GET" and len(rest) == 1:
            fmt = query.get("format", "full")
            return JSONResponse(self.resource(stored, fmt, query.getlist("metadataHeaders")))
        if method == "POST" and rest[1:] == ["trash"]:
            stored.label_ids = [label for label in stored.label_ids if label != "INBOX"] + ["TRASH"]
            return JSONResponse({"id": stored.id, "threadId": stored.thread_id, "labelIds": stored.label_ids})
        if method == "POST" and rest[1:] == ["modify"]:
            for label in data.get("addLabelIds") or []:
                if label not in self.labels:
                    return error(400, f"Invalid label: {label}")
                if label not in stored.label_ids:
                    stored.label_ids.append(label)
            remove = set(data.get("removeLabelIds") or [])
            stored.label_ids = [label for label in stored.label_ids if label not in remove]
            return JSONResponse({"id": stored.id, "threadId": stored.thread_id, "labelIds": stored.label_ids})
        if method == "GET" and len(rest) == 3 and rest[1] == "attachments":
            self.resource(stored, "full", [])  # assigns the attachment ids
            content = stored.attachments.get(rest[2])
            if content is None:
                return error(404, "Attachment not found.")
            return JSONResponse({"size": len(content), "data": b64url(content)})
        return error(404, "Unknown message path.")

    def gmail_drafts(self, method: str, rest: list[str], query: Any, data: Any) -> Response:
        def draft_json(did: str) -> dict[str, Any]:
            stored = self.messages[self.drafts[did]]
            return {"id": did, "message": {"id": stored.id, "threadId": stored.thread_id, "labelIds": stored.label_ids}}

        if method == "GET" and not rest:
            return JSONResponse({"drafts": [draft_json(did) for did in self.drafts]})
        if method == "POST" and not rest:
            did = self.next_id("draft")
            self.drafts[did] = self.store(self.parse_raw(data["message"]["raw"]), ["DRAFT"])
            return JSONResponse(draft_json(did))
        if method == "POST" and rest == ["send"]:
            did = data.get("id")
            if did not in self.drafts:
                return error(404, "Requested entity was not found.")
            stored = self.messages[self.drafts.pop(did)]
            stored.label_ids = ["SENT"]
            return JSONResponse({"id": stored.id, "threadId": stored.thread_id, "labelIds": stored.label_ids})
        if not rest or rest[0] not in self.drafts:
            return error(404, "Requested entity was not found.")
        did = rest[0]
        if method == "PUT":
            self.messages[self.drafts[did]].mime = self.parse_raw(data["message"]["raw"])
            return JSONResponse(draft_json(did))
        if method == "DELETE":
            del self.messages[self.drafts.pop(did)]
            return Response(status_code=204)
        return error(404, "Unknown draft path.")

    def gmail_labels(self, method: str, rest: list[str], query: Any, data: Any) -> Response:
        if method == "GET" and not rest:
            return JSONResponse({"labels": list(self.labels.values())})
        if method == "POST" and not rest:
            if any(label["name"].lower() == data["name"].lower() for label in self.labels.values()):
                return error(409, "Label name exists or conflicts")
            lid = self.next_id("Label_")
            self.labels[lid] = {"id": lid, "name": data["name"], "type": "user"}
            return JSONResponse(self.labels[lid])
        if method == "DELETE" and rest and rest[0] in self.labels:
            if self.labels[rest[0]]["type"] == "system":
                return error(400, "Invalid delete request")
            del self.labels[rest[0]]
            return Response(status_code=204)
        return error(404, "Requested entity was not found.")

    def gmail_filters(self, method: str, rest: list[str], query: Any, data: Any) -> Response:
        if rest[:1] != ["filters"]:
            return error(404, "Unknown settings path.")
        if method == "GET" and len(rest) == 1:
            return JSONResponse({"filter": list(self.filters.values())} if self.filters else {})
        if method == "POST" and len(rest) == 1:
            fid = self.next_id("filter")
            self.filters[fid] = {"id": fid, "criteria": data["criteria"], "action": data["action"]}
            return JSONResponse(self.filters[fid])
        if len(rest) == 2 and rest[1] in self.filters:
            if method == "GET":
                return JSONResponse(self.filters[rest[1]])
            if method == "DELETE":
                del self.filters[rest[1]]
                return Response(status_code=204)
        return error(404, "Filter not found.")

    # calendar

    def calendar(self, method: str, rest: list[str], query: Any, data: Any) -> Response:
        if rest == ["users", "me", "calendarList"] and method == "GET":
            return JSONResponse({"items": list(self.calendars.values())})
        if rest == ["freeBusy"] and method == "POST":
            answer: dict[str, Any] = {}
            for item in data["items"]:
                cid = item["id"]
                if cid not in self.events:
                    answer[cid] = {"errors": [{"domain": "global", "reason": "notFound"}], "busy": []}
                    continue
                busy = [
                    {"start": e["start"]["dateTime"], "end": e["end"]["dateTime"]}
                    for e in self.events[cid].values()
                    if "dateTime" in e.get("start", {})
                    and e["end"]["dateTime"] > data["timeMin"]
                    and e["start"]["dateTime"] < data["timeMax"]
                ]
                answer[cid] = {"busy": busy}
            return JSONResponse({"timeMin": data["timeMin"], "timeMax": data["timeMax"], "calendars": answer})
        if len(rest) < 3 or rest[0] != "calendars" or rest[2] != "events":
            return error(404, "Unknown calendar path.")
        cid = rest[1]
        if cid not in self.events:
            return error(404, "Not Found")
        events = self.events[cid]
        tail = rest[3:]
        if not tail and method == "GET":
            items = sorted(events.values(), key=lambda e: e["start"].get("dateTime") or e["start"].get("date"))
            if query.get("q"):
                items = [e for e in items if query["q"].lower() in e.get("summary", "").lower()]
            return JSONResponse({"items": items[: int(query.get("maxResults", "250"))]})
        if not tail and method == "POST":
            if "summary" not in data or "start" not in data or "end" not in data:
                return error(400, "Missing summary, start or end.")
            eid = self.next_id("evt")
            events[eid] = {"id": eid, "status": "confirmed", "htmlLink": f"https://calendar/{eid}", **data}
            return JSONResponse(events[eid])
        if tail == ["quickAdd"] and method == "POST":
            eid = self.next_id("evt")
            text = query["text"]
            events[eid] = {
                "id": eid,
                "status": "confirmed",
                "summary": text,
                "start": {"dateTime": "2026-05-05T12:30:00Z"},
                "end": {"dateTime": "2026-05-05T13:30:00Z"},
            }
            return JSONResponse(events[eid])
        if len(tail) != 1 or tail[0] not in events:
            return error(404, "Not Found")
        eid = tail[0]
        if method == "GET":
            return JSONResponse(events[eid])
        if method == "PATCH":
            events[eid] = {**events[eid], **data}
            return JSONResponse(events[eid])
        if method == "DELETE":
            del events[eid]
            return Response(status_code=204)
        return error(405, "Method not allowed")
