"""Compact tool schemas: what the model is shown of a tool, at a fraction of the tokens. Pure.

Every token of a tool definition is paid on every model call of a turn, and a small local model reads 1,000
prompt tokens in about 25 s on a CPU. The full descriptions and schemas stay where a reader needs them (the hub's
`/tools/list`, `get_tool_catalog`, the tool's own validation); the model gets:

- the description's first sentence, without the hub's `[Label | Group]` tag (tool selection reads the rest);
- each parameter's type and enum; the first sentence of its description for required parameters and for
  structured optional ones (objects, arrays, unions: their shape is not in their name), none for optional
  scalars (`location`, `max_results`: the name says it); no titles, defaults, lengths, patterns or bounds (the
  tool applies its defaults and validates its input, and says what was wrong when it must);
- at most `MAX_OPTIONAL` optional parameters, in the tool's own order (its author puts the common ones first);
- no optional list of objects whose shape is cut at `NESTED_DEPTH` (`execution_plan`: a list of bare
  `{"type": "object"}`): a model shown only that invents the shape, and a small one does (the 1.5B model turned
  "remind me every Monday" into a skill that mailed a made-up address every week); the tool's default applies;
- nullable parameters (`anyOf: [X, null]`) as plain X, `$ref`s inlined from `$defs`, nested objects kept to
  `NESTED_DEPTH` level (deeper ones become `{"type": "object"}` with their description);
- no parameters that are not the model's to set (`HIDDEN_PARAMETERS`: the agent id, which the Thinker fills, and
  a memory write's provenance, which the hub decides from the turn's taint);
- no optional parameter its tool marks as for configuring by hand (`x-advanced`, `shared.contracts.hub_api`):
  shown a skill's token limits and tool allow-list, the 1.5B model filled them in three of eight new reminders
  (`max_tokens_per_run: 50`, `required_tools: ["gmail"]`), which refused the call or would have starved the run.

The arguments the model sends are still checked against the tool's real schema (`normalize.py`, the hub), which
also coerces the usual near-misses ("5" for 5) and drops nulls.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from shared.contracts.hub_api import ADVANCED

JsonSchema = dict[str, Any]

HIDDEN_PARAMETERS = frozenset({"agent_id", "provenance"})
"""Never shown to the model, and dropped when it sends them anyway (`normalize.normalize_arguments`): the agent id
is the Thinker's own; a memory write's provenance is decided by the hub (`untrusted` in a tainted turn, else the
owner's). Shown `provenance`, the 1.5B model stored the owner's correction as "system" and could then not
change the owner's fact it corrected."""

NESTED_DEPTH = 1
"""Object levels below the parameters that keep their properties (an array's items count as a level)."""

MAX_OPTIONAL = 8
"""Optional parameters shown per tool (measured on typical turns: benchmarks/tokens.py)."""

_HUB_TAG = re.compile(r"^\s*\[[^\]]*\]\s*")
# A sentence ends at . ! or ? followed by a space (or the end), not inside "e.g." or "i.e." or a number like 3.5.
_SENTENCE = re.compile(r"^(.+?(?<!\be\.g)(?<!\bi\.e)[.!?])(?=\s|$)", re.DOTALL)
_KEPT = ("type", "enum", "const", "format")


def first_sentence(text: str) -> str:
    """The first sentence of a description, on one line, the hub's tag removed."""
    plain = " ".join(_HUB_TAG.sub("", text or "", count=1).split())
    match = _SENTENCE.match(plain)
    return match.group(1) if match else plain


def compact_description(description: str) -> str:
    return first_sentence(description)


def compact_schema(schema: Mapping[str, Any]) -> JsonSchema:
    """The input schema as the model sees it (see the module docstring); the input is not modified."""
    definitions = schema.get("$defs") or schema.get("definitions") or {}
    out = _object(schema, definitions if isinstance(definitions, Mapping) else {}, depth=0, top=True)
    out["type"] = "object"
    return out


def function_definition(name: str, description: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI tool definition with the compact description and schema: what the model is sent of a tool."""
    parameters = compact_schema(schema) if schema else {"type": "object", "properties": {}}
    parameters.setdefault("type", "object")
    summary = compact_description(description)
    return {"type": "function", "function": {"name": name, "description": summary, "parameters": parameters}}


def _resolve(node: Any, definitions: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> Any:
    """`node` with a top-level `$ref` replaced by its definition (cycles stop at the first repeat)."""
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen or name not in definitions:
            return {"type": "object"}
        seen = seen | {name}
        merged = {**definitions[name], **{k: v for k, v in node.items() if k != "$ref"}}
        node = merged
    return node


def _without_null(node: Mapping[str, Any], definitions: Mapping[str, Any]) -> Mapping[str, Any]:
    """`anyOf`/`oneOf` [X, null] → X (keeping the outer description); other unions stay."""
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if not isinstance(options, list):
            continue
        kept = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
        if len(kept) == 1:
            inner = _resolve(kept[0], definitions)
            rest = {k: v for k, v in node.items() if k != key}
            return {**(inner if isinstance(inner, Mapping) else {}), **rest}
        if len(kept) < len(options):
            return {**node, key: kept}
    declared = node.get("type")
    if isinstance(declared, list) and "null" in declared:
        types = [t for t in declared if t != "null"]
        return {**node, "type": types[0] if len(types) == 1 else types}
    return node


def _node(raw: Any, definitions: Mapping[str, Any], depth: int) -> JsonSchema:
    node = _without_null(_resolve(raw, definitions), definitions) if isinstance(raw, Mapping) else {}
    node = _resolve(node, definitions)
    out: JsonSchema = {key: node[key] for key in _KEPT if key in node}
    description = node.get("description")
    if isinstance(description, str) and description.strip():
        out["description"] = first_sentence(description)
    for key in ("anyOf", "oneOf"):
        options = node.get(key)
        if isinstance(options, list):
            out[key] = [_node(option, definitions, depth) for option in options]
    is_object = node.get("type") == "object" or "properties" in node
    if is_object and isinstance(node.get("properties"), Mapping):
        if depth < NESTED_DEPTH:
            out.update(_object(node, definitions, depth + 1))
        out["type"] = "object"
    items = node.get("items")
    if isinstance(items, Mapping):
        item = _node(items, definitions, depth + 1)
        if depth >= NESTED_DEPTH and item.get("type") == "object":
            item = {"type": "object"}
        out["items"] = item
    return out


def _object(node: Mapping[str, Any], definitions: Mapping[str, Any], depth: int, top: bool = False) -> JsonSchema:
    properties = node.get("properties")
    if not isinstance(properties, Mapping):
        return {"properties": {}} if top else {}
    hidden = HIDDEN_PARAMETERS if top else frozenset()
    declared = set(node.get("required") or [])
    shown: JsonSchema = {}
    optional = 0
    for name, child in properties.items():
        if name in hidden:
            continue
        compact = _node(child, definitions, depth)
        if name not in declared:
            if top and (optional >= MAX_OPTIONAL or _shapeless_list(compact) or _advanced(child)):
                continue
            optional += 1
            if not _structured(compact):
                compact.pop("description", None)
        shown[name] = compact
    out: JsonSchema = {"properties": shown}
    required = [name for name in node.get("required") or [] if name in shown]
    if required:
        out["required"] = required
    return out


def _advanced(node: Any) -> bool:
    return isinstance(node, Mapping) and node.get(ADVANCED) is True


def _shapeless_list(node: Mapping[str, Any]) -> bool:
    """A list of objects whose properties are not shown (cut at `NESTED_DEPTH`)."""
    items = node.get("items")
    return (
        node.get("type") == "array"
        and isinstance(items, Mapping)
        and items.get("type") == "object"
        and not (items.get("properties"))
    )


def _structured(node: Mapping[str, Any]) -> bool:
    return node.get("type") in ("object", "array") or "anyOf" in node or "oneOf" in node
