"""Whether the record ids and e-mail addresses a call names came from the conversation, not from the model's
imagination. Pure.

A call that may change state and names a record by id (`skill_id`, `fact_id`, `event_id`, `message_id`, ...) must
use an id the conversation has seen: one the user wrote, or one a tool returned. The 1.5B model, asked to move a
reminder, called `memory_update_skill` with `skill_id: 1` without looking, and overwrote another skill's schedule
and instructions. Refused, the call comes back to the model as an error saying to look the id up first; reads are
never held back (a wrong id there costs nothing but a "not found").

Seen means: anywhere in a user message as a whole word, or in a tool result that did not fail as a whole word (a
failure's error text echoes the model's own id back); a short id (under four characters, so "1" or "12") only in
a user message or as an id of the parameter's kind in a tool result (`"skill_id": 12`, or `"id": 12` of a record
listed under `skills` or `skill`), because a bare "1" is in almost every result and a fact's id 1 is not skill 1;
or as the id the system prompt shows beside a record of the parameter's kind (`shown_id`: "(fact 12)" counts for
`fact_id`, never for `skill_id`).

The same holds for the e-mail addresses a call that may change state is given as values of their own (a
recipient, an attendee, a contact's address; not an address inside a mail's text): each must be in a user
message, a tool result that did not fail or came from outside, or the system prompt (the memories it shows). The 1.5B model mailed a
coach at an address it made up from the coach's name, and saved a contact "lucia@example.com" nobody gave.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from thinker.sessions.messages import ChatMessage, text_of
from thinker.sessions.results import CONTEXT_IDS, envelope_of, failed, is_id


def shown_id(kind: str, value: object) -> str:
    """How the system prompt names a record it shows, before its text: "(fact 12)", "(skill 29)". The kind is the
    id parameter's name without `_id`, so an id shown for one kind is never taken for another's: with one form for
    all, a fact shown as "(id 1)" let the 1.5B model overwrite skill 1 with the fact's words."""
    return f"({kind} {value})"


_SHORT = 4


def record_id_parameters(schema: Mapping[str, Any] | None) -> list[str]:
    """The required parameters of `schema` that name a record by id (`id` or `…_id`)."""
    required = (schema or {}).get("required") or []
    return [
        name
        for name in required
        if isinstance(name, str) and (name == "id" or name.endswith("_id")) and name not in CONTEXT_IDS
    ]


def unseen_ids(
    arguments: Mapping[str, Any], schema: Mapping[str, Any] | None, conversation: Sequence[ChatMessage]
) -> list[tuple[str, str]]:
    """(parameter, value) for each record id in `arguments` that no user message or tool result holds."""
    unseen: list[tuple[str, str]] = []
    for name in record_id_parameters(schema):
        value = arguments.get(name)
        if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
            continue
        text = str(value).strip()
        if not any(_holds(message, name, text) for message in conversation):
            unseen.append((name, text))
    return unseen


_ADDRESS = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
_BETWEEN_ADDRESSES = re.compile(r"[\s,;<>]*")


def unseen_addresses(arguments: Mapping[str, Any], conversation: Sequence[ChatMessage]) -> list[str]:
    """The e-mail addresses `arguments` give as values of their own (a string that holds nothing but addresses, at
    any depth: a skill's plan holds the calls it will make) that no user message, tool result that did not fail, or
    system prompt holds (compared without case), in order."""
    given = [address for text in _strings(arguments) for address in _only_addresses(text)]
    if not given:
        return []
    sources = [text_of(message).lower() for message in conversation if _gives_addresses(message)]
    return [address for address in dict.fromkeys(given) if not any(address.lower() in text for text in sources)]


def optional_holders(
    arguments: Mapping[str, Any], addresses: Sequence[str], schema: Mapping[str, Any] | None
) -> list[str]:
    """The parameters that hold `addresses`, when none of them is required by `schema` (attendees, cc): the call
    can go without them. Empty when a required one holds an address (the recipient of a mail)."""
    wanted = {address.lower() for address in addresses}
    holders = [
        name
        for name, value in arguments.items()
        if any(address.lower() in wanted for text in _strings(value) for address in _only_addresses(text))
    ]
    required = set((schema or {}).get("required") or ())
    return [] if not holders or required & set(holders) else holders


def _gives_addresses(message: ChatMessage) -> bool:
    """Whether a message's addresses count as given: the user's, the system prompt's, a tool result that did not
    fail, and any result from outside (an external service's error is outside text like its answers, and what it
    makes the agent do waits for the owner); not a failure of our own, which may echo the model's address back."""
    if message["role"] in ("user", "system"):
        return True
    if message["role"] != "tool":
        return False
    envelope = envelope_of(text_of(message))
    return not (failed(envelope) and envelope.get("untrusted") is not True)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _only_addresses(text: str) -> list[str]:
    """The addresses in `text` when it holds nothing else ("a@x.org, b@y.org"); none for a sentence."""
    return _ADDRESS.findall(text) if _BETWEEN_ADDRESSES.fullmatch(_ADDRESS.sub("", text)) else []


def _holds(message: ChatMessage, name: str, value: str) -> bool:
    role = message["role"]
    if role == "system":
        return name.endswith("_id") and shown_id(name.removesuffix("_id"), value) in text_of(message)
    if role not in ("user", "tool"):
        return False
    content = text_of(message)
    if value not in content:
        return False
    envelope = envelope_of(content) if role == "tool" else None
    if failed(envelope):
        # A failed call's error echoes what the model sent ("Not run: skill_id 43147 is not in this
        # conversation", "Skill 43147 does not exist"): the 1.5B model's made-up id counted as seen on its retry.
        return False
    if role == "user" or len(value) >= _SHORT:
        return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", content) is not None
    if name == "id":  # no kind to tell: any id field's value
        return re.search(rf'"\w*id"\s*:\s*"?{re.escape(value)}"?\s*[,}}\]]', content, re.IGNORECASE) is not None
    kind = name.removesuffix("_id")
    return any(found == value for found, _ in _records_of_kind(envelope, kind))


_LABELS = ("name", "title", "subject", "summary", "fact", "text", "path", "description")
"""Fields that say what a listed record is, in order of preference."""


def listed_records(
    conversation: Sequence[ChatMessage], lookup: str, kind: str, request: str, *, limit: int = 5
) -> list[tuple[str, str]]:
    """(id, label) of the `kind` records the last result of `lookup` that did not fail lists (`{"skills": [{"id": 28,
    "name": "Swimming"}]}`, `{"event_id": "e1", "summary": ...}`), at most `limit`, those whose label shares most
    character trigrams with `request` first (ties in listed order). Trigrams need no word list, so they work in
    any language and script: "natación de Lucía" finds "Natación de Lucía", "燃えないゴミ" finds "燃えないゴミの日".
    A result from outside (`untrusted`: a calendar, a mailbox) gives ids only, in listed order: its labels are
    someone else's text, and these pairs are repeated in the loop's own words, outside the untrusted wrapper."""
    for message in reversed(conversation):
        if message["role"] != "tool" or message.get("name") != lookup:
            continue
        envelope = envelope_of(text_of(message))
        if failed(envelope):
            continue
        records = list(
            dict.fromkeys((record_id[:60], label[:60]) for record_id, label in _records_of_kind(envelope, kind))
        )
        if isinstance(envelope, dict) and envelope.get("untrusted"):
            return list(dict.fromkeys((record_id, "") for record_id, _ in records))[:limit]
        wanted = _trigrams(request)
        ranked = sorted(enumerate(records), key=lambda item: (-len(_trigrams(item[1][1]) & wanted), item[0]))
        return [record for _, record in ranked[:limit]]
    return []


def _records_of_kind(value: Any, kind: str, holder: str = "") -> Iterator[tuple[str, str]]:
    """(id, label) of the `kind` records in a result: `<kind>_id` fields, and `id` fields of records held under
    `<kind>` or `<kind>s` (`{"skills": [{"id": 29, "name": ...}]}`, `{"skill": {"id": 29}}`); the label is the
    record's first `_LABELS` field, folded to one line ("" when it has none)."""
    if isinstance(value, list):
        for item in value:
            yield from _records_of_kind(item, kind, holder)
    elif isinstance(value, dict):
        keys = (f"{kind}_id", "id") if holder in (kind, f"{kind}s") else (f"{kind}_id",)
        ids = [str(value[key]) for key in keys if is_id(value.get(key))]
        if ids:
            label = next((" ".join(value[key].split()) for key in _LABELS if isinstance(value.get(key), str)), "")
            for record_id in ids:
                yield record_id, label
        for key, item in value.items():
            if isinstance(item, list | dict):
                yield from _records_of_kind(item, kind, str(key))


def _trigrams(text: str) -> set[str]:
    folded = " ".join(re.findall(r"\w+", text.casefold()))
    return {folded[i : i + 3] for i in range(len(folded) - 2)}
