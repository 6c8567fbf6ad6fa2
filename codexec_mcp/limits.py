"""Pure limit decisions: timeouts, the kernel resource limits of a run, output capture and truncation, exit codes.

Nothing here touches a process; `process` and `sessions` apply what these functions decide.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

MIB = 1024 * 1024
UTF8_MAX_BYTES_PER_CHAR = 4
# Every byte value except UTF-8 continuation bytes (0x80-0xBF): deleting these leaves the continuation bytes.
_STARTS_A_CHARACTER = bytes(range(0x80)) + bytes(range(0xC0, 0x100))


@dataclass(frozen=True)
class Limits:
    """What one sandboxed process tree may use. Every field is enforced by the kernel (rlimits, via `prlimit`)
    except `wall_seconds` and `max_output_bytes`, which the runner enforces by killing the process group."""

    wall_seconds: float
    cpu_seconds: int
    memory_mb: int
    max_processes: int
    max_file_mb: int
    max_open_files: int = 1024
    max_output_bytes: int = 8 * MIB


def clamp_timeout_ms(requested: int | None, default_ms: int, max_ms: int) -> int:
    """The original's rule: no value → the default; anything above the maximum → the maximum."""
    if requested is None:
        return default_ms
    return max(1, min(requested, max_ms))


def prlimit_args(limits: Limits) -> list[str]:
    """`prlimit` options for a run (soft:hard). CPU gets one second between the soft limit (SIGXCPU, which a
    program may catch to save its work) and the hard one (SIGKILL). Memory is RLIMIT_DATA, not RLIMIT_AS: V8
    reserves gigabytes of address space at start and dies under any useful RLIMIT_AS, while RLIMIT_DATA counts
    what is actually allocated (heap and private mappings) for Python, Node and bash alike."""
    memory = limits.memory_mb * MIB
    file_size = limits.max_file_mb * MIB
    return [
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--data={memory}:{memory}",
        f"--nproc={limits.max_processes}:{limits.max_processes}",
        f"--fsize={file_size}:{file_size}",
        f"--nofile={limits.max_open_files}:{limits.max_open_files}",
        "--core=0:0",
    ]


def truncate_text(text: str, max_chars: int, head: int, tail: int) -> tuple[str, bool]:
    """The original's head+tail truncation: over `max_chars`, keep the first `head` and last `tail` characters
    with a note of how many were dropped between them."""
    if len(text) <= max_chars:
        return text, False
    dropped = len(text) - head - tail
    tail_text = text[-tail:] if tail else ""
    return f"{text[:head]}\n\n[... truncated {dropped} characters ...]\n\n{tail_text}", True


class OutputCapture:
    """One output stream of a run, kept in bounded memory however much the program writes.

    The first `head_bytes` and a rolling window of the last `tail_bytes` are kept; characters are counted as
    they stream by (every byte that is not a UTF-8 continuation byte starts a character), so the truncation
    note can say exactly how many characters were dropped without keeping them."""

    def __init__(self, head_chars: int, tail_chars: int) -> None:
        self._head_limit = head_chars * UTF8_MAX_BYTES_PER_CHAR
        self._tail_limit = tail_chars * UTF8_MAX_BYTES_PER_CHAR
        self._head = bytearray()
        self._tail = bytearray()
        self.total_bytes = 0
        self.total_chars = 0
        self._dropped_bytes = 0

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self.total_bytes += len(data)
        self.total_chars += len(data) - len(data.translate(None, _STARTS_A_CHARACTER))
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail += data
        excess = len(self._tail) - self._tail_limit
        if excess > 0:
            del self._tail[:excess]
            self._dropped_bytes += excess

    @property
    def kept_bytes(self) -> int:
        return len(self._head) + len(self._tail)

    def render(self, max_chars: int, head: int, tail: int) -> tuple[str, bool]:
        """The text as the caller sees it: whole if it fits in `max_chars`, else head + note + tail."""
        if self._dropped_bytes == 0:
            return truncate_text(bytes(self._head + self._tail).decode("utf-8", "replace"), max_chars, head, tail)
        head_text = bytes(self._head).decode("utf-8", "ignore")[:head]
        # The window may start inside a character: its leading continuation bytes are not text.
        window = bytes(self._tail).lstrip(bytes(range(0x80, 0xC0)))
        tail_text = window.decode("utf-8", "replace")[-tail:] if tail else ""
        dropped = max(0, self.total_chars - head - tail)
        return f"{head_text}\n\n[... truncated {dropped} characters ...]\n\n{tail_text}", True


@dataclass(frozen=True)
class ExitInfo:
    exit_code: int | None
    note: str | None


def describe_exit(returncode: int | None, *, stopped: str | None, limits: Limits) -> ExitInfo:
    """Turn a return code into the shell's convention (128 + N for signal N; bubblewrap already reports it so)
    and, when a signal ended the run, a sentence on the likely limit, so a model can adapt its code."""
    if returncode is None:
        return ExitInfo(None, None)
    code = 128 - returncode if returncode < 0 else returncode
    if stopped == "timeout":
        return ExitInfo(code, f"Stopped after the wall-time limit of {limits.wall_seconds:g} s.")
    if stopped == "output_limit":
        return ExitInfo(code, f"Stopped: it wrote more than {limits.max_output_bytes // MIB} MiB of output.")
    if code <= 128:
        return ExitInfo(code, None)
    number = code - 128
    if number == signal.SIGXCPU:
        return ExitInfo(code, f"Killed by the CPU-time limit ({limits.cpu_seconds} s of CPU).")
    if number == signal.SIGXFSZ:
        return ExitInfo(code, f"Killed for writing a file over the {limits.max_file_mb} MiB file-size limit.")
    if number == signal.SIGKILL:
        return ExitInfo(
            code, f"Killed (SIGKILL): usually the CPU-time limit ({limits.cpu_seconds} s) or memory exhaustion."
        )
    if number == signal.SIGSEGV:
        return ExitInfo(code, f"Crashed (SIGSEGV); the memory limit ({limits.memory_mb} MiB) may have been reached.")
    try:
        name = signal.Signals(number).name
    except ValueError:
        return ExitInfo(code, None)
    return ExitInfo(code, f"Ended by signal {name}.")
