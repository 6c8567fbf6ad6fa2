"""Whether a call acts before the file or page the request names has been read. Pure.

Asked to read `stairlift-letter.txt` and put the visit it announces in the calendar, the 1.5B model booked a
visit at midnight with a made-up title and never read the letter, though the read tool was offered; asked to
mail the packing list in `camp-packing.txt` to Jo, it mailed a sentence of its own. So a call that may change
state, made while a file name or web address the request names has not been used by any call of the
conversation, is refused once with the tool that reads it (`read_first`). Used means named in the arguments of
a call made before (read, searched, fetched). A call that names one of the request's values itself acts on it,
not on its content, and is never held: `create_file("notes.md")` makes the file, `delete_file("draft.txt")` in
"delete draft.txt, leave final.txt alone" deletes it, a reminder that mentions `report.pdf` is about it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from thinker.sessions.messages import ChatMessage


def unread_values(
    named: Sequence[tuple[str, str]], arguments: Mapping[str, Any], conversation: Sequence[ChatMessage]
) -> list[tuple[str, str]]:
    """(kind, value) for each of the request's `named` values (`thinker.selection.named_values`: its file names
    and web addresses) that no earlier call in `conversation` names (compared without case); none when `arguments`
    name one of them."""
    own = json.dumps(arguments, ensure_ascii=False).lower()
    if not named or any(value.lower() in own for _, value in named):
        return []
    used: list[str] = []
    for message in conversation:
        if message["role"] == "assistant":
            used.extend(str(call["function"]["arguments"]).lower() for call in message.get("tool_calls") or [])
    return [(kind, value) for kind, value in named if not any(value.lower() in text for text in used)]


def read_first(tool: str, unread: Sequence[tuple[str, str]], reader: str) -> str:
    """What a call made before reading what the request names is told instead of running."""
    names = ", ".join(value[:80] for _, value in unread[:3])
    return (
        f"Not run: the request names {names}, which nothing has read yet. Read it first with {reader}, then call "
        f"{tool} with what it says."
    )
