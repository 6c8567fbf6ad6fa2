"""Google OAuth for an installed app: the client file, the token file, expiry, refresh and the setup flow.

The client file is the JSON Google's console downloads (`{"installed": {client_id, client_secret, auth_uri,
token_uri, redirect_uris}}`); every token request goes to the `token_uri` named in it. The token file holds
`access_token`, `refresh_token` and `expires_at` (Unix seconds) and is always written atomically with mode 0600.

`run_installed_app_flow` is what `annabelle setup gmail` runs: it listens on a loopback port, sends the user's
browser to Google's consent page (with PKCE), takes the code from the redirect and exchanges it for a token.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
import webbrowser
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from shared.private_files import write_private

SCOPES: tuple[str, ...] = (
    "https://www.googleapis.com/auth/gmail.modify",
    "https://www.googleapis.com/auth/gmail.settings.basic",
    "https://www.googleapis.com/auth/calendar",
)
REFRESH_MARGIN_SECONDS = 60.0
SETUP_COMMAND = "annabelle setup gmail"


class OAuthError(Exception):
    """An OAuth file is missing or unusable, or Google refused a token request; the message says what to do."""


@dataclass(frozen=True)
class ClientConfig:
    client_id: str
    client_secret: str
    auth_uri: str
    token_uri: str
    redirect_uris: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: Path) -> ClientConfig:
        if not path.is_file():
            raise OAuthError(
                f"Gmail is not set up: put your OAuth client file at {path} (GMAIL_CREDENTIALS_PATH) "
                f"and run `{SETUP_COMMAND}`."
            )
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise OAuthError(f"The OAuth client file {path} cannot be read ({exc}); download it again.") from None
        return cls.from_json(raw, path)

    @classmethod
    def from_json(cls, raw: Any, where: Path | str = "the OAuth client file") -> ClientConfig:
        section = raw.get("installed") or raw.get("web") if isinstance(raw, dict) else None
        if not isinstance(section, dict):
            raise OAuthError(f"{where} is not a Google OAuth client file: it has no 'installed' section.")
        missing = [key for key in ("client_id", "client_secret", "token_uri") if not section.get(key)]
        if missing:
            raise OAuthError(f"{where} lacks {', '.join(missing)}; download the client file again.")
        return cls(
            client_id=str(section["client_id"]),
            client_secret=str(section["client_secret"]),
            auth_uri=str(section.get("auth_uri") or "https://accounts.google.com/o/oauth2/auth"),
            token_uri=str(section["token_uri"]),
            redirect_uris=tuple(str(uri) for uri in section.get("redirect_uris") or ()),
        )


@dataclass(frozen=True)
class Token:
    access_token: str
    refresh_token: str | None = None
    expires_at: float | None = None
    token_type: str = "Bearer"
    scope: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"access_token": self.access_token, "token_type": self.token_type}
        if self.refresh_token:
            out["refresh_token"] = self.refresh_token
        if self.expires_at is not None:
            out["expires_at"] = self.expires_at
        if self.scope:
            out["scope"] = self.scope
        return out

    @classmethod
    def from_json(cls, raw: Any) -> Token:
        if not isinstance(raw, dict) or not (raw.get("access_token") or raw.get("token") or raw.get("refresh_token")):
            raise ValueError("no access_token or refresh_token")
        expires_at = raw.get("expires_at")
        if expires_at is None and isinstance(raw.get("expiry"), str):
            # google-auth's own token files store an ISO time in `expiry`.
            expires_at = datetime.fromisoformat(raw["expiry"].replace("Z", "+00:00")).timestamp()
        return cls(
            access_token=str(raw.get("access_token") or raw.get("token") or ""),
            refresh_token=raw.get("refresh_token"),
            expires_at=float(expires_at) if expires_at is not None else None,
            token_type=str(raw.get("token_type") or "Bearer"),
            scope=raw.get("scope"),
        )

    @classmethod
    def from_grant(cls, answer: dict[str, Any], now: float, previous: Token | None = None) -> Token:
        """The token from a token endpoint's answer; a refresh answer usually omits the refresh token."""
        expires_in = answer.get("expires_in")
        return cls(
            access_token=str(answer["access_token"]),
            refresh_token=answer.get("refresh_token") or (previous.refresh_token if previous else None),
            expires_at=now + float(expires_in) if expires_in is not None else None,
            token_type=str(answer.get("token_type") or "Bearer"),
            scope=answer.get("scope") or (previous.scope if previous else None),
        )


def needs_refresh(token: Token, now: float, margin: float = REFRESH_MARGIN_SECONDS) -> bool:
    """Whether to refresh before using `token`: no access token, or it expires within `margin` seconds."""
    if not token.access_token:
        return True
    if token.expires_at is None:
        return False
    return token.expires_at - margin <= now


def load_token(path: Path) -> Token:
    if not path.is_file():
        raise OAuthError(f"Gmail is not authorised yet: run `{SETUP_COMMAND}` (it writes {path}, GMAIL_TOKEN_PATH).")
    try:
        return Token.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise OAuthError(f"The Gmail token file {path} is unusable ({exc}): run `{SETUP_COMMAND}` again.") from None


def write_private_json(path: Path, data: Any) -> None:
    """Write `data` to `path` atomically (temp file + rename) with mode 0600, creating the folder (0700)."""
    write_private(path, json.dumps(data, indent=2) + "\n")


def save_token(path: Path, token: Token) -> None:
    write_private_json(path, token.to_json())


def describe_token_error(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = {}
    code = body.get("error") if isinstance(body, dict) else None
    detail = body.get("error_description") if isinstance(body, dict) else None
    return ": ".join(str(part) for part in (code, detail) if part) or f"HTTP {response.status_code}"


def refresh_form(config: ClientConfig, token: Token) -> dict[str, str]:
    if not token.refresh_token:
        raise OAuthError(f"The Gmail token has expired and has no refresh token: run `{SETUP_COMMAND}` again.")
    return {
        "grant_type": "refresh_token",
        "refresh_token": token.refresh_token,
        "client_id": config.client_id,
        "client_secret": config.client_secret,
    }


async def refresh_token(http: httpx.AsyncClient, config: ClientConfig, token: Token, now: float) -> Token:
    """Exchange the refresh token at the client file's `token_uri` for a new access token."""
    try:
        response = await http.post(config.token_uri, data=refresh_form(config, token))
    except httpx.HTTPError as exc:
        raise OAuthError(
            f"Google's token endpoint {config.token_uri} cannot be reached ({type(exc).__name__})."
        ) from None
    if response.status_code != 200:
        raise OAuthError(
            f"Google refused to refresh the Gmail token ({describe_token_error(response)}): "
            f"run `{SETUP_COMMAND}` again."
        )
    return Token.from_grant(response.json(), now, token)


# --- the installed-app flow -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pkce:
    verifier: str
    challenge: str

    @classmethod
    def create(cls, verifier: str | None = None) -> Pkce:
        verifier = verifier or secrets.token_urlsafe(64)
        return cls(verifier, pkce_challenge(verifier))


def pkce_challenge(verifier: str) -> str:
    """RFC 7636 S256: base64url(sha256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def authorization_url(
    config: ClientConfig, redirect_uri: str, state: str, pkce: Pkce, scopes: Sequence[str] = SCOPES
) -> str:
    query = {
        "client_id": config.client_id,
        "redirect_uri": redirect_uri,
        "response_type": "code",
        "scope": " ".join(scopes),
        "state": state,
        "code_challenge": pkce.challenge,
        "code_challenge_method": "S256",
        "access_type": "offline",
        "prompt": "consent",
    }
    separator = "&" if "?" in config.auth_uri else "?"
    return f"{config.auth_uri}{separator}{urlencode(query)}"


def exchange_code(
    http: httpx.Client, config: ClientConfig, code: str, pkce: Pkce, redirect_uri: str, now: float
) -> Token:
    """Trade the authorization code (with the PKCE verifier) for a token at the client file's `token_uri`."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": pkce.verifier,
        "redirect_uri": redirect_uri,
        "client_id": config.client_id,
        "client_secret": config.client_secret,
    }
    try:
        response = http.post(config.token_uri, data=form)
    except httpx.HTTPError as exc:
        raise OAuthError(
            f"Google's token endpoint {config.token_uri} cannot be reached ({type(exc).__name__})."
        ) from None
    if response.status_code != 200:
        raise OAuthError(f"Google refused the authorization code ({describe_token_error(response)}); try again.")
    token = Token.from_grant(response.json(), now)
    if not token.refresh_token:
        raise OAuthError(
            "Google sent no refresh token: remove Annabelle's access at https://myaccount.google.com/permissions "
            "and run the setup again."
        )
    return token


@dataclass
class _Redirect:
    params: dict[str, str] | None = None


def _redirect_handler(expected_state: str, received: _Redirect, done: threading.Event) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            params = {key: values[0] for key, values in parse_qs(urlsplit(self.path).query).items()}
            if params.get("state") != expected_state or not ("code" in params or "error" in params):
                self.send_response(400)
                self.end_headers()
                self.wfile.write(b"Unexpected request.")
                return
            received.params = params
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.end_headers()
            self.wfile.write(b"Annabelle received Google's answer; you can close this tab.")
            done.set()

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


def run_installed_app_flow(
    credentials_path: Path,
    token_path: Path,
    *,
    scopes: Sequence[str] = SCOPES,
    open_browser: Callable[[str], object] | None = webbrowser.open,
    announce: Callable[[str], object] = print,
    host: str = "127.0.0.1",
    port: int = 0,
    timeout: float = 300.0,
    clock: Callable[[], float] = time.time,
) -> Token:
    """Authorise Annabelle for Gmail and Calendar and write the token file (0600); returns the token.

    Reads the client file at `credentials_path`, listens on `http://{host}:{port}/` (0 = a free port), shows the
    consent URL through `announce` and opens it with `open_browser` (None = only show it), waits up to
    `timeout` seconds for Google's redirect, exchanges the code at the file's `token_uri` and saves the token
    at `token_path`. Raises `OAuthError` (a sentence for the user) on any failure.
    """
    config = ClientConfig.load(credentials_path)
    state = secrets.token_urlsafe(24)
    pkce = Pkce.create()
    received = _Redirect()
    done = threading.Event()
    listener = HTTPServer((host, port), _redirect_handler(state, received, done))
    redirect_uri = f"http://{host}:{listener.server_address[1]}/"
    thread = threading.Thread(target=listener.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        url = authorization_url(config, redirect_uri, state, pkce, scopes)
        announce(f"Open this address to let Annabelle use your Gmail and Calendar:\n{url}")
        if open_browser is not None:
            open_browser(url)
        if not done.wait(timeout):
            raise OAuthError(f"No answer from Google within {timeout:.0f} seconds; run `{SETUP_COMMAND}` again.")
    finally:
        listener.shutdown()
        listener.server_close()
        thread.join(timeout=5)
    params = received.params or {}
    if "error" in params:
        raise OAuthError(f"Google did not grant access ({params['error']}); run `{SETUP_COMMAND}` again.")
    with httpx.Client(timeout=30.0) as http:
        token = exchange_code(http, config, params["code"], pkce, redirect_uri, clock())
    save_token(token_path, token)
    announce(f"Gmail is authorised; the token is saved at {token_path}.")
    return token
