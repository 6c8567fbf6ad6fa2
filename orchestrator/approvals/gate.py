"""Holding a call for the owner: the call waits (up to `APPROVAL_TIMEOUT_S`) while the owner decides.

`hold` records the request, tells the owner (`announce`: a Telegram message with Approve / Deny buttons when the
channel runs, else a notification naming `annabelle approvals`), keeps the turn that waits from timing out
(`keep_waiting`), and returns the decided record: `approved` (the call then runs), `denied`, or `expired`.
`decide` is what the owner's answer calls, from HTTP, Telegram or the CLI.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import anyio

from orchestrator.approvals.store import AlreadyDecided, Approval, ApprovalStore, Decision
from shared.traces import trace_event

log = logging.getLogger(__name__)

Announce = Callable[[Approval], Awaitable[None]]
KeepWaiting = Callable[[str, float], None]
"""Called with the agent id and the seconds its turn must be allowed to wait longer."""
WallClock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


class ApprovalGate:
    def __init__(self, store: ApprovalStore, *, timeout: float, clock: WallClock = utc_now) -> None:
        self.store = store
        self.timeout = timeout
        self.clock = clock
        self.announce: Announce | None = None
        """Set by the app: how the owner hears of a request."""
        self.keep_waiting: KeepWaiting | None = None
        """Set by the app: the agent manager extends the waiting turn."""
        self._decided: dict[str, anyio.Event] = {}

    def start(self) -> None:
        """Requests left pending by a hub that stopped are expired, never approved."""
        for record in self.store.expire_leftovers(self.clock()):
            log.info("approval expired by a restart", extra={"approval": record.id, "tool": record.tool})

    async def hold(self, agent_id: str, tool: str, arguments: Mapping[str, Any], reason: str) -> Approval:
        record = self.store.create(agent_id, tool, arguments, reason, self.clock(), self.timeout)
        decided = self._decided[record.id] = anyio.Event()
        log.warning(
            "call held for the owner's approval", extra={"approval": record.id, "tool": tool, "agent": agent_id}
        )
        trace_event("approval_requested", approval=record.id, tool=tool, agent=agent_id)
        if self.keep_waiting is not None:
            self.keep_waiting(agent_id, self.timeout)
        if self.announce is not None:
            try:
                await self.announce(record)
            except Exception:  # the owner can still decide over HTTP or the CLI
                log.exception("approval request not announced", extra={"approval": record.id})
        why = "nobody decided in time"
        try:
            with anyio.move_on_after(self.timeout):
                await decided.wait()
        except BaseException:
            why = "the turn waiting for it ended"  # cancelled: the call will not run, whatever is decided later
            raise
        finally:
            self._decided.pop(record.id, None)
            final = self._expire(record.id, why)
        trace_event("approval_decided", approval=record.id, tool=tool, outcome=final.status)
        return final

    def _expire(self, approval_id: str, why: str) -> Approval:
        try:
            return self.store.decide(approval_id, "expired", why, self.clock())
        except AlreadyDecided as exc:
            return exc.record

    def decide(self, approval_id: str, decision: Decision, by: str) -> Approval:
        """Settle a pending request; raises `ApprovalNotFound` or `AlreadyDecided`."""
        status = "approved" if decision == "approve" else "denied"
        record = self.store.decide(approval_id, status, by, self.clock())
        log.info("approval decided", extra={"approval": approval_id, "outcome": status, "by": by})
        event = self._decided.get(approval_id)
        if event is not None:
            event.set()
        return record

    def list(self) -> list[Approval]:
        return self.store.list()
