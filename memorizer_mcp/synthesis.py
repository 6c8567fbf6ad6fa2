"""Fact synthesis for one category: the prompt, and turning the model's answer into a checked plan. Pure.

The model sees the category's oldest facts with their ids and proposes actions: `merge` (keep one fact with
merged text, delete the others), `delete` (stale or contradicted) or `update` (clearer text). Every id must be
one of the facts it was shown, which all belong to the calling agent; actions naming others are dropped, as are
actions on facts an earlier action already deleted, and new texts that are empty or carry a secret.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from memorizer_mcp.db.connection import Row
from memorizer_mcp.llm import Message, parse_json_object
from memorizer_mcp.secret_filter import find_secret

MAX_TOKENS = 1500

SYSTEM_PROMPT = """You keep an assistant's memory about its user tidy. You get the facts of one category, each with
its id, confidence and creation date, and propose changes:
- "merge": several facts say the same thing; keep the most complete one (keep_id) with one combined text
  (updated_text) and delete the rest (delete_ids).
- "update": a fact is unclear or superseded by a newer one; give its new text (new_text) and a reason.
- "delete": a fact is stale, temporary or contradicted by a newer fact; give a reason.
Leave clear, unique facts alone. Use only ids from the list. Never put passwords, keys or tokens in a text.

Answer with one JSON object and nothing else:
{"actions": [{"type": "merge", "keep_id": 1, "delete_ids": [2], "updated_text": "..."},
             {"type": "update", "fact_id": 3, "new_text": "...", "reason": "..."},
             {"type": "delete", "fact_id": 4, "reason": "..."}],
 "summary": "one sentence on what changed"}
When nothing needs changing: {"actions": [], "summary": "All facts are clean"}"""


def build_messages(category: str, facts: list[Row]) -> list[Message]:
    listing = "\n".join(
        f"[{row['id']}] {json.dumps(row['fact'], ensure_ascii=False)} (confidence {row['confidence']}, created {row['created_at']})"
        for row in facts
    )
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Category: {category}\nFacts:\n{listing}"},
    ]


@dataclass
class Plan:
    """What to change, already checked: texts to set per id, ids to delete, and what was refused."""

    updates: dict[int, str] = field(default_factory=dict)
    deletes: set[int] = field(default_factory=set)
    merged_into: dict[int, int] = field(default_factory=dict)
    """Deleted by a merge: the fact it was merged into (which takes over its history)."""
    merges: int = 0
    dropped: list[str] = field(default_factory=list)
    summary: str = ""

    @property
    def empty(self) -> bool:
        return not self.updates and not self.deletes


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def plan_actions(answer: str, known_ids: set[int]) -> Plan | None:
    """The checked plan, or None when the answer is not the JSON asked for."""
    data = parse_json_object(answer)
    if data is None or not isinstance(data.get("actions"), list):
        return None
    plan = Plan(summary=str(data.get("summary") or "")[:500])

    def usable(fact_id: int | None, what: str) -> bool:
        if fact_id is None or fact_id not in known_ids:
            plan.dropped.append(f"{what}: id {fact_id!r} is not one of the facts shown")
            return False
        if fact_id in plan.deletes:
            plan.dropped.append(f"{what}: fact {fact_id} was already deleted by an earlier action")
            return False
        return True

    def safe(text: str | None, what: str) -> bool:
        if text is None:
            plan.dropped.append(f"{what}: no text given")
            return False
        kind = find_secret(text)
        if kind is not None:
            plan.dropped.append(f"{what}: the new text looks like it contains a {kind}")
            return False
        return True

    for action in data["actions"]:
        if not isinstance(action, dict):
            continue
        kind = action.get("type")
        if kind == "merge":
            keep, text = _int(action.get("keep_id")), _text(action.get("updated_text"))
            raw_deletes = action.get("delete_ids")
            deletes = [d for d in map(_int, raw_deletes if isinstance(raw_deletes, list) else []) if d is not None]
            if not usable(keep, "merge") or not safe(text, "merge"):
                continue
            assert keep is not None and text is not None
            plan.updates[keep] = text
            for duplicate in deletes:
                if duplicate != keep and duplicate in known_ids:
                    plan.deletes.add(duplicate)
                    plan.merged_into[duplicate] = keep
                    plan.updates.pop(duplicate, None)
            plan.merges += 1
        elif kind == "update":
            fact_id, text = _int(action.get("fact_id")), _text(action.get("new_text"))
            if usable(fact_id, "update") and safe(text, "update"):
                assert fact_id is not None and text is not None
                plan.updates[fact_id] = text
        elif kind == "delete":
            fact_id = _int(action.get("fact_id"))
            if usable(fact_id, "delete"):
                assert fact_id is not None
                plan.deletes.add(fact_id)
                plan.merged_into.pop(fact_id, None)
                plan.updates.pop(fact_id, None)
        else:
            plan.dropped.append(f"unknown action type {kind!r}")
    return plan
