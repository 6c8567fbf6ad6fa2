"""Playbook matching and the strict tool set of a skill. Pure, no I/O."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from thinker.selection._types import Playbook, Selection


@lru_cache(maxsize=1024)
def _keyword_pattern(keyword: str) -> re.Pattern[str] | None:
    keyword = " ".join(keyword.split())
    if not keyword:
        return None
    # \b only where the keyword starts or ends with a word character: "c++" or "'s email" still match.
    start = r"\b" if re.match(r"\w", keyword) else ""
    end = r"\b" if re.search(r"\w$", keyword) else ""
    body = r"\s+".join(re.escape(part) for part in keyword.split(" "))
    return re.compile(start + body + end, re.IGNORECASE)


def playbook_matches(message: str, playbook: Playbook) -> bool:
    """Whether any of the playbook's keywords occurs in the message as whole words (any case, any spacing)."""
    for keyword in playbook.keywords:
        pattern = _keyword_pattern(keyword)
        if pattern is not None and pattern.search(message):
            return True
    return False


def match_playbooks(message: str, playbooks: Sequence[Playbook]) -> list[Playbook]:
    """The playbooks whose keywords the message contains, highest priority first (then by name)."""
    matched = [playbook for playbook in playbooks if playbook_matches(message, playbook)]
    return sorted(matched, key=lambda p: (-p.priority, p.name))


def required_selection(required: Sequence[str], available: Collection[str]) -> Selection:
    """A skill's strict sandbox: exactly its required tools that exist, in its order, nothing else.

    No core tools and no meta-tools: a skill that declares three tools runs with three tools. Names that do not
    exist are left out (the caller reports them); duplicates count once.
    """
    names: list[str] = []
    for name in required:
        if name in available and name not in names:
            names.append(name)
    return Selection(names=tuple(names), method="required")
