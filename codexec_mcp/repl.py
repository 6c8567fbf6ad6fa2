"""The session protocol, pure: how a request is framed for a driver and how the end of its output is found.

The server writes one JSON line per request to the driver's stdin: `{"code", "timeout", "marker"}`. The driver
runs the code, then writes `\\n<marker><status JSON>\\n` on stdout and `\\n<marker>\\n` on stderr. The marker is
random per request, so output cannot end an exchange by accident; code that digs it out of the driver can only
confuse its own session. Everything before the marker is the code's output; the newline the driver put in front
of the marker is not.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from codexec_mcp.limits import OutputCapture

MAX_STATUS_BYTES = 4096


class ProtocolError(Exception):
    """The driver answered something that is not the protocol (it was replaced or corrupted by the code)."""


def new_marker() -> str:
    return f"@@codexec-{secrets.token_hex(16)}@@"


def encode_request(code: str, timeout_seconds: float, marker: str) -> bytes:
    return (json.dumps({"code": code, "timeout": timeout_seconds, "marker": marker}) + "\n").encode("utf-8")


@dataclass
class ScanResult:
    done: bool
    status: bytes = b""
    leftover: bytes = b""


class MarkerScanner:
    """Feeds a stream into an `OutputCapture` until `\\n<marker>` and the rest of that line have gone by.

    Only a tail shorter than the marker is held back between chunks, so memory stays bounded whatever the
    program prints."""

    def __init__(self, marker: str, capture: OutputCapture) -> None:
        self._pattern = b"\n" + marker.encode("ascii")
        self._capture = capture
        self._carry = b""
        self._found = False
        self._status = bytearray()
        self.result = ScanResult(done=False)

    def feed(self, data: bytes) -> bool:
        """True once the marker line is complete (then `result` holds the status and any bytes after it)."""
        if self.result.done:
            self.result.leftover += data
            return True
        if not self._found:
            buffer = self._carry + data
            index = buffer.find(self._pattern)
            if index < 0:
                keep = len(self._pattern) - 1
                cut = max(0, len(buffer) - keep)
                self._capture.feed(buffer[:cut])
                self._carry = buffer[cut:]
                return False
            self._capture.feed(buffer[:index])
            self._carry = b""
            self._found = True
            data = buffer[index + len(self._pattern) :]
        end = data.find(b"\n")
        if end < 0:
            self._status += data
            if len(self._status) > MAX_STATUS_BYTES:
                raise ProtocolError("the session driver's end-of-output line is malformed")
            return False
        self._status += data[:end]
        self.result = ScanResult(done=True, status=bytes(self._status), leftover=data[end + 1 :])
        return True

    def flush(self) -> None:
        """The stream ended without a marker: what was held back is output too."""
        if not self._found:
            self._capture.feed(self._carry)
            self._carry = b""


def parse_status(raw: bytes) -> dict[str, Any]:
    """The driver's status object (`ok`, `timed_out`, `exit`); an empty line (stderr's marker) is `{}`."""
    if not raw.strip():
        return {}
    try:
        status = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ProtocolError("the session driver's status is not JSON") from None
    if not isinstance(status, dict):
        raise ProtocolError("the session driver's status is not an object")
    return status
