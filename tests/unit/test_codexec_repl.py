"""The session protocol: request framing and the end-of-output scanner, fed the way pipes deliver bytes."""

from __future__ import annotations

import json

import pytest

from codexec_mcp.limits import OutputCapture
from codexec_mcp.repl import MarkerScanner, ProtocolError, encode_request, new_marker, parse_status

MARKER = "@@codexec-0123456789abcdef@@"


def scan(chunks: list[bytes]) -> tuple[MarkerScanner, OutputCapture, bool]:
    capture = OutputCapture(1000, 1000)
    scanner = MarkerScanner(MARKER, capture)
    done = False
    for chunk in chunks:
        done = scanner.feed(chunk)
    return scanner, capture, done


def test_a_request_is_one_json_line() -> None:
    line = encode_request("print('a\\nb')\nx = 1", 2.5, MARKER)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"code": "print('a\\nb')\nx = 1", "timeout": 2.5, "marker": MARKER}


def test_markers_are_random() -> None:
    assert new_marker() != new_marker()


def test_output_before_the_marker_is_kept_without_the_newline_the_driver_added() -> None:
    scanner, capture, done = scan([b"hello\n\n" + MARKER.encode() + b'{"ok": true}\nlater'])
    assert done
    assert capture.render(1000, 10, 10)[0] == "hello\n"
    assert parse_status(scanner.result.status) == {"ok": True}
    assert scanner.result.leftover == b"later"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 64])
def test_a_marker_split_across_any_chunk_boundary_is_found(size: int) -> None:
    stream = b"abc" * 10 + b"\n" + MARKER.encode() + b'{"ok": false, "timed_out": true}\nnext'
    chunks = [stream[index : index + size] for index in range(0, len(stream), size)]
    scanner, capture, done = scan(chunks)
    assert done
    assert capture.render(1000, 100, 100)[0] == "abc" * 10
    assert parse_status(scanner.result.status) == {"ok": False, "timed_out": True}
    assert scanner.result.leftover == b"next"


def test_a_marker_like_string_from_the_code_does_not_end_the_exchange() -> None:
    _, capture, done = scan([b"\n@@codexec-ffffffffffffffff@@{}\n", b"more"])
    assert not done
    assert "more" not in capture.render(1000, 100, 100)[0]  # still held back: could be the start of the marker


def test_a_stream_that_ends_without_a_marker_keeps_everything_it_said() -> None:
    scanner, capture, done = scan([b"partial output"])
    scanner.flush()
    assert not done and capture.render(1000, 100, 100)[0] == "partial output"


def test_stderrs_marker_line_has_an_empty_status() -> None:
    scanner, _, done = scan([b"Traceback\n\n" + MARKER.encode() + b"\n"])
    assert done and parse_status(scanner.result.status) == {}


def test_an_endless_status_line_is_a_protocol_error_not_unbounded_memory() -> None:
    capture = OutputCapture(10, 10)
    scanner = MarkerScanner(MARKER, capture)
    scanner.feed(b"\n" + MARKER.encode())
    with pytest.raises(ProtocolError):
        for _ in range(10):
            scanner.feed(b"x" * 1000)


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b"\xff"])
def test_a_status_that_is_not_a_json_object_is_a_protocol_error(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        parse_status(raw)
