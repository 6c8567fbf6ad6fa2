"""What a tool call is told instead of running, when the loop holds it back: pure sentences and envelopes.

The agent loop (`loop.py`) decides when a call is refused or not run; the words the model then reads are here, so
they can be read and tested in one place: an id or an e-mail address nobody gave, a repeat, a lookup already run
for the model, a call after a failed one in the same reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shared.envelope import ErrorCode, fail, ok

REPEATED_CALL: dict[str, Any] = fail(
    ErrorCode.NOT_ALLOWED,
    "You already made this exact call in this turn; its result is above and it was not run again. "
    "Answer the user now with what you have.",
)
"""The result a repeated call gets instead of running (one shared object: the loop recognises it by identity)."""


def echoes_refusal(text: str) -> bool:
    """Whether an answer repeats what the loop told the model instead of answering: asked for words after a
    repeat, the 1.5B model wrote "You already made this exact call in this turn; …" as its reply to the owner."""
    return str(REPEATED_CALL["error"]).split(";")[0] in text


def address_from_nowhere(tool: str, addresses: Sequence[str], optional: Sequence[str] = ()) -> str:
    """What a call naming an e-mail address nobody gave is told instead of running; `optional`, the parameters
    holding it when none is required (attendees, cc): told only to ask or look it up, the 1.5B model gave up on
    an event the owner had asked for because it had invited addresses it made up. Pure."""
    named = ", ".join(address[:80] for address in addresses[:3])
    unseen = f"Not run: {named} is not in this conversation: the user did not write it and no tool returned it."
    if optional:
        left_out = " and ".join(name[:40] for name in optional[:3])
        return f"{unseen} Call {tool} again without {left_out}, or ask the user for the address."
    return f"{unseen} Ask the user for the address, or look it up, then call {tool} again."


def id_from_nowhere(
    tool: str,
    unseen: list[tuple[str, str]],
    lookup: str | None = None,
    *,
    looked_up: bool = False,
    listed: bool = False,
    records: Sequence[tuple[str, str]] = (),
) -> str:
    """What a call naming a record id nobody gave is told instead of running, naming the tool that finds such ids
    when there is one (`looked_up`: the loop calls it next, for the model; `listed`: it was called already in this
    turn; either way `records`, as (id, label), are what it returned, those nearest the request first). Pure."""
    named = ", ".join(f"{name} {value[:60]}" for name, value in unseen)
    if lookup and looked_up:
        nearest = f" Nearest the request: {_listing(unseen[0][0], records)}." if records else ""
        return (
            f"Not run: {named} is not in this conversation. {lookup} is called for you next; call {tool} again "
            f"with an id from its result.{nearest}"
        )
    if lookup and listed:
        # Told to look up an event id, the 1.5B model listed the (empty) calendar, then called delete_event with
        # the same placeholder id until the turn ran out: the reminder it was asked to delete was a skill. Shown
        # the list, it sent its made-up id again beside "28 Natación de Lucía": the ids are repeated here, with
        # the parameter's name, nearest the request first.
        returned = f" It returned {_listing(unseen[0][0], records)}." if records else ""
        return (
            f"Not run: {named} is not in this conversation, and {lookup} above did not return it.{returned} Call "
            f"{tool} with an id it returned; if none is what the user means, it is kept somewhere else: use another "
            "tool, or tell the user."
        )
    how = f"with {lookup}" if lookup else "(list or search)"
    return (
        f"Not run: {named} is not in this conversation. Look it up first {how}, then call {tool} "
        "with an id from that result."
    )


def already_looked_up(lookup: str, kind: str, records: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The result of the model's own call of a lookup the loop already ran for it this turn: what it asked for, the
    records that lookup returned (nearest the request first), not a refusal. Pure."""
    if not records:
        return ok({"note": f"{lookup} already ran in this turn (above) and returned no {kind}."})
    return ok({"note": f"{lookup} already ran in this turn (above); it returned {_listing(f'{kind}_id', records)}."})


def _listing(parameter: str, records: Sequence[tuple[str, str]]) -> str:
    return ", ".join(
        f'{parameter} {record_id} "{label}"' if label else f"{parameter} {record_id}" for record_id, label in records
    )


def not_run_after(failed: str) -> dict[str, Any]:
    """The result of a call that was not run because an earlier call of the same reply failed. Pure."""
    return fail(
        ErrorCode.NOT_ALLOWED,
        f"Not run: {failed}, called before it in the same reply, failed. Read that result, then call again what "
        "is still needed.",
    )
