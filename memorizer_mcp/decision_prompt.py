"""The utility model as a second opinion on "is this new fact an update of that one?". Pure.

Asked only about stored facts the rules found related but could not settle (decisions.py), at most a few per
store, and only with `MEMORY_MODEL_DECISIONS` on. The model sees the new fact and the candidates with their ids
and answers one JSON object; anything it says about ids it was not shown is ignored, and an unreadable answer
leaves the rules' verdict in place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from memorizer_mcp.decisions import Candidate, Judgement
from memorizer_mcp.llm import Message, parse_json_object

MAX_TOKENS = 200

SYSTEM_PROMPT = """You keep an assistant's memory about its user consistent. You get one NEW fact and a few STORED
facts, each with an id. For each stored fact decide what the new fact is to it:
- "same": it says the same thing (possibly in other words).
- "update": it is about the same attribute of the same person or thing and gives a new or corrected value, so
  the stored fact is no longer true (moved city, new job, new name, changed preference, corrected number).
- "different": anything else, including facts that can both be true at once.

Answer with one JSON object and nothing else: {"decisions": [{"id": 12, "relation": "update"}, ...]}"""

_VERDICTS = {"same": "duplicate", "update": "update", "different": "unrelated"}


def build_messages(new_fact: str, candidates: Sequence[Candidate]) -> list[Message]:
    stored = "\n".join(f"[{c.id}] {json.dumps(c.text, ensure_ascii=False)}" for c in candidates)
    content = f"NEW: {json.dumps(new_fact, ensure_ascii=False)}\nSTORED:\n{stored}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": content}]


def read_answer(answer: str, candidates: Sequence[Candidate]) -> dict[int, Judgement] | None:
    """id → judgement for the candidates the model decided about, or None when the answer is not the JSON asked."""
    data = parse_json_object(answer)
    items = data.get("decisions") if data is not None else None
    if not isinstance(items, list):
        return None
    known = {c.id for c in candidates}
    out: dict[int, Judgement] = {}
    for item in items:
        if not isinstance(item, dict):
            continue
        fact_id, relation = item.get("id"), item.get("relation")
        if isinstance(fact_id, int) and not isinstance(fact_id, bool) and fact_id in known and relation in _VERDICTS:
            out[fact_id] = Judgement(_VERDICTS[relation], f"the utility model says {relation}")  # type: ignore[arg-type]
    return out
