"""Changes to the owner's records that the request did not name wait for the owner. Pure.

A model the owner did not steer still picks the wrong record. Seen with the 1.5B local model in turns that read
nothing untrusted: asked for a reminder in two hours, it stored it, listed the reminders and deleted two built-in
ones nobody had mentioned; asked for another, it overwrote an unrelated one wholesale. Each call was well-formed,
with an id from a listing it had made, so neither the side-effect policy (the turn was clean) nor the bulk limit
(the first and second change) held it.

So in an agent's turn, a call that deletes or overwrites one of the owner's stored records (what a manifest's
`ownerRecords` lists: skills, facts, contacts) runs without asking only when the request names that record:

- its id with its kind ("skill 12", "fact #4", `"skill_id": 12` in a skill's plan), or
- its name, whole ("Morning Briefing", "Tom"), or
- enough of the words of what it is (its `nameFields`): one for a record of one or two words, two otherwise.
  Words of four letters or more count; two words match when they are equal or share their first five letters
  ("reminders" and "reminder", "tannlækninn" and "Tannlæknir").

When the words name nothing, the record's MCP may judge by meaning (`compare` in the manifest: the Memorizer's
multilingual encoder, memorizer_mcp/naming.py), which carries a request in another language than the record.
Otherwise it waits for the owner, and the approval says which record, by name. A record the turn made itself may
be changed in it ("add a reminder, then fix its time"). The words are the request's, never the model's: the
owner's message and their earlier ones in the same chat, a skill's name and instructions, a job's or a subagent's
task (orchestrator/turns.py `said`).

What it cannot do: a request in a language the encoder does not know, sharing no word with the record (a fact
the model stored in English, asked about in Hungarian or Hebrew), names nothing it can see, so the owner is asked;
words shared by chance ("remind me before the
meeting" and a skill called "Pre-meeting Prep") let a wrong change run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from orchestrator.approvals.policy import Verdict
from shared.manifest import OwnerRecords
from shared.text import clip

MIN_WORD = 4
"""Shorter words ("the", "and", "mit", "por") are shared by chance; a short name still counts whole."""
PREFIX = 5
"""Letters two longer words must share: inflections ("reminders", "tannlækninn") keep their stem."""
MAX_RECORD_WORDS = 40
"""Of a long fact only the first words are compared: enough to name it, and the work stays bounded."""
NAME_SHOWN = 80
"""Characters of a record's name in the approval the owner reads."""
ID_CHARS = 64
"""Longest id looked for in a request, and shown in an approval: an id is the model's argument, of any length."""
MAX_COMPARED = 8
"""Texts of a request the MCP compares by meaning (a skill run's are four: name, description, instructions, plan)."""

_WORD = re.compile(r"\w+")


def record_key(mcp: str, kind: str, record_id: object) -> str:
    """How a turn remembers a record it made: ids arrive as 12 or "12"."""
    return f"{mcp}:{kind}:{str(record_id).strip()}"


def made_id(data: object, records: OwnerRecords) -> object | None:
    """The id of the record a `make` tool's result says it made, or None. A result that names a record which was
    there before (a skill stored again, `already_existed`; a fact merged into an existing one, `decision:
    "merged"`; a file written over, `overwritten`) made nothing: the owner's record must not become the turn's own
    by being stored twice."""
    if not isinstance(data, Mapping) or data.get("decision") == "merged":
        return None
    if data.get("already_existed") or data.get("overwritten"):
        return None
    return data.get(records.idArgument)


def record_fields(data: object, records: OwnerRecords) -> dict[str, Any] | None:
    """The record in a `read` tool's result data (`{"skill": {...}}` or the record itself), or None."""
    if isinstance(data, Mapping):
        inner = data.get(records.kind)
        found = inner if isinstance(inner, Mapping) else data
        return dict(found)
    return None


def names_record(said: Sequence[str], kind: str, record_id: object, texts: Sequence[str]) -> bool:
    """Whether what was said names the record `record_id` of `kind` whose name fields read `texts`."""
    spoken = "\n".join(said).casefold()
    if not spoken:
        return False
    number = str(record_id).strip()
    if (
        number
        and len(number) <= ID_CHARS
        and re.search(rf"{re.escape(kind)}[^\d\n]{{0,6}}?(?<!\d){re.escape(number)}(?!\d)", spoken)
    ):
        return True
    name = texts[0].strip().casefold() if texts else ""
    if name and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", spoken):
        return True
    wanted = list(dict.fromkeys(_long_words(texts)))[:MAX_RECORD_WORDS]
    if not wanted:
        return False
    heard = set(_long_words([spoken]))
    stems = {word[:PREFIX] for word in heard if len(word) >= PREFIX}
    matched = sum(1 for word in wanted if word in heard or (len(word) >= PREFIX and word[:PREFIX] in stems))
    return matched >= (1 if len(wanted) <= 2 else 2)


def record_texts(record: Mapping[str, Any] | None, records: OwnerRecords) -> list[str]:
    """The record's name fields as text, its name first (nothing for a record that could not be read)."""
    return [str(record.get(field) or "") for field in records.nameFields] if record is not None else []


def unnamed_verdict(tool: str, records: OwnerRecords, record_id: object, texts: Sequence[str]) -> Verdict:
    """The hold of a change to a record the request did not name, saying which record (by name when it was read)."""
    name = clip(texts[0], NAME_SHOWN) if texts else ""
    label = f"{records.kind} {clip(str(record_id), ID_CHARS)}"
    shown = f"the {records.kind} {name!r} ({label})" if name else f"the {label}"
    verb = "delete" if "delete" in tool else "change"
    return Verdict(
        True,
        f"{tool} would {verb} {shown}, which this request did not mention; approving lets its other calls in this "
        "request run too",
        per_turn=True,
    )


def _long_words(texts: Iterable[str]) -> Iterable[str]:
    for text in texts:
        for word in _WORD.findall(text.casefold()):
            if len(word) >= MIN_WORD and not word.isdigit():
                yield word
