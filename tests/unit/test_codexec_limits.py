"""CodeExec's limit decisions: timeouts, rlimit options, bounded output capture, truncation and exit notes."""

from __future__ import annotations

import signal

import pytest

from codexec_mcp.limits import (
    MIB,
    Limits,
    OutputCapture,
    clamp_timeout_ms,
    describe_exit,
    prlimit_args,
    truncate_text,
)

LIMITS = Limits(wall_seconds=30, cpu_seconds=60, memory_mb=512, max_processes=64, max_file_mb=50)


@pytest.mark.parametrize(
    ("requested", "expected"),
    [(None, 30_000), (1, 1), (5_000, 5_000), (300_000, 300_000), (300_001, 300_000), (10**9, 300_000), (0, 1)],
)
def test_a_timeout_defaults_and_is_cut_to_the_maximum(requested: int | None, expected: int) -> None:
    assert clamp_timeout_ms(requested, 30_000, 300_000) == expected


def test_prlimit_options_set_every_kernel_limit_with_a_second_between_soft_and_hard_cpu() -> None:
    assert prlimit_args(LIMITS) == [
        "--cpu=60:61",
        f"--data={512 * MIB}:{512 * MIB}",
        "--nproc=64:64",
        f"--fsize={50 * MIB}:{50 * MIB}",
        "--nofile=1024:1024",
        "--core=0:0",
    ]


@pytest.mark.parametrize(
    ("text", "expected", "truncated"),
    [
        ("short", "short", False),
        ("x" * 20, "x" * 20, False),
        ("a" * 5 + "b" * 30 + "c" * 5, "aaaaa\n\n[... truncated 30 characters ...]\n\nccccc", True),
    ],
)
def test_text_over_the_limit_keeps_its_head_and_tail_with_a_count_of_what_was_dropped(
    text: str, expected: str, truncated: bool
) -> None:
    assert truncate_text(text, 20, 5, 5) == (expected, truncated)


def test_a_tail_of_zero_keeps_only_the_head() -> None:
    assert truncate_text("abcdefghij" * 3, 10, 4, 0) == ("abcd\n\n[... truncated 26 characters ...]\n\n", True)


def test_output_that_fits_is_returned_whole() -> None:
    capture = OutputCapture(head_chars=100, tail_chars=100)
    capture.feed(b"hello ")
    capture.feed("wörld\n".encode())
    assert capture.render(1000, 100, 100) == ("hello wörld\n", False)
    assert capture.total_chars == 12 and capture.total_bytes == 13


def test_a_flood_of_output_is_kept_in_bounded_memory_and_the_dropped_characters_are_counted() -> None:
    capture = OutputCapture(head_chars=10, tail_chars=10)
    capture.feed(b"HEAD" + b"." * 100)
    for _ in range(1000):
        capture.feed(b"x" * 1000)
    capture.feed(b"THE-END")
    text, truncated = capture.render(25, 10, 10)
    assert truncated
    assert text.startswith("HEAD......")
    assert text.endswith("xxxTHE-END")
    assert f"[... truncated {104 + 1_000_000 + 7 - 20} characters ...]" in text
    assert capture.kept_bytes <= 80


def test_characters_are_counted_not_bytes_so_the_note_is_exact_for_non_ascii_text() -> None:
    capture = OutputCapture(head_chars=2, tail_chars=2)
    for _ in range(100):
        capture.feed("é€😀".encode())
    text, truncated = capture.render(4, 2, 2)
    assert truncated and text.startswith("é€") and text.endswith("€😀")
    assert "[... truncated 296 characters ...]" in text


def test_a_window_cut_inside_a_character_does_not_start_with_garbage() -> None:
    capture = OutputCapture(head_chars=1, tail_chars=3)
    capture.feed(b"a" * 4 + "€".encode() * 50)
    text, _ = capture.render(4, 1, 3)
    assert text.endswith("€€€") and "\ufffd" not in text


def test_invalid_utf8_is_shown_with_replacement_characters() -> None:
    capture = OutputCapture(head_chars=100, tail_chars=100)
    capture.feed(b"ok \xff\xfe done")
    assert capture.render(1000, 100, 100)[0] == "ok \ufffd\ufffd done"


@pytest.mark.parametrize(
    ("returncode", "stopped", "code", "note_part"),
    [
        (0, None, 0, None),
        (3, None, 3, None),
        (-signal.SIGKILL, None, 137, "SIGKILL"),
        (128 + signal.SIGKILL, None, 137, "CPU-time limit (60 s)"),
        (128 + signal.SIGXCPU, None, 152, "CPU-time limit (60 s of CPU)"),
        (128 + signal.SIGXFSZ, None, 153, "50 MiB file-size limit"),
        (128 + signal.SIGSEGV, None, 139, "memory limit (512 MiB)"),
        (128 + signal.SIGTERM, "timeout", 143, "wall-time limit of 30 s"),
        (128 + signal.SIGTERM, "output_limit", 143, "more than 8 MiB of output"),
        (128 + signal.SIGHUP, None, 129, "SIGHUP"),
        (None, None, None, None),
    ],
)
def test_an_exit_is_reported_in_the_shell_convention_with_the_limit_that_likely_ended_it(
    returncode: int | None, stopped: str | None, code: int | None, note_part: str | None
) -> None:
    info = describe_exit(returncode, stopped=stopped, limits=LIMITS)
    assert info.exit_code == code
    if note_part is None:
        assert info.note is None
    else:
        assert info.note is not None and note_part in info.note
