"""The new-mail queue behind get_new_emails: polled in the background (GMAIL_POLLING_ENABLED) or on each call,
and its state persisted so restarts never repeat.

State file (`$ANNABELLE_HOME/gmail/poll-state.json`, 0600): the ids already seen and the queue of new messages
not yet cleared. The first poll ever only records what is already in the inbox (a baseline), so the queue holds
mail that arrived while Annabelle was watching, each message once, across restarts.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from gmail_mcp.oauth import write_private_json

log = logging.getLogger(__name__)

MAX_SEEN = 5000
MAX_QUEUE = 500


@dataclass
class PollState:
    seen: list[str] = field(default_factory=list)
    queue: list[dict[str, Any]] = field(default_factory=list)
    baseline_done: bool = False

    @classmethod
    def load(cls, path: Path) -> PollState:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:
            log.warning("gmail poll state unreadable; starting afresh", extra={"path": str(path), "error": str(exc)})
            return cls()
        return cls(
            seen=[str(item) for item in raw.get("seen", [])],
            queue=[item for item in raw.get("queue", []) if isinstance(item, dict)],
            baseline_done=bool(raw.get("baseline_done", False)),
        )

    def save(self, path: Path) -> None:
        write_private_json(path, {"seen": self.seen, "queue": self.queue, "baseline_done": self.baseline_done})

    def unseen(self, ids: Sequence[str]) -> list[str]:
        """The ids not seen before, in the given order (pure)."""
        known = set(self.seen)
        return [message_id for message_id in ids if message_id not in known]

    def record(self, ids: Sequence[str], new_messages: Sequence[dict[str, Any]]) -> None:
        known = set(self.seen)
        for message_id in ids:
            if message_id not in known:
                self.seen.append(message_id)
                known.add(message_id)
        del self.seen[:-MAX_SEEN]
        self.queue.extend(new_messages)
        del self.queue[:-MAX_QUEUE]


ListIds = Callable[[], Awaitable[list[str]]]
FetchSummary = Callable[[str], Awaitable[dict[str, Any]]]


class Poller:
    """Polls with `list_ids` (newest first) and `fetch` (one compact message); `clock` stamps arrivals."""

    def __init__(
        self,
        state_path: Path,
        list_ids: ListIds,
        fetch: FetchSummary,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.state_path = state_path
        self.list_ids = list_ids
        self.fetch = fetch
        self.clock = clock
        self.state = PollState.load(state_path)
        self.last_error: str | None = None
        self.last_poll_at: float | None = None
        # Two polls at once (a call while the loop polls) would both see a message as unseen and queue it twice.
        self._lock = anyio.Lock()

    async def poll_once(self) -> int:
        """One poll; returns how many messages were queued."""
        async with self._lock:
            return await self._poll()

    async def _poll(self) -> int:
        ids = await self.list_ids()
        fresh = self.state.unseen(ids)
        new_messages: list[dict[str, Any]] = []
        if self.state.baseline_done:
            for message_id in reversed(fresh):  # oldest first in the queue
                summary = await self.fetch(message_id)
                summary["received_at"] = self.clock()
                new_messages.append(summary)
        self.state.record(fresh, new_messages)
        self.state.baseline_done = True
        self.state.save(self.state_path)
        self.last_poll_at = self.clock()
        self.last_error = None
        if new_messages:
            log.info("gmail new messages queued", extra={"count": len(new_messages)})
        return len(new_messages)

    def take(self, clear: bool) -> list[dict[str, Any]]:
        queued = list(self.state.queue)
        if clear and queued:
            self.state.queue.clear()
            self.state.save(self.state_path)
        return queued

    async def run(self, interval: float, sleep: Callable[[float], Awaitable[Any]]) -> None:
        """Poll forever, `interval` seconds apart; a failed poll is logged and retried at the next tick."""
        while True:
            try:
                await self.poll_once()
            except Exception as exc:
                self.last_error = f"{type(exc).__name__}: {exc}"
                log.warning("gmail poll failed", extra={"error": self.last_error})
            await sleep(interval)
