"""The escape corpus (codexec_escape_corpus.py) against the real sandbox: every attempt must fail.

All attempts run once, concurrently (a few at a time), in one module-scoped fixture with canaries planted on
the host; each parametrized test then reads its attempt's outcome. Checked for every attempt: no secret in its
output, no "ESCAPED" verdict, its expected text, no file changed outside the sandbox, nothing it started still
running; and at the end, that no host listener was reached.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from codexec_mcp.service import CodeExec
from shared.mcp_tools import ToolFailure
from tests.codexec_support import build_service, processes_with, require_node, sandbox_unavailable_reason
from tests.integration.codexec_escape_corpus import ATTEMPTS, Attempt

pytestmark = pytest.mark.slow

CONCURRENCY = 4
TIGHT_LIMITS = {
    "codexec_cpu_seconds": 2,
    "codexec_memory_mb": 256,
    "codexec_max_processes": 32,
    "codexec_max_file_mb": 5,
    "codexec_tmp_mb": 16,
    "codexec_max_output_bytes": 1_000_000,
}


class Listeners:
    """Host endpoints sandboxed code must never reach: TCP and UDP on 127.0.0.1 (and TCP on ::1 when
    available), an abstract and a path unix socket. Every connection or datagram is counted."""

    def __init__(self, folder: Path) -> None:
        self.hits: list[str] = []
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.port = self.tcp.getsockname()[1]
        self.tcp6: socket.socket | None
        try:
            self.tcp6 = socket.create_server(("::1", self.port), family=socket.AF_INET6)
        except OSError:
            self.tcp6 = None
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp_port = self.udp.getsockname()[1]
        self.abstract_name = f"codexec-canary-{secrets.token_hex(8)}"
        self.abstract = socket.socket(socket.AF_UNIX)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen()
        self.unix_path = str(folder / "hub.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.unix_path)
        self.unix.listen()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._accept, args=(sock, name), daemon=True)
            for sock, name in ((self.tcp, "tcp"), (self.tcp6, "tcp6"), (self.abstract, "abstract"), (self.unix, "unix"))
            if sock is not None
        ]
        self._threads.append(threading.Thread(target=self._receive, daemon=True))
        for thread in self._threads:
            thread.start()

    def _accept(self, sock: socket.socket, name: str) -> None:
        sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            self.hits.append(name)
            conn.close()

    def _receive(self) -> None:
        self.udp.settimeout(0.2)
        while not self._stop.is_set():
            try:
                self.udp.recvfrom(1024)
            except OSError:
                continue
            self.hits.append("udp")

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        for sock in (self.tcp, self.tcp6, self.udp, self.abstract, self.unix):
            if sock is not None:
                sock.close()


@dataclass
class Outcome:
    attempt: Attempt
    mark: str
    result: Any = None
    refused: str | None = None
    later_run: str | None = None
    leftovers: list[int] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    seconds: float = 0.0


def host_tree(paths: list[Path]) -> dict[str, bytes]:
    state: dict[str, bytes] = {}
    for base in paths:
        for folder, _, files in os.walk(base):
            for name in files:
                path = Path(folder) / name
                if path.is_socket():
                    state[str(path)] = b"socket"
                else:
                    state[str(path)] = path.read_bytes()
        state[str(base)] = b"listing:" + ",".join(sorted(os.listdir(base))).encode()
    return state


def host_tmp_files(mark: str) -> list[str]:
    """What an attempt wrote to its private /tmp must not show up in the host's."""
    path = f"/tmp/codexec-escape-{mark}"
    return [path] if os.path.exists(path) else []


@dataclass
class Corpus:
    outcomes: dict[str, Outcome]
    canary: str
    listeners: Listeners
    seconds: float


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    reason = sandbox_unavailable_reason()
    if reason:
        pytest.skip(reason)
    base = tmp_path_factory.mktemp("escapes")
    canary = secrets.token_hex(16)
    home = base / "home"
    home.mkdir()
    (home / "annabelle.token").write_text(canary)
    outside = base / "outside"
    outside.mkdir()
    (outside / "codexec-outside-secret.txt").write_text(canary)
    host_home = base / "user-home"
    (host_home / ".ssh").mkdir(parents=True)
    (host_home / ".aws").mkdir()
    (host_home / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{canary}\n")
    (host_home / ".aws" / "credentials").write_text(f"[default]\naws_secret_access_key = {canary}\n")
    listeners = Listeners(outside)
    watched = [outside, host_home]
    before = host_tree(watched)
    token_before = (home / "annabelle.token").read_bytes()

    with pytest.MonkeyPatch.context() as patch:
        for variable in ("ANNABELLE_TOKEN", "GROQ_API_KEY", "AWS_SECRET_ACCESS_KEY", "TELEGRAM_BOT_TOKEN"):
            patch.setenv(variable, canary)
        patch.setenv("HOME", str(host_home))
        default = build_service(home, codexec_kill_grace_seconds=1)
        tight = build_service(home, codexec_kill_grace_seconds=1, **TIGHT_LIMITS)
        values = {
            "TOKEN_PATH": str(home / "annabelle.token"),
            "OUTSIDE": str(outside),
            "HOST_HOME": str(host_home),
            "SANDBOX_HOST": str(default.settings.sandbox_dir),
            "ANNABELLE_HOME": str(home),
            "PID": str(os.getpid()),
            "PPID": str(os.getppid()),
            "PGID": str(os.getpgid(0)),
            "PORT": str(listeners.port),
            "UDP_PORT": str(listeners.udp_port),
            "ABSTRACT": listeners.abstract_name,
            "UNIX_PATH": listeners.unix_path,
            "CANARY_HASH": hashlib.sha256(canary.encode()).hexdigest(),
        }
        started = time.monotonic()
        outcomes = asyncio.run(run_all(default, tight, values, before, watched))
        seconds = time.monotonic() - started
    listeners.close()
    assert (home / "annabelle.token").read_bytes() == token_before
    yield Corpus(outcomes, canary, listeners, seconds)


def fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


async def run_all(
    default: CodeExec, tight: CodeExec, values: dict[str, str], before: dict[str, bytes], watched: list[Path]
) -> dict[str, Outcome]:
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(index: int, attempt: Attempt) -> Outcome:
        mark = f"cxmark{index:03d}{secrets.token_hex(3)}"
        outcome = Outcome(attempt, mark)
        filled = {**values, "MARK": mark}
        service = tight if attempt.tight else default
        async with gate:
            started = time.monotonic()
            working_dir = fill(attempt.working_dir, filled) if attempt.working_dir else None
            try:
                outcome.result = await service.execute_code(
                    attempt.language, fill(attempt.source(), filled), attempt.timeout_ms, working_dir
                )
            except ToolFailure as exc:
                outcome.refused = str(exc)
            if attempt.then_working_dir:
                try:
                    await service.execute_code("bash", "pwd", None, fill(attempt.then_working_dir, filled))
                    outcome.later_run = "ran"
                except ToolFailure as exc:
                    outcome.later_run = f"{exc.code}: {exc}"
            outcome.seconds = time.monotonic() - started
        outcome.leftovers = processes_with(mark)
        outcome.changed += host_tmp_files(mark)
        return outcome

    results = await asyncio.gather(*(one(index, attempt) for index, attempt in enumerate(ATTEMPTS)))
    after = host_tree(watched)
    changed = sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))
    outcomes = {outcome.attempt.id: outcome for outcome in results}
    for outcome in outcomes.values():
        outcome.changed += changed
    return outcomes


def test_the_corpus_holds_at_least_a_hundred_distinct_attempts_in_every_language() -> None:
    ids = [attempt.id for attempt in ATTEMPTS]
    assert len(ids) >= 100 and len(set(ids)) == len(ids)
    assert {attempt.language for attempt in ATTEMPTS} == {"python", "node", "bash"}


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=[attempt.id for attempt in ATTEMPTS])
def test_the_attempt_does_not_escape(corpus: Corpus, attempt: Attempt) -> None:
    if attempt.language == "node":
        require_node()
    outcome = corpus.outcomes[attempt.id]
    assert outcome.refused is None, outcome.refused
    result = outcome.result
    output = result.stdout + result.stderr
    assert corpus.canary not in output
    assert "ESCAPED" not in output, output[:2000]
    if attempt.expect is not None:
        assert attempt.expect in result.stdout, output[:2000]
    if attempt.check is not None:
        assert attempt.check(result), result
    if attempt.then_working_dir:
        assert outcome.later_run is not None and outcome.later_run.startswith("NOT_ALLOWED"), outcome.later_run
    assert outcome.leftovers == [], f"still running: {outcome.leftovers}"
    assert outcome.changed == []


def test_no_host_listener_was_reached_and_the_corpus_stays_quick(corpus: Corpus) -> None:
    assert corpus.listeners.hits == []
    print(f"\nescape corpus: {len(corpus.outcomes)} attempts in {corpus.seconds:.1f} s")
