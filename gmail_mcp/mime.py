"""Pure MIME work: building messages to send (base64url `raw`) and reading Gmail's message resources.

Gmail returns a message as a tree of parts (`payload`), each with `mimeType`, `headers`, `filename` and a
`body` holding base64url `data` or an `attachmentId`. `compact_message` turns that into the few fields a model
needs; the text body is preferred over HTML.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterator, Mapping
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

SUMMARY_HEADERS = ("From", "To", "Cc", "Subject", "Date")
REPLY_HEADERS = ("From", "Reply-To", "To", "Cc", "Subject", "Message-ID", "References")


def build_message(
    *,
    to: str,
    subject: str,
    body: str,
    cc: str | None = None,
    bcc: str | None = None,
    is_html: bool = False,
    in_reply_to: str | None = None,
    references: str | None = None,
) -> EmailMessage:
    """An RFC 5322 message; Gmail fills in From with the account's address."""
    message = EmailMessage()
    message["To"] = to
    if cc:
        message["Cc"] = cc
    if bcc:
        message["Bcc"] = bcc
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message["Message-ID"] = make_msgid(domain="annabelle.local")
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        message["References"] = references or in_reply_to
    if is_html:
        message.set_content(html_to_text(body))
        message.add_alternative(body, subtype="html")
    else:
        message.set_content(body)
    return message


def encode_raw(message: EmailMessage) -> str:
    """The base64url form Gmail's `raw` field takes."""
    return base64.urlsafe_b64encode(message.as_bytes()).decode("ascii")


def decode_b64url(data: str) -> bytes:
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


def reply_subject(subject: str) -> str:
    return subject if re.match(r"^\s*re\s*:", subject, re.IGNORECASE) else f"Re: {subject}".rstrip()


def reply_fields(headers: Mapping[str, str]) -> dict[str, str | None]:
    """To, Subject, In-Reply-To and References of a reply to a message with these headers."""
    message_id = headers.get("message-id")
    earlier = headers.get("references")
    references = " ".join(part for part in (earlier, message_id) if part) or None
    return {
        "to": headers.get("reply-to") or headers.get("from") or "",
        "subject": reply_subject(headers.get("subject", "")),
        "in_reply_to": message_id,
        "references": references,
    }


def header_map(payload: Mapping[str, Any] | None) -> dict[str, str]:
    """The payload's headers by lower-case name (the first of repeated ones)."""
    out: dict[str, str] = {}
    for header in (payload or {}).get("headers") or []:
        name = str(header.get("name", "")).lower()
        if name and name not in out:
            out[name] = str(header.get("value", ""))
    return out


def walk_parts(payload: Mapping[str, Any] | None) -> Iterator[Mapping[str, Any]]:
    if not payload:
        return
    yield payload
    for part in payload.get("parts") or []:
        yield from walk_parts(part)


def _charset(part: Mapping[str, Any]) -> str:
    content_type = header_map(part).get("content-type", "")
    found = re.search(r'charset="?([\w.-]+)"?', content_type, re.IGNORECASE)
    return found.group(1) if found else "utf-8"


def _part_text(part: Mapping[str, Any]) -> str:
    data = (part.get("body") or {}).get("data")
    if not data:
        return ""
    raw = decode_b64url(data)
    try:
        return raw.decode(_charset(part), errors="replace")
    except LookupError:
        return raw.decode("utf-8", errors="replace")


def _is_attachment(part: Mapping[str, Any]) -> bool:
    return bool(part.get("filename")) or "attachmentId" in (part.get("body") or {})


def extract_body(payload: Mapping[str, Any] | None) -> tuple[str, str]:
    """(text, html) bodies of a message, joined over its parts; attachments are left out."""
    texts: list[str] = []
    htmls: list[str] = []
    for part in walk_parts(payload):
        if part.get("parts") or _is_attachment(part):
            continue
        mime_type = str(part.get("mimeType", "")).lower()
        if mime_type == "text/plain":
            texts.append(_part_text(part))
        elif mime_type == "text/html":
            htmls.append(_part_text(part))
    return "\n".join(texts), "\n".join(htmls)


def html_to_text(markup: str) -> str:
    """A readable plain-text rendering of HTML: no scripts or styles, tags dropped, breaks kept."""
    text = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>", "", markup)
    text = re.sub(r"(?i)<br\s*/?>|</(p|div|li|tr|h[1-6])\s*>", "\n", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = html.unescape(text)
    text = re.sub(r"[ \t]+", " ", text)
    return re.sub(r"\n\s*\n+", "\n\n", text).strip()


def list_attachments(payload: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    out = []
    for part in walk_parts(payload):
        body = part.get("body") or {}
        if part.get("filename") and body.get("attachmentId"):
            out.append(
                {
                    "attachment_id": body["attachmentId"],
                    "filename": part["filename"],
                    "mime_type": part.get("mimeType"),
                    "size": body.get("size", 0),
                }
            )
    return out


def compact_message(message: Mapping[str, Any], *, include_body: bool = False) -> dict[str, Any]:
    """The fields a model needs: ids, addresses, subject, date, snippet, labels (+ body and attachments)."""
    payload = message.get("payload") or {}
    headers = header_map(payload)
    labels = list(message.get("labelIds") or [])
    out: dict[str, Any] = {
        "id": message.get("id"),
        "threadId": message.get("threadId"),
        "from": headers.get("from"),
        "to": headers.get("to"),
        "subject": headers.get("subject", ""),
        "date": headers.get("date"),
        "snippet": html.unescape(str(message.get("snippet", ""))),
        "labels": labels,
        "unread": "UNREAD" in labels,
    }
    if headers.get("cc"):
        out["cc"] = headers["cc"]
    if include_body:
        text, markup = extract_body(payload)
        out["body"] = text if text.strip() else html_to_text(markup)
        out["body_format"] = "text" if text.strip() else ("html" if markup else "text")
        out["message_id_header"] = headers.get("message-id")
        out["attachments"] = list_attachments(payload)
    return out
