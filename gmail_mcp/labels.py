"""Pure label resolution: the caller may name labels ('Work', 'inbox') or give their ids ('Label_12', 'INBOX')."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


class UnknownLabels(LookupError):
    """Some names match no label; `missing` lists them."""

    def __init__(self, missing: Sequence[str], known: Sequence[str]) -> None:
        self.missing = list(missing)
        self.known = list(known)
        shown = ", ".join(self.known[:30])
        super().__init__(f"No label named {', '.join(repr(m) for m in self.missing)}. Labels: {shown}.")


def resolve_labels(wanted: Iterable[str], labels: Sequence[Mapping[str, Any]]) -> list[str]:
    """Ids for `wanted`: an exact id wins, then a case-insensitive name; raises `UnknownLabels` for the rest."""
    by_id = {str(label["id"]): str(label["id"]) for label in labels}
    by_name = {str(label.get("name", "")).casefold(): str(label["id"]) for label in labels}
    ids: list[str] = []
    missing: list[str] = []
    for item in wanted:
        key = item.strip()
        found = by_id.get(key) or by_name.get(key.casefold())
        if found is None:
            missing.append(key)
        elif found not in ids:
            ids.append(found)
    if missing:
        raise UnknownLabels(missing, [str(label.get("name", label["id"])) for label in labels])
    return ids
