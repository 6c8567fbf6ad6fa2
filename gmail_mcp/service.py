"""The Gmail and Calendar operations, one method per tool, over `GoogleApi`.

Google's errors arrive as `GoogleError` and the pure modules' as `EventError`/`UnknownLabels`; each becomes a
`ToolFailure` here, so the tools stay thin.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from gmail_mcp.api import GoogleApi, GoogleError, NotFound, segment
from gmail_mcp.calendar import EventError, Reminder, compact_event, event_body, free_slots, parse_time
from gmail_mcp.labels import UnknownLabels, resolve_labels
from gmail_mcp.mime import (
    REPLY_HEADERS,
    SUMMARY_HEADERS,
    build_message,
    compact_message,
    encode_raw,
    header_map,
    reply_fields,
)
from gmail_mcp.polling import Poller
from shared.mcp_tools import InvalidArguments, ToolFailure

GMAIL = "/gmail/v1/users/me"
CALENDAR = "/calendar/v3"


def _failure(exc: Exception) -> ToolFailure:
    if isinstance(exc, EventError | UnknownLabels):
        return InvalidArguments(str(exc.args[0]) if exc.args else str(exc))
    return ToolFailure(str(exc))


def _events(calendar_id: str, *rest: str) -> str:
    """The Calendar API path of a calendar's events, or of one event (`rest`: its id, or `quickAdd`)."""
    return "/".join([f"{CALENDAR}/calendars/{segment(calendar_id)}/events", *(segment(part) for part in rest)])


def _event_body(**fields: Any) -> dict[str, Any]:
    try:
        return event_body(**fields)
    except EventError as exc:
        raise _failure(exc) from None


class Gmail:
    """All 30 operations; `poller` keeps the new-mail queue, polled by a loop when `poll_in_background` (that is
    GMAIL_POLLING_ENABLED), else by each get_new_emails call."""

    def __init__(self, api: GoogleApi, poller: Poller | None = None, *, poll_in_background: bool = False) -> None:
        self.api = api
        self.poller = poller
        self.poll_in_background = poll_in_background
        self._labels: list[dict[str, Any]] | None = None

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            return await self.api.request(method, path, **kwargs)
        except GoogleError as exc:
            raise _failure(exc) from None

    # --- mail ---------------------------------------------------------------------------------------------

    async def message_summary(self, message_id: str) -> dict[str, Any]:
        params = [("format", "metadata"), *(("metadataHeaders", name) for name in SUMMARY_HEADERS)]
        message = await self._call("GET", f"{GMAIL}/messages/{segment(message_id)}", params=params)
        return compact_message(message)

    async def list_message_ids(
        self, query: str | None, max_results: int, label_ids: Sequence[str] | None, page_token: str | None
    ) -> dict[str, Any]:
        params: list[tuple[str, Any]] = [("maxResults", max_results)]
        if query:
            params.append(("q", query))
        if page_token:
            params.append(("pageToken", page_token))
        if label_ids:
            params.extend(("labelIds", label_id) for label_id in await self.resolve(label_ids))
        return await self._call("GET", f"{GMAIL}/messages", params=params) or {}

    async def list_emails(
        self, query: str | None, max_results: int, label_ids: Sequence[str] | None, page_token: str | None
    ) -> dict[str, Any]:
        listing = await self.list_message_ids(query, max_results, label_ids, page_token)
        emails = [await self.message_summary(item["id"]) for item in listing.get("messages") or []]
        return {
            "emails": emails,
            "count": len(emails),
            "next_page_token": listing.get("nextPageToken"),
            "result_size_estimate": listing.get("resultSizeEstimate"),
        }

    async def get_email(self, message_id: str) -> dict[str, Any]:
        message = await self._call("GET", f"{GMAIL}/messages/{segment(message_id)}", params={"format": "full"})
        return compact_message(message, include_body=True)

    async def _send_raw(self, raw: str, thread_id: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"raw": raw}
        if thread_id:
            body["threadId"] = thread_id
        sent = await self._call("POST", f"{GMAIL}/messages/send", json=body)
        return {"id": sent.get("id"), "threadId": sent.get("threadId"), "labels": sent.get("labelIds", [])}

    async def send_email(
        self, to: str, subject: str, body: str, cc: str | None, bcc: str | None, is_html: bool
    ) -> dict[str, Any]:
        message = build_message(to=to, subject=subject, body=body, cc=cc, bcc=bcc, is_html=is_html)
        return await self._send_raw(encode_raw(message))

    async def _reply_message(self, message_id: str, body: str, is_html: bool) -> tuple[str, str | None]:
        params = [("format", "metadata"), *(("metadataHeaders", name) for name in REPLY_HEADERS)]
        original = await self._call("GET", f"{GMAIL}/messages/{segment(message_id)}", params=params)
        fields = reply_fields(header_map(original.get("payload")))
        if not fields["to"]:
            raise ToolFailure(f"Message {message_id} has no From or Reply-To address to reply to.")
        message = build_message(
            to=str(fields["to"]),
            subject=str(fields["subject"]),
            body=body,
            is_html=is_html,
            in_reply_to=fields["in_reply_to"],
            references=fields["references"],
        )
        return encode_raw(message), original.get("threadId")

    async def reply_email(self, message_id: str, body: str, is_html: bool) -> dict[str, Any]:
        raw, thread_id = await self._reply_message(message_id, body, is_html)
        return await self._send_raw(raw, thread_id)

    async def delete_email(self, message_id: str) -> dict[str, Any]:
        trashed = await self._call("POST", f"{GMAIL}/messages/{segment(message_id)}/trash")
        return {"id": message_id, "trashed": True, "labels": (trashed or {}).get("labelIds", [])}

    async def _modify(self, message_id: str, add: list[str], remove: list[str]) -> dict[str, Any]:
        body = {"addLabelIds": add, "removeLabelIds": remove}
        modified = await self._call("POST", f"{GMAIL}/messages/{segment(message_id)}/modify", json=body)
        return {"id": message_id, "labels": (modified or {}).get("labelIds", [])}

    async def mark_read(self, message_id: str, read: bool) -> dict[str, Any]:
        result = await self._modify(message_id, [] if read else ["UNREAD"], ["UNREAD"] if read else [])
        return {**result, "read": read}

    async def modify_labels(
        self, message_id: str, add: Sequence[str] | None, remove: Sequence[str] | None
    ) -> dict[str, Any]:
        if not add and not remove:
            raise InvalidArguments("Give add_label_ids or remove_label_ids (label names or ids).")
        return await self._modify(message_id, await self.resolve(add or []), await self.resolve(remove or []))

    async def get_new_emails(self, clear: bool) -> dict[str, Any]:
        if self.poller is None:
            raise ToolFailure("The new-mail queue is not set up; the Gmail MCP log says why.")
        if not self.poll_in_background:
            # Without the poll loop, each call polls first: "new" is what arrived since the previous call.
            await self.poller.poll_once()
        emails = self.poller.take(clear)
        return {"emails": emails, "count": len(emails), "cleared": clear, "last_error": self.poller.last_error}

    # --- labels -------------------------------------------------------------------------------------------

    async def labels(self, *, refresh: bool = False) -> list[dict[str, Any]]:
        if self._labels is None or refresh:
            listing = await self._call("GET", f"{GMAIL}/labels") or {}
            self._labels = list(listing.get("labels") or [])
        return self._labels

    async def resolve(self, wanted: Sequence[str]) -> list[str]:
        """Label ids for names or ids; the cached list is refreshed once when a name is not in it."""
        if not wanted:
            return []
        try:
            return resolve_labels(wanted, await self.labels())
        except UnknownLabels:
            try:
                return resolve_labels(wanted, await self.labels(refresh=True))
            except UnknownLabels as exc:
                raise _failure(exc) from None

    async def list_labels(self) -> dict[str, Any]:
        labels = await self.labels(refresh=True)
        return {
            "labels": [{"id": item["id"], "name": item.get("name"), "type": item.get("type")} for item in labels],
            "count": len(labels),
        }

    async def create_label(self, name: str) -> dict[str, Any]:
        body = {"name": name, "labelListVisibility": "labelShow", "messageListVisibility": "show"}
        label = await self._call("POST", f"{GMAIL}/labels", json=body)
        self._labels = None
        return {"id": label.get("id"), "name": label.get("name"), "type": label.get("type")}

    async def delete_label(self, label_id: str) -> dict[str, Any]:
        (resolved,) = await self.resolve([label_id])
        await self._call("DELETE", f"{GMAIL}/labels/{segment(resolved)}")
        self._labels = None
        return {"id": resolved, "deleted": True}

    # --- drafts -------------------------------------------------------------------------------------------

    async def list_drafts(self, max_results: int) -> dict[str, Any]:
        listing = await self._call("GET", f"{GMAIL}/drafts", params={"maxResults": max_results}) or {}
        drafts = []
        for item in listing.get("drafts") or []:
            message = await self.message_summary(item["message"]["id"])
            drafts.append({"draft_id": item["id"], **message})
        return {"drafts": drafts, "count": len(drafts)}

    @staticmethod
    def _draft_raw(to: str, subject: str, body: str, cc: str | None, bcc: str | None, is_html: bool) -> str:
        return encode_raw(build_message(to=to, subject=subject, body=body, cc=cc, bcc=bcc, is_html=is_html))

    @staticmethod
    def _draft_result(draft: dict[str, Any]) -> dict[str, Any]:
        message = draft.get("message") or {}
        return {"draft_id": draft.get("id"), "message_id": message.get("id"), "threadId": message.get("threadId")}

    async def create_draft(
        self, to: str, subject: str, body: str, cc: str | None, bcc: str | None, is_html: bool
    ) -> dict[str, Any]:
        raw = self._draft_raw(to, subject, body, cc, bcc, is_html)
        return self._draft_result(await self._call("POST", f"{GMAIL}/drafts", json={"message": {"raw": raw}}))

    async def update_draft(
        self, draft_id: str, to: str, subject: str, body: str, cc: str | None, bcc: str | None, is_html: bool
    ) -> dict[str, Any]:
        raw = self._draft_raw(to, subject, body, cc, bcc, is_html)
        payload = {"id": draft_id, "message": {"raw": raw}}
        return self._draft_result(await self._call("PUT", f"{GMAIL}/drafts/{segment(draft_id)}", json=payload))

    async def send_draft(self, draft_id: str) -> dict[str, Any]:
        sent = await self._call("POST", f"{GMAIL}/drafts/send", json={"id": draft_id})
        return {"draft_id": draft_id, "id": sent.get("id"), "threadId": sent.get("threadId"), "sent": True}

    async def delete_draft(self, draft_id: str) -> dict[str, Any]:
        await self._call("DELETE", f"{GMAIL}/drafts/{segment(draft_id)}")
        return {"draft_id": draft_id, "deleted": True}

    # --- attachments --------------------------------------------------------------------------------------

    async def list_attachments(self, message_id: str) -> dict[str, Any]:
        email = await self.get_email(message_id)
        return {"message_id": message_id, "attachments": email["attachments"], "count": len(email["attachments"])}

    async def get_attachment(self, message_id: str, attachment_id: str) -> dict[str, Any]:
        path = f"{GMAIL}/messages/{segment(message_id)}/attachments/{segment(attachment_id)}"
        attachment = await self._call("GET", path)
        data = str(attachment.get("data", ""))
        # Gmail sends base64url; callers (and the Filer) expect standard base64.
        raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
        return {
            "message_id": message_id,
            "attachment_id": attachment_id,
            "size": attachment.get("size", len(raw)),
            "data_base64": base64.b64encode(raw).decode("ascii"),
        }

    # --- calendar -----------------------------------------------------------------------------------------

    async def list_calendars(self) -> dict[str, Any]:
        listing = await self._call("GET", f"{CALENDAR}/users/me/calendarList") or {}
        calendars = [
            {
                "id": item.get("id"),
                "summary": item.get("summaryOverride") or item.get("summary"),
                "primary": bool(item.get("primary")),
                "access_role": item.get("accessRole"),
                "time_zone": item.get("timeZone"),
            }
            for item in listing.get("items") or []
        ]
        return {"calendars": calendars, "count": len(calendars)}

    async def list_events(
        self,
        calendar_id: str,
        time_min: str | None,
        time_max: str | None,
        query: str | None,
        max_results: int,
        page_token: str | None,
    ) -> dict[str, Any]:
        params = {
            "timeMin": time_min,
            "timeMax": time_max,
            "q": query,
            "maxResults": max_results,
            "pageToken": page_token,
            "singleEvents": "true",
            "orderBy": "startTime",
        }
        for name in ("timeMin", "timeMax"):
            if params[name]:
                try:
                    parse_time(str(params[name]))
                except EventError as exc:
                    raise InvalidArguments(f"{'time_min' if name == 'timeMin' else 'time_max'}: {exc}") from None
        listing = await self._call("GET", _events(calendar_id), params=params) or {}
        events = [compact_event(item) for item in listing.get("items") or []]
        return {"events": events, "count": len(events), "next_page_token": listing.get("nextPageToken")}

    async def get_event(self, event_id: str, calendar_id: str) -> dict[str, Any]:
        return compact_event(await self._call("GET", _events(calendar_id, event_id)), full=True)

    async def create_event(
        self, calendar_id: str, reminders: Sequence[Reminder] | None, **fields: Any
    ) -> dict[str, Any]:
        body = _event_body(reminders=reminders, **fields)
        return compact_event(await self._call("POST", _events(calendar_id), json=body), full=True)

    async def update_event(
        self, event_id: str, calendar_id: str, response_status: str | None, **fields: Any
    ) -> dict[str, Any]:
        body = _event_body(partial=True, **fields)
        path = _events(calendar_id, event_id)
        if response_status is not None:
            current = await self._call("GET", path)
            attendees = body.get("attendees") or current.get("attendees") or []
            if not any(attendee.get("self") for attendee in attendees):
                raise ToolFailure("You are not among this event's attendees, so there is no invitation to answer.")
            body["attendees"] = [
                {**attendee, "responseStatus": response_status} if attendee.get("self") else attendee
                for attendee in attendees
            ]
        if not body:
            raise InvalidArguments("Nothing to change: give at least one field or response_status.")
        return compact_event(await self._call("PATCH", path, json=body), full=True)

    async def delete_event(self, event_id: str, calendar_id: str) -> dict[str, Any]:
        await self._call("DELETE", _events(calendar_id, event_id))
        return {"id": event_id, "calendar_id": calendar_id, "deleted": True}

    async def quick_add_event(self, text: str, calendar_id: str) -> dict[str, Any]:
        answer = await self._call("POST", _events(calendar_id, "quickAdd"), params={"text": text})
        return compact_event(answer, full=True)

    async def find_free_time(
        self, time_min: str, time_max: str, calendar_ids: Sequence[str] | None, min_minutes: int
    ) -> dict[str, Any]:
        try:
            start, end = parse_time(time_min), parse_time(time_max)
        except EventError as exc:
            raise _failure(exc) from None
        if end <= start:
            raise InvalidArguments("time_max must be after time_min.")
        ids = list(calendar_ids or ["primary"])
        body = {"timeMin": start.isoformat(), "timeMax": end.isoformat(), "items": [{"id": cid} for cid in ids]}
        answer = await self._call("POST", f"{CALENDAR}/freeBusy", json=body) or {}
        # Only times, the calendars asked for and Google's one-word reasons leave here: no text anyone else wrote,
        # so the result is trusted (the manifest does not list this tool) and a turn that checks free time
        # stays clean.
        busy: list[tuple[datetime, datetime]] = []
        problems: dict[str, list[str]] = {}
        for cid, info in (answer.get("calendars") or {}).items():
            if cid not in ids:
                continue
            if info.get("errors"):
                problems[cid] = [_reason(error.get("reason")) for error in info["errors"]]
            busy.extend((parse_time(b["start"]), parse_time(b["end"])) for b in info.get("busy") or [])
        slots = free_slots(busy, start, end, min_minutes)
        return {
            "free": [
                {"start": a.isoformat(), "end": b.isoformat(), "minutes": int((b - a).total_seconds() // 60)}
                for a, b in slots
            ],
            "busy": [{"start": a.isoformat(), "end": b.isoformat()} for a, b in sorted(busy)],
            "calendar_errors": problems or None,
        }

    # --- filters ------------------------------------------------------------------------------------------

    async def list_filters(self) -> dict[str, Any]:
        listing = await self._call("GET", f"{GMAIL}/settings/filters") or {}
        filters = list(listing.get("filter") or [])
        return {"filters": filters, "count": len(filters)}

    async def get_filter(self, filter_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._call("GET", f"{GMAIL}/settings/filters/{segment(filter_id)}")
        return result

    async def create_filter(self, criteria: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
        if not criteria:
            raise InvalidArguments("criteria needs at least one of from, to, subject, query, has_attachment, size.")
        if not action:
            raise InvalidArguments("action needs at least one of add_label_ids, remove_label_ids, forward.")
        for key in ("addLabelIds", "removeLabelIds"):
            if action.get(key):
                action[key] = await self.resolve(action[key])
        result: dict[str, Any] = await self._call(
            "POST", f"{GMAIL}/settings/filters", json={"criteria": criteria, "action": action}
        )
        return result

    async def delete_filter(self, filter_id: str) -> dict[str, Any]:
        await self._call("DELETE", f"{GMAIL}/settings/filters/{segment(filter_id)}")
        return {"id": filter_id, "deleted": True}


_REASON = re.compile(r"[A-Za-z]{1,40}")


def _reason(reason: Any) -> str:
    """Google's reason code for a calendar's error ("notFound"); anything that is not one word becomes "error"."""
    return reason if isinstance(reason, str) and _REASON.fullmatch(reason) else "error"


__all__ = ["Gmail", "NotFound"]
