"""The installed-app OAuth flow against the fake token endpoint, and the new-mail poller's persisted state."""

from __future__ import annotations

import json
import stat
import threading
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from gmail_mcp.oauth import ClientConfig, OAuthError, Pkce, exchange_code, pkce_challenge, run_installed_app_flow
from gmail_mcp.polling import Poller, PollState
from tests.fakes.google_server import FakeGoogle


@pytest.fixture
def google() -> Any:
    with FakeGoogle() as fake:
        yield fake


def client_file(google: FakeGoogle, tmp_path: Path) -> Path:
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps(google.client_file()), encoding="utf-8")
    return path


def test_the_code_is_exchanged_with_the_verifier_at_the_files_token_uri(google: FakeGoogle, tmp_path: Path) -> None:
    config = ClientConfig.load(client_file(google, tmp_path))
    pkce = Pkce.create()
    with httpx.Client(trust_env=False) as http:
        token = exchange_code(http, config, "good-code", pkce, "http://127.0.0.1:9/", now=1000.0)
        with pytest.raises(OAuthError, match="refused the authorization code"):
            exchange_code(http, config, "bad-code", pkce, "http://127.0.0.1:9/", now=1000.0)
    assert (token.access_token, token.refresh_token, token.expires_at) == ("access-1", "refresh-1", 4599.0)
    form = google.requests[0].form()
    assert google.requests[0].path == "/token"
    assert form == {
        "grant_type": "authorization_code",
        "code": "good-code",
        "code_verifier": pkce.verifier,
        "redirect_uri": "http://127.0.0.1:9/",
        "client_id": "client-123.apps.googleusercontent.com",
        "client_secret": "secret-456",
    }


def browser(answer: dict[str, str] | None = None, *, wrong_state_first: bool = False) -> Any:
    """A stand-in for the user's browser: follows the consent URL straight to the redirect."""
    opened: list[str] = []

    def visit(url: str) -> None:
        opened.append(url)
        query = {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}

        def go() -> None:
            with httpx.Client(trust_env=False) as http:
                if wrong_state_first:
                    assert http.get(query["redirect_uri"], params={"code": "x", "state": "forged"}).status_code == 400
                params = {"state": query["state"], **(answer or {"code": "good-code"})}
                http.get(query["redirect_uri"], params=params)

        threading.Thread(target=go, daemon=True).start()

    return visit, opened


def test_the_installed_app_flow_writes_a_private_token_file(google: FakeGoogle, tmp_path: Path) -> None:
    visit, opened = browser(wrong_state_first=True)
    said: list[str] = []
    token_path = tmp_path / "gmail" / "token.json"
    token = run_installed_app_flow(
        client_file(google, tmp_path),
        token_path,
        open_browser=visit,
        announce=said.append,
        timeout=10,
        clock=lambda: 0.0,
    )
    assert token.refresh_token == "refresh-1"
    assert json.loads(token_path.read_text(encoding="utf-8"))["access_token"] == "access-1"
    assert stat.S_IMODE(token_path.stat().st_mode) == 0o600
    (url,) = opened
    query = {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}
    assert url.startswith(f"{google.url}/o/oauth2/auth?")
    assert query["redirect_uri"].startswith("http://127.0.0.1:")
    sent = google.requests[-1].form()
    assert pkce_challenge(sent["code_verifier"]) == query["code_challenge"]
    assert sent["redirect_uri"] == query["redirect_uri"]
    assert url in said[0] and str(token_path) in said[-1]


def test_a_refused_consent_ends_the_flow_with_a_sentence(google: FakeGoogle, tmp_path: Path) -> None:
    visit, _ = browser({"error": "access_denied"})
    with pytest.raises(OAuthError, match=r"did not grant access \(access_denied\)"):
        run_installed_app_flow(
            client_file(google, tmp_path), tmp_path / "t.json", open_browser=visit, announce=lambda _: None, timeout=10
        )
    assert not (tmp_path / "t.json").exists()


def test_the_flow_gives_up_after_its_timeout(google: FakeGoogle, tmp_path: Path) -> None:
    with pytest.raises(OAuthError, match="No answer from Google"):
        run_installed_app_flow(
            client_file(google, tmp_path), tmp_path / "t.json", open_browser=None, announce=lambda _: None, timeout=0.2
        )


def test_the_flow_without_a_client_file_names_where_to_put_it(tmp_path: Path) -> None:
    with pytest.raises(OAuthError, match="GMAIL_CREDENTIALS_PATH"):
        run_installed_app_flow(tmp_path / "missing.json", tmp_path / "t.json", open_browser=None)


# --- polling -----------------------------------------------------------------------------------------------


class Inbox:
    """Newest-first ids, like Gmail's list, and compact summaries on demand."""

    def __init__(self, *ids: str) -> None:
        self.ids = list(ids)
        self.fetched: list[str] = []
        self.broken = False

    async def list_ids(self) -> list[str]:
        if self.broken:
            raise RuntimeError("Google is down")
        return list(self.ids)

    async def fetch(self, message_id: str) -> dict[str, Any]:
        self.fetched.append(message_id)
        return {"id": message_id, "subject": f"subject {message_id}"}

    def arrive(self, *ids: str) -> None:
        self.ids[:0] = list(reversed(ids))


async def test_the_first_poll_is_a_baseline_and_later_mail_is_queued_oldest_first(tmp_path: Path) -> None:
    inbox = Inbox("m2", "m1")
    poller = Poller(tmp_path / "state.json", inbox.list_ids, inbox.fetch, clock=lambda: 50.0)
    assert await poller.poll_once() == 0
    inbox.arrive("m3", "m4")
    assert await poller.poll_once() == 2
    assert await poller.poll_once() == 0
    assert poller.take(clear=False) == [
        {"id": "m3", "subject": "subject m3", "received_at": 50.0},
        {"id": "m4", "subject": "subject m4", "received_at": 50.0},
    ]
    assert inbox.fetched == ["m3", "m4"]
    assert stat.S_IMODE((tmp_path / "state.json").stat().st_mode) == 0o600


async def test_a_restart_yields_each_new_message_once(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    inbox = Inbox("m1")
    first = Poller(state, inbox.list_ids, inbox.fetch)
    await first.poll_once()
    inbox.arrive("m2")
    await first.poll_once()
    # Restart before anyone read the queue: the message is still there, and not queued twice.
    second = Poller(state, inbox.list_ids, inbox.fetch)
    await second.poll_once()
    assert [m["id"] for m in second.take(clear=True)] == ["m2"]
    third = Poller(state, inbox.list_ids, inbox.fetch)
    inbox.arrive("m3")
    await third.poll_once()
    assert [m["id"] for m in third.take(clear=True)] == ["m3"]
    assert third.take(clear=True) == []
    assert inbox.fetched == ["m2", "m3"]


def test_an_unreadable_state_file_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{not json", encoding="utf-8")
    assert PollState.load(path) == PollState()
    assert PollState(seen=["a"]).unseen(["b", "a", "c"]) == ["b", "c"]


async def test_the_poll_loop_survives_a_failed_poll_and_sleeps_the_interval(tmp_path: Path) -> None:
    inbox = Inbox("m1")
    poller = Poller(tmp_path / "state.json", inbox.list_ids, inbox.fetch)
    slept: list[float] = []

    class Stop(Exception):
        pass

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 1:
            inbox.broken = True
        elif len(slept) == 2:
            assert poller.last_error == "RuntimeError: Google is down"
            inbox.broken = False
            inbox.arrive("m2")
        else:
            raise Stop

    with pytest.raises(Stop):
        await poller.run(30.0, sleep)
    assert slept == [30.0, 30.0, 30.0]
    assert poller.last_error is None
    assert [m["id"] for m in poller.take(clear=False)] == ["m2"]
