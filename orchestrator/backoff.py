"""Restart policy for MCP children: exponential backoff and a crash-loop breaker. Pure logic, no I/O."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RestartPolicy:
    base_seconds: float = 0.5
    max_seconds: float = 30.0
    max_restarts: int = 5
    """Restarts allowed within `window_seconds` before the breaker trips and the MCP is given up."""
    window_seconds: float = 600.0
    healthy_after_seconds: float = 60.0
    """Up this long without a crash and the backoff starts again from `base_seconds`."""

    def delay(self, consecutive_failures: int) -> float:
        """Seconds to wait before restart number `consecutive_failures` (1-based)."""
        exponent = max(consecutive_failures - 1, 0)
        return min(self.base_seconds * (2**exponent), self.max_seconds)


@dataclass
class RestartTracker:
    """Remembers recent crashes of one MCP and answers: restart, after how long, or give up?"""

    policy: RestartPolicy
    consecutive: int = 0
    _recent: deque[float] = field(default_factory=deque)

    def record_crash(self, now: float, up_since: float | None) -> float | None:
        """Record a crash at `now`; return the delay before the next start, or None when the breaker trips."""
        if up_since is not None and now - up_since >= self.policy.healthy_after_seconds:
            self.consecutive = 0
        self.consecutive += 1
        self._recent.append(now)
        while self._recent and now - self._recent[0] > self.policy.window_seconds:
            self._recent.popleft()
        if len(self._recent) > self.policy.max_restarts:
            return None
        return self.policy.delay(self.consecutive)

    @property
    def recent_crashes(self) -> int:
        return len(self._recent)
