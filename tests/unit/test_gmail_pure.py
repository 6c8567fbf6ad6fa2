"""Gmail's pure parts: MIME building and reading, label names, event bodies, free time, token expiry, PKCE."""

from __future__ import annotations

import base64
import email
import hashlib
import stat
from datetime import UTC, datetime
from email.policy import default as default_policy
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from gmail_mcp.calendar import EventError, Reminder, compact_event, event_body, free_slots
from gmail_mcp.labels import UnknownLabels, resolve_labels
from gmail_mcp.mime import (
    build_message,
    compact_message,
    decode_b64url,
    encode_raw,
    extract_body,
    html_to_text,
    list_attachments,
    reply_fields,
    reply_subject,
)
from gmail_mcp.oauth import (
    ClientConfig,
    OAuthError,
    Pkce,
    Token,
    authorization_url,
    load_token,
    needs_refresh,
    pkce_challenge,
    save_token,
)


def b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def parse(raw: str) -> email.message.EmailMessage:
    return email.message_from_bytes(decode_b64url(raw), policy=default_policy)  # type: ignore[return-value]


# --- MIME ------------------------------------------------------------------------------------------------


def test_a_plain_message_round_trips_through_base64url_with_its_headers() -> None:
    raw = encode_raw(build_message(to="ann@example.com", subject="Héllo", body="Line 1\nLine 2", cc="bob@example.com"))
    assert "+" not in raw and "/" not in raw
    message = parse(raw)
    assert message["To"] == "ann@example.com"
    assert message["Cc"] == "bob@example.com"
    assert message["Subject"] == "Héllo"
    assert message["Message-ID"] and message["Date"]
    assert message.get_content_type() == "text/plain"
    assert message.get_content().strip() == "Line 1\nLine 2"


def test_an_html_message_carries_a_plain_text_alternative() -> None:
    message = parse(encode_raw(build_message(to="a@x.org", subject="s", body="<p>Hi <b>you</b></p>", is_html=True)))
    assert message.get_content_type() == "multipart/alternative"
    parts = {part.get_content_type(): part.get_content() for part in message.iter_parts()}
    assert parts["text/html"].strip() == "<p>Hi <b>you</b></p>"
    assert parts["text/plain"].strip() == "Hi you"


def test_a_reply_threads_on_the_original_message_id_and_references() -> None:
    fields = reply_fields(
        {
            "from": "Ann <ann@example.com>",
            "reply-to": "list@example.com",
            "subject": "Plans",
            "message-id": "<b@x>",
            "references": "<a@x>",
        }
    )
    assert fields == {
        "to": "list@example.com",
        "subject": "Re: Plans",
        "in_reply_to": "<b@x>",
        "references": "<a@x> <b@x>",
    }
    message = parse(
        encode_raw(
            build_message(to="x@y.z", subject="Re: Plans", body="ok", in_reply_to="<b@x>", references="<a@x> <b@x>")
        )
    )
    assert message["In-Reply-To"] == "<b@x>"
    assert message["References"] == "<a@x> <b@x>"


@pytest.mark.parametrize(
    ("subject", "expected"), [("Hi", "Re: Hi"), ("RE: Hi", "RE: Hi"), ("re:Hi", "re:Hi"), ("", "Re:")]
)
def test_reply_subjects_get_one_re_prefix(subject: str, expected: str) -> None:
    assert reply_subject(subject) == expected


MULTIPART = {
    "id": "m1",
    "threadId": "t1",
    "labelIds": ["INBOX", "UNREAD"],
    "snippet": "Tom &amp; Jerry",
    "payload": {
        "mimeType": "multipart/mixed",
        "headers": [
            {"name": "From", "value": "ann@example.com"},
            {"name": "To", "value": "me@example.com"},
            {"name": "Subject", "value": "Report"},
            {"name": "Date", "value": "Mon, 4 May 2026 09:00:00 +0000"},
        ],
        "parts": [
            {
                "mimeType": "multipart/alternative",
                "parts": [
                    {"mimeType": "text/plain", "body": {"data": b64("plain body")}},
                    {"mimeType": "text/html", "body": {"data": b64("<p>html body</p>")}},
                ],
            },
            {"mimeType": "application/pdf", "filename": "r.pdf", "body": {"attachmentId": "A1", "size": 42}},
        ],
    },
}


def test_a_compact_message_prefers_the_text_body_and_lists_attachments() -> None:
    compact = compact_message(MULTIPART, include_body=True)
    assert compact["from"] == "ann@example.com"
    assert compact["subject"] == "Report"
    assert compact["snippet"] == "Tom & Jerry"
    assert compact["unread"] is True
    assert compact["body"] == "plain body"
    assert compact["body_format"] == "text"
    assert compact["attachments"] == [
        {"attachment_id": "A1", "filename": "r.pdf", "mime_type": "application/pdf", "size": 42}
    ]
    assert "body" not in compact_message(MULTIPART)


def test_an_html_only_message_is_rendered_as_text() -> None:
    payload = {"mimeType": "text/html", "body": {"data": b64("<style>x{}</style><p>Hello&nbsp;there</p><br>bye")}}
    assert extract_body(payload)[0] == ""
    compact = compact_message({"id": "m", "payload": payload}, include_body=True)
    assert compact["body"] == "Hello\xa0there\n\nbye"
    assert compact["body_format"] == "html"
    assert "style" not in compact["body"]


def test_html_to_text_drops_scripts_and_tags() -> None:
    assert html_to_text("<script>alert(1)</script><div>a</div><div>b &amp; c</div>") == "a\nb & c"


def test_attachments_without_an_id_are_not_listed() -> None:
    assert list_attachments({"mimeType": "text/plain", "filename": "", "body": {"data": ""}}) == []


# --- labels ----------------------------------------------------------------------------------------------

LABELS = [
    {"id": "INBOX", "name": "INBOX"},
    {"id": "UNREAD", "name": "UNREAD"},
    {"id": "Label_1", "name": "Work"},
    {"id": "Label_2", "name": "Work/Clients"},
]


def test_labels_resolve_by_id_or_case_insensitive_name_without_duplicates() -> None:
    assert resolve_labels(["work", "Label_2", "inbox", "Work"], LABELS) == ["Label_1", "Label_2", "INBOX"]


def test_unknown_label_names_are_all_reported_with_the_known_ones() -> None:
    with pytest.raises(UnknownLabels) as caught:
        resolve_labels(["Work", "Travel", "Bills"], LABELS)
    assert caught.value.missing == ["Travel", "Bills"]
    assert "Work/Clients" in str(caught.value)


# --- calendar --------------------------------------------------------------------------------------------


def test_a_timed_event_body_has_date_times_and_the_time_zone() -> None:
    body = event_body(
        summary="Call",
        start_date_time="2026-05-04T10:00:00",
        end_date_time="2026-05-04T10:30:00",
        time_zone="Europe/Paris",
        attendees=["ann@example.com", " "],
        reminders=[Reminder("popup", 10)],
    )
    assert body["start"] == {"dateTime": "2026-05-04T10:00:00", "timeZone": "Europe/Paris"}
    assert body["end"] == {"dateTime": "2026-05-04T10:30:00", "timeZone": "Europe/Paris"}
    assert body["attendees"] == [{"email": "ann@example.com"}]
    assert body["reminders"] == {"useDefault": False, "overrides": [{"method": "popup", "minutes": 10}]}


def test_an_all_day_event_without_an_end_lasts_one_day_and_a_timed_one_one_hour() -> None:
    assert event_body(summary="Trip", start_date="2026-05-04")["end"] == {"date": "2026-05-05"}
    assert event_body(summary="x", start_date_time="2026-05-04T10:00:00Z")["end"] == {
        "dateTime": "2026-05-04T11:00:00+00:00"
    }


def test_a_timed_end_equal_to_its_start_is_read_as_no_end() -> None:
    body = event_body(
        summary="Dentist", start_date_time="2026-11-27T15:00:00", end_date_time="2026-11-27T15:00:00", time_zone="UTC"
    )
    assert body["end"] == {"dateTime": "2026-11-27T16:00:00", "timeZone": "UTC"}


def test_dates_that_only_repeat_the_date_times_days_are_ignored() -> None:
    body = event_body(
        summary="Dinner",
        start_date_time="2026-11-28T20:00:00Z",
        start_date="2026-11-28",
        end_date_time="2026-11-28T22:00:00Z",
        end_date="2026-11-28",
    )
    assert body["start"] == {"dateTime": "2026-11-28T20:00:00+00:00"}
    assert body["end"] == {"dateTime": "2026-11-28T22:00:00+00:00"}


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ({"summary": "x"}, "start_date_time"),
        ({"summary": "x", "start_date": "2026-05-05", "start_date_time": "2026-05-04T10:00:00Z"}, "not both"),
        ({"summary": "x", "start_date_time": "2026-05-04T10:00:00"}, "time_zone"),
        ({"summary": "x", "start_date_time": "2026-05-04T10:00:00Z", "end_date_time": "2026-05-04T09:00:00Z"}, "after"),
        ({"summary": "x", "start_date": "2026-05-04", "end_date": "2026-05-04"}, "exclusive"),
        ({"summary": "x", "start_date": "May 4"}, "2026-05-01"),
    ],
)
def test_event_arguments_that_describe_no_event_are_refused_with_the_reason(
    arguments: dict[str, str], complaint: str
) -> None:
    with pytest.raises(EventError, match=complaint):
        event_body(**arguments)  # type: ignore[arg-type]


def test_a_partial_event_body_holds_only_the_given_fields() -> None:
    assert event_body(partial=True, location="Room 2") == {"location": "Room 2"}


def at(hour: float) -> datetime:
    return datetime(2026, 5, 4, int(hour), int(hour % 1 * 60), tzinfo=UTC)


def test_free_slots_merge_overlapping_busy_periods_across_calendars() -> None:
    busy = [(at(10), at(11)), (at(10.5), at(12)), (at(14), at(15)), (at(7), at(9.5))]
    assert free_slots(busy, at(9), at(17)) == [(at(9.5), at(10)), (at(12), at(14)), (at(15), at(17))]


def test_free_slots_respect_the_minimum_length_and_an_empty_window() -> None:
    busy = [(at(10), at(11)), (at(11.25), at(12))]
    assert free_slots(busy, at(10), at(13), min_minutes=30) == [(at(12), at(13))]
    assert free_slots([], at(10), at(13)) == [(at(10), at(13))]
    assert free_slots([(at(8), at(18))], at(10), at(13)) == []
    assert free_slots([], at(13), at(10)) == []


def test_a_compact_event_tells_all_day_from_timed() -> None:
    event = {"id": "e", "summary": "Trip", "start": {"date": "2026-05-04"}, "end": {"date": "2026-05-05"}}
    assert compact_event(event)["all_day"] is True
    assert compact_event(event)["start"] == "2026-05-04"


# --- OAuth -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expires_at", "now", "expected"),
    [(None, 1000.0, False), (2000.0, 1000.0, False), (1050.0, 1000.0, True), (900.0, 1000.0, True)],
)
def test_a_token_is_refreshed_when_it_expires_within_a_minute(
    expires_at: float | None, now: float, expected: bool
) -> None:
    assert needs_refresh(Token("a", "r", expires_at), now) is expected
    assert needs_refresh(Token("", "r", None), now) is True


def test_tokens_written_by_google_auth_with_an_iso_expiry_are_understood() -> None:
    token = Token.from_json({"token": "abc", "refresh_token": "r", "expiry": "2026-05-04T10:00:00Z"})
    assert token.access_token == "abc"
    assert token.expires_at == datetime(2026, 5, 4, 10, tzinfo=UTC).timestamp()


def test_the_token_file_is_written_with_mode_0600_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "gmail" / "token.json"
    save_token(path, Token("a", "r", 123.0))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_token(path) == Token("a", "r", 123.0)
    assert [p.name for p in path.parent.iterdir()] == ["token.json"]


def test_a_missing_token_file_says_to_run_the_setup(tmp_path: Path) -> None:
    with pytest.raises(OAuthError, match="annabelle setup gmail"):
        load_token(tmp_path / "token.json")


def test_a_client_file_without_an_installed_section_is_refused_with_a_sentence(tmp_path: Path) -> None:
    with pytest.raises(OAuthError, match="installed"):
        ClientConfig.from_json({"other": {}})
    with pytest.raises(OAuthError, match="token_uri"):
        ClientConfig.from_json({"installed": {"client_id": "a", "client_secret": "b"}})


def test_the_pkce_challenge_is_the_unpadded_base64url_sha256_of_the_verifier() -> None:
    # RFC 7636, appendix B.
    assert (
        pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )
    pkce = Pkce.create()
    expected = base64.urlsafe_b64encode(hashlib.sha256(pkce.verifier.encode()).digest()).decode().rstrip("=")
    assert pkce.challenge == expected
    assert 43 <= len(pkce.verifier) <= 128


def test_the_authorization_url_asks_for_offline_access_with_pkce() -> None:
    config = ClientConfig("cid", "secret", "https://accounts.example/auth", "https://oauth.example/token")
    url = authorization_url(config, "http://127.0.0.1:5555/", "st4te", Pkce("v" * 50, "chal"), ["s1", "s2"])
    parts = urlsplit(url)
    query = {key: values[0] for key, values in parse_qs(parts.query).items()}
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://accounts.example/auth"
    assert query == {
        "client_id": "cid",
        "redirect_uri": "http://127.0.0.1:5555/",
        "response_type": "code",
        "scope": "s1 s2",
        "state": "st4te",
        "code_challenge": "chal",
        "code_challenge_method": "S256",
        "access_type": "offline",
        "prompt": "consent",
    }
