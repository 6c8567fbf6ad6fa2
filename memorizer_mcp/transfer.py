"""Export and import formats, and the atomic file writes they use. Formatting and parsing are pure.

Export, as the original laid it out (inside the agent's export folder):
- json: `profile.json`, `facts/all-facts.json` (id, fact, category, confidence, source, source_type, provenance,
  created_at, valid_until, superseded_by: history included), `conversations/recent.json` (newest 500)
- markdown: `profile.md`, `facts/<category>.md` (one `- fact (learned <date>)` line per current fact; a fact of
  several lines continues on lines indented by two spaces; then, under "## No longer current", the history:
  `- fact (learned <date>; until <date>, replaced by fact <id>)`), `conversations/recent.md` (newest 50),
  `summary.md`

Import reads back: a JSON object (the profile), a JSON array of facts (or `{"facts": [...]}`, history kept with
its links when the facts it points to are in the file), or a `facts/<category>.md` file (its current facts: the
lines before the first `##` heading). `profile.md`, `summary.md` and conversations are for reading only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memorizer_mcp.db.connection import Row
from memorizer_mcp.facts import FACT_FIELDS
from memorizer_mcp.provenance import PROVENANCES, SOURCE_TYPES
from shared.contracts.memory import FACT_CATEGORIES
from shared.text import shorten

MAX_IMPORT_BYTES = 50 * 1024 * 1024
JSON_CONVERSATIONS = 500
MARKDOWN_CONVERSATIONS = 50
PREVIEW = 200
_LEARNED = re.compile(r"\s+\(learned [^()]*\)$")


class ImportFormatError(ValueError):
    """The file is not one import_memory understands; the message says what it expects."""


# -- export ----------------------------------------------------------------------------------------------------


def _day(stamp: str | None) -> str:
    if not stamp:
        return "never"
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    return f"{moment:%B} {moment.day}, {moment.year}"


def _title(category: str) -> str:
    return category[:1].upper() + category[1:] + "s"


def render_json(profile: dict[str, Any] | None, facts: list[Row], conversations: list[Row] | None) -> dict[str, str]:
    files = {
        "profile.json": json.dumps(profile or {}, indent=2, ensure_ascii=False),
        "facts/all-facts.json": json.dumps(
            [{key: row[key] for key in FACT_FIELDS} for row in facts],
            indent=2,
            ensure_ascii=False,
        ),
    }
    if conversations is not None:
        files["conversations/recent.json"] = json.dumps(
            [
                {key: row[key] for key in ("id", "user_message", "agent_response", "created_at")}
                for row in conversations[:JSON_CONVERSATIONS]
            ],
            indent=2,
            ensure_ascii=False,
        )
    return {path: text + "\n" for path, text in files.items()}


def _profile_markdown(profile: dict[str, Any] | None, updated: str | None) -> str:
    data = profile or {}
    lines = ["# My AI Assistant's Understanding of Me", "", f"Last updated: {_day(updated)}", ""]
    info = data.get("user_info") if isinstance(data.get("user_info"), dict) else None
    if info:
        lines.append("## Who I Am")
        for key, label in (
            ("name", "Name"),
            ("background", "Background"),
            ("timezone", "Timezone"),
            ("current_role", "Current Role"),
        ):
            if info.get(key):
                lines.append(f"- **{label}:** {info[key]}")
        lines.append("")
    prefs = data.get("preferences") if isinstance(data.get("preferences"), dict) else None
    if prefs:
        lines.append("## My Preferences")
        if prefs.get("communication"):
            lines.append(f"- **Communication:** {prefs['communication']}")
        for key, label in (("coding_languages", "Languages"), ("tools", "Tools")):
            if isinstance(prefs.get(key), list) and prefs[key]:
                lines.append(f"- **{label}:** {', '.join(map(str, prefs[key]))}")
        if prefs.get("working_style"):
            lines.append(f"- **Working Style:** {prefs['working_style']}")
        lines.append("")
    projects = data.get("current_projects")
    if isinstance(projects, list) and projects:
        lines.append("## Current Projects")
        for project in projects:
            if isinstance(project, dict):
                lines.append(f"1. **{project.get('name', '?')}** ({project.get('status', 'unknown')})")
            else:
                lines.append(f"1. {project}")
        lines.append("")
    patterns = data.get("learned_patterns")
    if isinstance(patterns, list) and patterns:
        lines.append("## Patterns the AI Has Noticed")
        lines.extend(f"- {pattern}" for pattern in patterns)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def fact_line(text: str, created_at: str | None, note: str = "") -> str:
    first, *rest = text.split("\n")
    continuation = "".join(f"\n  {line}" for line in rest)
    return f"- {first}{continuation} (learned {_day(created_at)}{note})"


def history_line(row: Row) -> str:
    replaced = f", replaced by fact {row['superseded_by']}" if row["superseded_by"] is not None else ""
    return fact_line(row["fact"], row["created_at"], f"; until {_day(row['valid_until'])}{replaced}")


def render_markdown(
    profile: dict[str, Any] | None,
    profile_updated: str | None,
    facts: list[Row],
    conversations: list[Row] | None,
    generated_at: str,
) -> dict[str, str]:
    files = {"profile.md": _profile_markdown(profile, profile_updated)}
    grouped: dict[str, list[Row]] = {}
    for row in facts:
        grouped.setdefault(row["category"], []).append(row)
    for category, rows in grouped.items():
        current = [row for row in rows if row["valid_until"] is None]
        history = [row for row in rows if row["valid_until"] is not None]
        text = f"# {_title(category)} I've Learned\n\n"
        text += "\n".join(fact_line(row["fact"], row["created_at"]) for row in current) + "\n"
        if history:
            text += "\n## No longer current\n\n" + "\n".join(history_line(row) for row in history) + "\n"
        files[f"facts/{category}.md"] = text
    if conversations:
        parts = ["# Recent Conversations", ""]
        for row in conversations[:MARKDOWN_CONVERSATIONS]:
            parts += [
                f"## {_day(row['created_at'])}",
                "",
                f"**User:** {shorten(row['user_message'], PREVIEW, '...')}",
                "",
                f"**Assistant:** {shorten(row['agent_response'], PREVIEW, '...')}",
                "",
                "---",
                "",
            ]
        files["conversations/recent.md"] = "\n".join(parts)
    summary = [
        "# Memory Summary",
        "",
        f"Generated: {generated_at} UTC",
        "",
        "## Statistics",
        "",
        f"- **Total Facts:** {sum(1 for row in facts if row['valid_until'] is None)} current, "
        f"{sum(1 for row in facts if row['valid_until'] is not None)} no longer current",
        f"- **Total Conversations:** {len(conversations or [])}",
        f"- **Profile Last Updated:** {_day(profile_updated)}",
        "",
        "## Facts by Category",
        "",
        *(
            f"- **{category}:** {sum(1 for row in rows if row['valid_until'] is None)} facts"
            for category, rows in grouped.items()
        ),
    ]
    files["summary.md"] = "\n".join(summary) + "\n"
    return files


# -- import ----------------------------------------------------------------------------------------------------


@dataclass
class ImportedFact:
    fact: str
    category: str
    confidence: float = 1.0
    created_at: str | None = None
    id: int | None = None
    """The fact's id in the file (what `superseded_by` of another entry refers to)."""
    source: str | None = None
    source_type: str | None = None
    provenance: str | None = None
    valid_until: str | None = None
    superseded_by: int | None = None

    @property
    def current(self) -> bool:
        return self.valid_until is None


@dataclass
class ImportData:
    profile: dict[str, Any] | None = None
    facts: list[ImportedFact] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _json_fact(index: int, item: Any, data: ImportData) -> None:
    if not isinstance(item, dict):
        data.skipped.append(f"entry {index}: not an object")
        return
    text, category = item.get("fact"), item.get("category")
    if not isinstance(text, str) or not text.strip():
        data.skipped.append(f"entry {index}: no fact text")
        return
    if category not in FACT_CATEGORIES:
        data.skipped.append(f"entry {index}: category {category!r} is not one of {', '.join(FACT_CATEGORIES)}")
        return
    confidence = item.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
        confidence = 1.0
    data.facts.append(
        ImportedFact(
            text.strip(),
            str(category),
            float(confidence),
            _str(item.get("created_at")),
            id=_int(item.get("id")),
            source=_str(item.get("source")),
            source_type=item.get("source_type") if item.get("source_type") in SOURCE_TYPES else None,
            provenance=item.get("provenance") if item.get("provenance") in PROVENANCES else None,
            valid_until=_str(item.get("valid_until")),
            superseded_by=_int(item.get("superseded_by")),
        )
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_markdown_facts(category: str, text: str) -> list[ImportedFact]:
    facts: list[ImportedFact] = []
    current: list[str] | None = None

    def flush() -> None:
        if current:
            body = _LEARNED.sub("", "\n".join(current)).strip()
            if body:
                facts.append(ImportedFact(body, category))

    for line in text.splitlines():
        if line.startswith("## "):
            break  # the sections after the list ("No longer current") are for reading
        if line.startswith("- "):
            flush()
            current = [line[2:]]
        elif line.startswith("  ") and current is not None:
            current.append(line[2:])
        else:
            flush()
            current = None
    flush()
    return facts


def parse_import(name: str, text: str) -> ImportData:
    """Read one import file; raises ImportFormatError saying what is expected."""
    if name.endswith(".md"):
        category = name[:-3]
        if category not in FACT_CATEGORIES:
            raise ImportFormatError(
                f"'{name}' cannot be imported: markdown import reads facts/<category>.md files "
                f"({', '.join(FACT_CATEGORIES)}); for the profile import profile.json."
            )
        return ImportData(facts=parse_markdown_facts(category, text))
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"'{name}' is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    data = ImportData()
    if isinstance(value, dict) and set(value) == {"facts"} and isinstance(value["facts"], list):
        value = value["facts"]
    if isinstance(value, list):
        for index, item in enumerate(value):
            _json_fact(index, item, data)
        return data
    if isinstance(value, dict):
        data.profile = value
        return data
    raise ImportFormatError(f"'{name}' holds neither a profile (a JSON object) nor a list of facts.")
