"""The unnamed-record rule on the hub's call path: which of the owner's records a call would change, what that
record says it is, and whether the turn's request named it.

The decision is `records.py`'s (pure); this module makes the calls it needs, as the hub's own (`system` callers)
through `Hub.call`, the one road every call takes: the record's reader (`ownerRecords.read`) and, when the words
named nothing, the MCP's comparison by meaning (`ownerRecords.compare`). The hub asks `verdict` for every agent
call the side-effect policy and the bulk limit let through, and tells `note_made` about every call that ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from orchestrator.approvals import records as rules
from orchestrator.approvals.policy import Verdict
from orchestrator.callers import Caller, system
from orchestrator.router import Route
from orchestrator.turns import MAX_SAID_CHARS, Turn
from shared.envelope import ErrorCode
from shared.manifest import McpManifest, OwnerRecords


class CallsTools(Protocol):
    """`Hub.call`: the one road."""

    async def __call__(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]: ...


class RecordCheck:
    def __init__(
        self, call: CallsTools, manifest_of: Callable[[str], McpManifest | None], *, enabled: bool = True
    ) -> None:
        """`manifest_of`: a first-party MCP's manifest by name (None for external MCPs, which declare no records)."""
        self.call = call
        self.manifest_of = manifest_of
        self.enabled = enabled

    async def verdict(self, name: str, route: Route, arguments: dict[str, Any], turn: Turn | None) -> Verdict:
        """Whether the call waits for the owner because it changes a record of theirs the request did not name."""
        manifest = self.manifest_of(route.mcp)
        records = manifest.owner_records(route.tool) if manifest is not None else None
        if not self.enabled or records is None or turn is None or name in turn.approved:
            return Verdict(False)
        record_id = arguments.get(records.idArgument)
        if rules.record_key(route.mcp, records.kind, record_id) in turn.made:
            return Verdict(False)
        texts = await self._texts(route.mcp, records, record_id, arguments)
        if texts is None:
            return Verdict(False)  # no such record: the call fails by itself and changes nothing
        named = rules.names_record(turn.said, records.kind, record_id, texts)
        if named or await self._about(route.mcp, records, turn, texts):
            return Verdict(False)
        return rules.unnamed_verdict(name, records, record_id, texts)

    def note_made(self, route: Route | None, turn: Turn | None, envelope: dict[str, Any]) -> None:
        """A record this call made is the turn's own: changing it later in the turn asks nobody."""
        manifest = self.manifest_of(route.mcp) if route is not None else None
        if manifest is None or route is None or turn is None or not envelope["success"]:
            return
        records = manifest.makes_records(route.tool)
        made = rules.made_id(envelope.get("data"), records) if records is not None else None
        if records is not None and made is not None:
            turn.made.add(rules.record_key(route.mcp, records.kind, made))

    async def _texts(
        self, mcp: str, records: OwnerRecords, record_id: object, arguments: dict[str, Any]
    ) -> list[str] | None:
        """What the record says it is: read by the MCP's reader, or its id when the MCP names records by id (a
        path). None when the reader says there is no such record (NOT_FOUND); nothing when the read fails otherwise
        (the owner is then asked, with the id)."""
        if records.read is None:
            return [str(record_id)]
        lookup = {records.idArgument: record_id}
        if "agent_id" in arguments:
            lookup["agent_id"] = arguments["agent_id"]
        read = await self.call(f"{mcp}_{records.read}", lookup, caller=system(f"approval: which {records.kind}"))
        if read.get("errorCode") == ErrorCode.NOT_FOUND:
            return None
        found = rules.record_fields(read.get("data"), records) if read["success"] else None
        return rules.record_texts(found, records)

    async def _about(self, mcp: str, records: OwnerRecords, turn: Turn, texts: list[str]) -> bool:
        """Whether the MCP judges the request to be about the record by meaning (`compare`), for words that named
        nothing: a request in another language than the record. No answer counts as no."""
        record = " ".join(text for text in texts if text)
        if records.compare is None or not record or not turn.said:
            return False
        arguments = {"request": list(turn.said[: rules.MAX_COMPARED]), "record": record[:MAX_SAID_CHARS]}
        answer = await self.call(
            f"{mcp}_{records.compare}", arguments, caller=system(f"approval: which {records.kind}")
        )
        data = answer.get("data")
        return bool(answer["success"] and isinstance(data, dict) and data.get("about") is True)
