"""Typed values in a message and the tools that take them: evidence that reads no language. Pure, no I/O.

A message that names a file (`agenda.md`), a web address or an e-mail address says, in any language, that a tool
taking such a value is wanted: a file name points at the tools with a required path, a web address at those with
a required URL, an e-mail address at those that take one. The tools are found from their own input schemas (the
names and descriptions of their required parameters), so the rule holds for any MCP's tools, not only this
project's. The encoders read "save them to agenda.md" as "save them", the file name being noise to them.

A value the message names is mostly one that already exists, and what the user wants done with it needs its
content first: "put the visit in stairlift-letter.txt in our calendar", "email the list in camp-packing.txt to
Jo", "mark Flat 2B as paid in rents-2026.txt". So each kind also has its reader, the tool that takes only such a
value and reads it (`read_file(path)`, `web_fetch(url)`), offered whenever the message names one (`readers`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from thinker.selection._text import name_words, words
from thinker.selection._types import ToolInfo

KINDS: tuple[str, ...] = ("url", "email", "path")

_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
# A file name: a word, a dot and a common document, data, media, archive or code extension. Domains (`.com`,
# `.io`) are not file names; a web address or an e-mail address is removed before this is looked for.
_FILE = re.compile(
    r"(?<![\w@.])[\w\-/~]+\.(?:txt|md|markdown|csv|tsv|json|ya?ml|xml|html?|pdf|docx?|xlsx?|odt|ods|pptx?|rtf|log|ini"
    r"|cfg|conf|toml|jpe?g|png|gif|webp|svg|heic|mp3|wav|ogg|m4a|mp4|mov|zip|tar|gz|7z|rar|py|js|ts|sh|sql|ics"
    r"|vcf|bak|tmp)\b",
    re.IGNORECASE,
)

_ACCEPTS: Mapping[str, frozenset[str]] = {
    # Words of a required parameter's name or description that say it takes the kind of value. An e-mail
    # address is wanted by a recipient or an `email` parameter, not by every parameter whose description says
    # "email" (`message_id`: "The email's id").
    "url": frozenset({"url", "urls", "http", "https"}),
    "email": frozenset({"recipient", "recipients", "e-mail address", "email address"}),
    "path": frozenset({"path", "paths", "filename", "filepath"}),
}
_EMAIL_PARAMETERS = frozenset({"email", "emails", "to", "cc", "bcc"})
_READ_VERBS = frozenset({"read", "fetch", "get", "open", "view"})


def typed_values(text: str) -> frozenset[str]:
    """The kinds of typed value `text` contains (`url`, `email`, `path`)."""
    found = {kind for kind, _ in named_values(text)}
    if _EMAIL.search(_URL.sub(" ", text)):
        found.add("email")
    return frozenset(found)


def named_values(text: str) -> list[tuple[str, str]]:
    """(kind, value) for each web address and file name `text` names, in order: the values a reader reads. A web
    address or an e-mail address is taken out before file names are looked for (`https://example.org/a.pdf` is a link)."""
    found = [("url", match.group(0).rstrip(".,;:!?)]}'\"")) for match in _URL.finditer(text)]
    rest = _EMAIL.sub(" ", _URL.sub(" ", text))
    found += [("path", match.group(0)) for match in _FILE.finditer(rest)]
    return list(dict.fromkeys(found))


def accepted_kinds(tool: ToolInfo) -> frozenset[str]:
    """The kinds of typed value one of the tool's required parameters takes, read from its schema."""
    properties = tool.input_schema.get("properties")
    required = tool.input_schema.get("required")
    if not isinstance(properties, Mapping) or not isinstance(required, Sequence):
        return frozenset()
    kinds = set()
    for name in required:
        spec = properties.get(name) if isinstance(name, str) else None
        if not isinstance(spec, Mapping):
            continue
        description = spec.get("description")
        text = description.lower() if isinstance(description, str) else ""
        said = {*words(name), *words(text)}
        said.update(phrase for phrase in ("e-mail address", "email address") if phrase in text)
        if name.lower() in _EMAIL_PARAMETERS:
            kinds.add("email")
        kinds.update(kind for kind, marks in _ACCEPTS.items() if said & marks)
    return frozenset(kinds)


def acceptance(tools: Sequence[ToolInfo]) -> dict[str, np.ndarray]:
    """Kind → a mask over `tools` of those that take it."""
    accepted = [accepted_kinds(tool) for tool in tools]
    return {kind: np.array([kind in kinds for kinds in accepted], dtype=bool) for kind in KINDS}


def typed_evidence(text: str, accepts: Mapping[str, np.ndarray], size: int) -> np.ndarray:
    """1.0 for each tool that takes a kind of value `text` contains, else 0."""
    out = np.zeros(size, dtype=np.float64)
    for kind in typed_values(text):
        mask = accepts.get(kind)
        if mask is not None:
            out[mask] = 1.0
    return out


def readers(tools: Sequence[ToolInfo]) -> dict[str, int]:
    """Kind → index of its reader: a tool whose only required parameter takes the kind and whose name reads
    (`read`, `fetch`, `get`, `open`, `view`). A kind with several such tools has none: which to offer would be a
    guess."""
    found: dict[str, list[int]] = {kind: [] for kind in KINDS}
    for index, tool in enumerate(tools):
        required = tool.input_schema.get("required")
        if not isinstance(required, Sequence) or len(required) != 1:
            continue
        if not _READ_VERBS & set(name_words(tool.name, tool.mcp)):
            continue
        for kind in accepted_kinds(tool):
            found[kind].append(index)
    return {kind: indices[0] for kind, indices in found.items() if len(indices) == 1}
