"""Turns: one request an agent works on, and whether content nobody vouches for has entered it. Pure state.

The hub mints a turn for each chat message it hands an agent, each skill run and each subagent task (a subagent
joins its parent's turn: what it reads, its parent reads). The Thinker sends the turn's id with every tool call it
makes for that turn (`X-Annabelle-Turn`), and the hub keeps the turn's taint itself, so no answer of the model's
can clear it:

- a turn starts tainted when what started it is untrusted (a message from someone other than the owner, a message
  Guardian flagged, a skill written in a tainted turn);
- it becomes tainted the moment a tool whose output is untrusted returns (`Route.untrusted_output`, or a result
  that says so itself), whether Guardian passed that output or not.

In a tainted turn the side-effect policy applies (orchestrator/approvals/policy.py). In any turn, the calls of one
tool that delete, overwrite or act beyond this machine are counted (`changes`): past a limit the next one waits for
the owner too (`bulk_verdict`); and a change to one of the owner's records (a skill, a fact, a contact, a file) that
the request (`said`) does not name waits for the owner (orchestrator/approvals/records.py), unless the turn made
that record itself (`made`). Once the owner approves either, the rest of that tool's calls in the turn run. A turn
is forgotten `TURN_TTL_SECONDS` after it was minted; a call naming a forgotten or foreign turn counts as tainted.

Work derived from several past turns (the Thinker's fact extraction from a quiet chat) names them all,
comma-separated: it is tainted if any of them is, and counts as naming no turn if any is forgotten or foreign.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

TURN_TTL_SECONDS = 6 * 3600.0
"""Longer than any turn runs (model steps, subagents, approvals waiting for the owner)."""
MAX_TURNS = 10_000
"""The oldest turns are forgotten first past this many (each is a few hundred bytes)."""
MAX_JOINED = 50
"""Most turns one call may name; more counts as naming no turn."""
MAX_SAID_CHARS = 4_000
"""Of each text a turn keeps as what was said (a pasted page is not kept whole; its start names what it is about)."""
EARLIER_MESSAGES = 2
"""A chat turn also keeps this many of the owner's earlier messages in the same chat: "move it to six" names the
reminder the message before it asked for."""
FOLLOW_UP_SECONDS = 3600.0
"""How old an earlier message of the same chat may be to count as what a follow-up refers to."""


@dataclass
class Turn:
    id: str
    agents: set[str]
    """The agent it was minted for, and the subagents that joined it."""
    created: float
    tainted_by: list[str] = field(default_factory=list)
    """Why it is tainted, in order: the untrusted start, then each tool whose output was untrusted."""
    said: tuple[str, ...] = ()
    """What the request said, in the asker's words: the owner's message (then their earlier ones in the same chat),
    a skill's name and instructions, a job's or a subagent's task. Nothing: no record is named."""
    conversation: str | None = None
    """The chat a message turn belongs to (`channel:chat`), to find the owner's earlier messages in it."""
    changes: Counter[str] = field(default_factory=Counter)
    """Calls per tool that ran and deleted, overwrote or acted beyond this machine (`counts_as_change`)."""
    made: set[str] = field(default_factory=set)
    """The owner's records this turn made (`record_key`): changing them asks nobody."""
    approved: set[str] = field(default_factory=set)
    """Tools the owner let run on in this turn past a per-turn check (the bulk limit, a record not named)."""

    @property
    def tainted(self) -> bool:
        return bool(self.tainted_by)

    def taint(self, reason: str) -> None:
        if reason not in self.tainted_by:
            self.tainted_by.append(reason)


class TurnLedger:
    def __init__(self, clock: Callable[[], float] = time.monotonic, ttl: float = TURN_TTL_SECONDS) -> None:
        self.clock = clock
        self.ttl = ttl
        self._turns: dict[str, Turn] = {}

    def mint(
        self,
        agent_id: str,
        *,
        tainted_by: str | None = None,
        said: Sequence[str] = (),
        conversation: str | None = None,
    ) -> Turn:
        """A new turn for `agent_id`. `said`: the request's own words; `conversation`: the chat of a message, whose
        earlier messages (`EARLIER_MESSAGES`, at most `FOLLOW_UP_SECONDS` old) are kept after them."""
        self._prune()
        words = tuple(text[:MAX_SAID_CHARS] for text in said if text)
        if conversation is not None and words:  # a turn without words of its own (a stranger's) inherits none
            words += self._earlier(agent_id, conversation)
        turn = Turn(secrets.token_urlsafe(12), {agent_id}, self.clock(), said=words, conversation=conversation)
        if tainted_by:
            turn.taint(tainted_by)
        self._turns[turn.id] = turn
        return turn

    def _earlier(self, agent_id: str, conversation: str) -> tuple[str, ...]:
        """The first words of the latest earlier turns of `conversation`, newest first."""
        found: list[str] = []
        now = self.clock()
        for turn in reversed(self._turns.values()):
            if len(found) == EARLIER_MESSAGES or now - turn.created > FOLLOW_UP_SECONDS:
                break
            if turn.conversation == conversation and agent_id in turn.agents and turn.said:
                found.append(turn.said[0])
        return tuple(found)

    def get(self, turn_id: str | None, agent_id: str) -> Turn | None:
        """The live turn `turn_id` if `agent_id` works in it; None otherwise (unknown, expired or foreign).

        Several ids, comma-separated: a turn joining them (tainted by whatever tainted any of them), or None if
        any is not a live turn of `agent_id`. The joined turn is not kept: it lasts one call."""
        ids = (turn_id or "").split(",", MAX_JOINED)  # bounded: one more than allowed is enough to refuse
        if len(ids) == 1:
            return self._live(ids[0], agent_id)
        live = [turn for turn in (self._live(one, agent_id) for one in ids[:MAX_JOINED]) if turn is not None]
        if len(live) != len(ids):
            return None
        said = tuple(text for turn in live for text in turn.said)
        joined = Turn("+".join(turn.id for turn in live), {agent_id}, self.clock(), said=said)
        for turn in live:
            for reason in turn.tainted_by:
                joined.taint(reason)
        return joined

    def _live(self, turn_id: str, agent_id: str) -> Turn | None:
        turn = self._turns.get(turn_id)
        if turn is None or agent_id not in turn.agents or self.clock() - turn.created > self.ttl:
            return None
        return turn

    def _prune(self) -> None:
        now = self.clock()
        for turn_id in [key for key, turn in self._turns.items() if now - turn.created > self.ttl]:
            del self._turns[turn_id]
        while len(self._turns) >= MAX_TURNS:
            del self._turns[next(iter(self._turns))]
