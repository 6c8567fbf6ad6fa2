"""A first-party MCP server as a real process, spoken to in raw bytes: every line gets the answer JSON-RPC 2.0
and MCP prescribe, whatever it holds (see shared/mcp_stdio.py and shared/mcp_tools.py)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


class RawSession:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.pending = b""

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def answer(self, seconds: float = 30) -> dict[str, Any]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + seconds
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.process.stdout], [], [], max(deadline - time.monotonic(), 0))
            assert ready, "no answer"
            chunk = os.read(self.process.stdout.fileno(), 65536)
            assert chunk, "the server closed stdout"
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        answer: dict[str, Any] = json.loads(line)
        return answer

    def request(self, line: bytes) -> dict[str, Any]:
        self.send(line)
        return self.answer()


@contextmanager
def filer_process(home: Path, tmp_path: Path, stdout: int | IO[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """`python -m filer_mcp` with stdin a pipe and the given stdout; at the end its stdin is closed and it must
    exit 0 (killed if it is still running)."""
    env = {**os.environ, "ANNABELLE_HOME": str(home), "ANNABELLE_ENV_FILE": str(tmp_path / "no.env")}
    process = subprocess.Popen(
        [sys.executable, "-m", "filer_mcp"],
        stdin=subprocess.PIPE,
        stdout=stdout,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=REPO_ROOT,
    )
    try:
        yield process
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.fixture
def filer(annabelle_home: Path, tmp_path: Path) -> Iterator[RawSession]:
    with filer_process(annabelle_home, tmp_path, subprocess.PIPE) as process:
        yield RawSession(process)


def call(arguments: object, *, tool: str = "read_file", request_id: int = 7) -> bytes:
    params = {"name": tool, "arguments": arguments}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()


def tool_envelope(answer: dict[str, Any]) -> dict[str, Any]:
    assert answer["result"]["isError"] is True, answer
    envelope: dict[str, Any] = json.loads(answer["result"]["content"][0]["text"])
    return envelope


def test_garbage_and_malformed_messages_get_json_rpc_errors_and_the_session_goes_on(filer: RawSession) -> None:
    # Before the handshake too: a line that is not JSON is a parse error with a null id.
    assert filer.request(b"this is not json") == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the line is not valid JSON."},
    }
    assert filer.request(json.dumps(INITIALIZE).encode())["result"]["serverInfo"]["name"] == "filer"
    filer.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    assert filer.request(b"\xff\xfe{{{")["error"]["code"] == -32700
    assert filer.request(b'{"jsonrpc": "2.0", "id": 4, "method": "tools/list"')["error"]["code"] == -32700
    no_method = filer.request(b'{"jsonrpc": "2.0", "id": 5}')
    assert no_method["id"] == 5 and no_method["error"]["code"] == -32600
    batch = filer.request(b"[1, 2]")
    assert batch["id"] is None and batch["error"]["code"] == -32600
    string_params = filer.request(b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": "x"}')
    assert string_params["id"] == 6 and string_params["error"]["code"] == -32600
    huge = filer.request(b'{"' + b"k" * 1_000_000 + b'": }')
    assert huge["error"]["code"] == -32700 and len(json.dumps(huge)) < 200

    assert filer.request(b'{"jsonrpc": "2.0", "id": 8, "method": "tools/list"}')["result"]["tools"]


def test_bad_tool_arguments_are_invalid_arguments_envelopes_and_an_unknown_tool_is_invalid_params(
    filer: RawSession,
) -> None:
    filer.request(json.dumps(INITIALIZE).encode())
    filer.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    wrong_type = tool_envelope(filer.request(call({"path": 5})))
    assert wrong_type == {
        "success": False,
        "error": "Invalid arguments: path: Input should be a valid string",
        "errorCode": "INVALID_ARGUMENTS",
    }
    unknown = tool_envelope(filer.request(call({"path": "a.txt", **{f"extra{i}": i for i in range(30_000)}})))
    assert unknown["error"] == (
        "Unknown arguments: 'extra0', 'extra1', 'extra2', 'extra3', 'extra4' and 29,995 more. Accepted: path."
    )
    no_tool = filer.request(call({}, tool="no_such_tool"))
    assert no_tool["error"] == {"code": -32602, "message": "Unknown tool: no_such_tool"}
    not_an_object = filer.request(call([1]))
    assert not_an_object["error"]["code"] == -32602


def test_lines_are_read_as_text_lines_however_the_bytes_arrive(filer: RawSession) -> None:
    # The pipes are read on the event loop (shared/stdio_pipes.py), as the SDK's text layer reads a line: a message
    # split across writes, `\r\n` and a lone `\r` as line ends, a blank line refused like any line that is not JSON.
    assert filer.process.stdin is not None
    initialize = json.dumps(INITIALIZE).encode()
    filer.process.stdin.write(initialize[:20])
    filer.process.stdin.flush()
    time.sleep(0.2)
    filer.send(initialize[20:] + b"\r")
    assert filer.answer()["result"]["serverInfo"]["name"] == "filer"
    filer.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\r')

    assert filer.request(b"")["error"]["code"] == -32700
    filer.send(
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}\r{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}'
    )
    assert [filer.answer()["id"], filer.answer()["id"]] == [2, 3]


def test_a_server_writing_to_a_file_is_served_by_the_sdk_transport(annabelle_home: Path, tmp_path: Path) -> None:
    # Only pipes and sockets can be waited on by an event loop: with stdout a file, the SDK's transport serves.
    answers = tmp_path / "answers.jsonl"

    def answer(count: int) -> dict[str, Any]:
        deadline = time.monotonic() + 30
        while len(lines := answers.read_bytes().splitlines()) < count:
            assert time.monotonic() < deadline, "no answer"
            time.sleep(0.05)
        reply: dict[str, Any] = json.loads(lines[count - 1])
        return reply

    with answers.open("wb") as stdout, filer_process(annabelle_home, tmp_path, stdout) as process:
        assert process.stdin is not None
        for line in (json.dumps(INITIALIZE).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}'):
            process.stdin.write(line + b"\n")
        process.stdin.flush()
        assert answer(1)["result"]["serverInfo"]["name"] == "filer"
        process.stdin.write(b"not json\n")
        process.stdin.flush()
        assert answer(2)["error"]["code"] == -32700
        process.stdin.write(b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}\n')
        process.stdin.flush()
        assert answer(3)["result"]["tools"]
