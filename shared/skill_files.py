"""SKILL.md files: `$ANNABELLE_HOME/skills/<dir>/SKILL.md` in the agentskills.io format, with Annabelle's extensions.

Shared because two processes read them: the Thinker turns files with keywords into playbooks (and lists the others
as `<available_skills>`); the Orchestrator syncs files with a `trigger_config` into Memorizer as scheduled skills.

Format: YAML frontmatter between `---` lines, then the instructions (Markdown body).

    ---
    name: news-digest                      # defaults to the folder name
    description: Three AI headlines        # required by agentskills.io
    allowed-tools: [searcher_news_search]  # agentskills.io; kept for reference
    metadata:
      keywords: [ai news, headlines]       # playbook keywords (list or "a, b")
      priority: 5                          # playbook order, higher first (default 10)
      required_tools: [searcher_news_search]
      trigger_config:                      # makes it a scheduled skill (one of schedule/interval_minutes/at)
        schedule: "0 */3 * * *"
        timezone: Europe/Berlin
      max_steps: 5                         # 1-100
      notify_on_completion: true
      execution_plan:                      # direct tier: one step, inline maps
        - {toolName: telegram_send_message, parameters: {message: "hi"}}
    ---

The frontmatter is read by `parse_frontmatter`, a small reader of the YAML subset these files use (no PyYAML in
the dependencies). Every error names the file and the field, so a user who edits a file sees what to fix.
Checking that a cron expression fires or a tool exists is left to the Orchestrator (it knows the tools and owns
croniter); here only the shape is checked.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "FrontmatterError",
    "SkillFile",
    "load_skill_files",
    "parse_frontmatter",
    "parse_skill_file",
    "read_skill_file",
]

log = logging.getLogger(__name__)


class FrontmatterError(ValueError):
    """The frontmatter is not the YAML subset SKILL.md files use; the message names the line."""


@dataclass
class _Line:
    number: int
    indent: int
    text: str


def _scalar(raw: str) -> Any:
    text = raw.strip()
    if not text:
        return None
    if text[0] == '"' and text[-1] == '"' and len(text) >= 2:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text[1:-1]
    if text[0] == "'" and text[-1] == "'" and len(text) >= 2:
        return text[1:-1].replace("''", "'")
    if text[0] == "[" and text[-1] == "]":
        return [_scalar(part) for part in _split_inline(text[1:-1]) if part.strip()]
    if text[0] == "{" and text[-1] == "}":
        pairs = [part.split(":", 1) for part in _split_inline(text[1:-1]) if ":" in part]
        return {key.strip().strip("\"'"): _scalar(value) for key, value in pairs}
    lowered = text.lower()
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    if lowered in ("null", "~"):
        return None
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?\d*\.\d+", text):
        return float(text)
    return re.sub(r"\s+#.*$", "", text)


def _split_inline(text: str) -> list[str]:
    """Split `a, "b, c", [d, e]` on top-level commas."""
    parts: list[str] = []
    current: list[str] = []
    depth, quote = 0, ""
    for char in text:
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts


def _block(lines: list[_Line], start: int, indent: int) -> tuple[Any, int]:
    if start < len(lines) and lines[start].indent == indent and lines[start].text.startswith("- "):
        return _list(lines, start, indent)
    return _mapping(lines, start, indent)


def _list(lines: list[_Line], index: int, indent: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    while index < len(lines) and lines[index].indent == indent and lines[index].text.startswith("- "):
        items.append(_scalar(lines[index].text[2:]))
        index += 1
    return items, index


def _mapping(lines: list[_Line], index: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while index < len(lines) and lines[index].indent >= indent:
        line = lines[index]
        if line.indent > indent:
            raise FrontmatterError(f"line {line.number}: unexpected indentation")
        key, sep, rest = line.text.partition(":")
        if not sep or not key.strip():
            raise FrontmatterError(f"line {line.number}: expected `key: value`, got {line.text!r}")
        key, rest = key.strip(), rest.strip()
        index += 1
        if rest in ("|", ">", "|-", ">-"):
            block: list[str] = []
            while index < len(lines) and lines[index].indent > indent:
                block.append(lines[index].text)
                index += 1
            out[key] = ("\n" if rest.startswith("|") else " ").join(block)
        elif rest:
            out[key] = _scalar(rest)
        elif index < len(lines) and lines[index].indent > indent:
            out[key], index = _block(lines, index, lines[index].indent)
        elif index < len(lines) and lines[index].indent == indent and lines[index].text.startswith("- "):
            # YAML allows a list at the key's own indentation.
            out[key], index = _list(lines, index, indent)
        else:
            out[key] = None
    return out, index


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body) of a Markdown file; no frontmatter gives ({}, text).

    Supported: `key: value` mappings nested by indentation, `- item` lists, inline `[a, b]` lists and
    `{a: 1}` maps, quoted strings, numbers, booleans, null, `|`/`>` block strings, `#` comments.
    """
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise FrontmatterError("the frontmatter opened with --- is never closed") from None
    parsed: list[_Line] = []
    for number, raw in enumerate(lines[1:end], start=2):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise FrontmatterError(f"line {number}: indent with spaces, not tabs")
        parsed.append(_Line(number, len(raw) - len(raw.lstrip()), raw.strip()))
    data, _ = _mapping(parsed, 0, 0) if parsed else ({}, 0)
    return data, "\n".join(lines[end + 1 :]).strip()


# -- SKILL.md fields -------------------------------------------------------------------------------------------

_SCHEDULE_KEYS = ("schedule", "interval_minutes", "at")
_TRIGGER_KEYS = frozenset({"schedule", "interval_minutes", "at", "timezone"})
TRUE_WORDS = frozenset({"true", "yes", "1", "on"})
FALSE_WORDS = frozenset({"false", "no", "0", "off"})
"""How a yes/no is written, in a SKILL.md and in a model's skill arguments (orchestrator/skills/coerce.py)."""


@dataclass(frozen=True)
class SkillFile:
    """One `$ANNABELLE_HOME/skills/<dir>/SKILL.md`.

    `trigger_config`, `max_steps`, `execution_plan` and `notify_on_completion` are None when the file does not set
    them (the Memorizer's defaults then apply).
    """

    name: str
    description: str
    keywords: tuple[str, ...]
    priority: int
    required_tools: tuple[str, ...]
    instructions: str
    path: Path
    trigger_config: Mapping[str, Any] | None = None
    max_steps: int | None = None
    execution_plan: tuple[Mapping[str, Any], ...] | None = None
    notify_on_completion: bool | None = None
    allowed_tools: tuple[str, ...] = ()

    @property
    def dir_name(self) -> str:
        """The skill's folder: its identity (renaming `name` in the file keeps the skill)."""
        return self.path.parent.name

    @property
    def scheduled(self) -> bool:
        """Whether the file describes a scheduled skill (one that is synced to Memorizer)."""
        return self.trigger_config is not None and any(
            self.trigger_config.get(key) not in (None, "") for key in _SCHEDULE_KEYS
        )


class _Fields:
    """Checks of one file's fields; every error names the file and the field."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, field: str, problem: str) -> FrontmatterError:
        return FrontmatterError(f"{self.path}: {field} {problem}")

    def strings(self, field: str, value: Any) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            # Memorizer and hand-written files both carry "a, b" strings now and then.
            return tuple(part.strip() for part in value.split(",") if part.strip())
        if isinstance(value, list) and all(isinstance(item, str | int | float) or item is None for item in value):
            return tuple(str(item).strip() for item in value if item is not None and str(item).strip())
        raise self.error(field, f"must be a list of words or a comma-separated string, got {value!r}")

    def integer(self, field: str, value: Any, low: int | None = None, high: int | None = None) -> int:
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
            number = int(value)
        if number is None:
            raise self.error(field, f"must be a whole number, got {value!r}")
        if (low is not None and number < low) or (high is not None and number > high):
            raise self.error(field, f"must be from {low} to {high}, got {number}")
        return number

    def boolean(self, field: str, value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
            return value.strip().lower() in TRUE_WORDS
        raise self.error(field, f"must be true or false, got {value!r}")

    def trigger_config(self, value: Any) -> Mapping[str, Any] | None:
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.error("metadata.trigger_config", "must be a mapping such as {schedule: '0 9 * * *'}")
        for key in ("in_minutes", "in_hours"):
            if key in value:
                raise self.error(
                    f"metadata.trigger_config.{key}",
                    "cannot be used in a file (it would move at every sync); use at with a date-time",
                )
        unknown = sorted(set(value) - _TRIGGER_KEYS)
        if unknown:
            raise self.error(
                f"metadata.trigger_config.{unknown[0]}", "is not known; use schedule, interval_minutes, at, timezone"
            )
        present = [key for key in _SCHEDULE_KEYS if value.get(key) not in (None, "")]
        if len(present) != 1:
            raise self.error("metadata.trigger_config", "needs exactly one of schedule, interval_minutes, at")
        config = dict(value)
        for key in ("schedule", "at", "timezone"):
            if key in config and config[key] is not None and not isinstance(config[key], str):
                raise self.error(f"metadata.trigger_config.{key}", f"must be a string, got {config[key]!r}")
        if "interval_minutes" in config:
            config["interval_minutes"] = self.integer(
                "metadata.trigger_config.interval_minutes", config["interval_minutes"], low=1, high=525_600
            )
        return {key: item for key, item in config.items() if item is not None}

    def plan(self, value: Any) -> tuple[Mapping[str, Any], ...] | None:
        if value is None:
            return None
        if isinstance(value, dict):
            value = [value]
        if not isinstance(value, list) or not value:
            raise self.error("metadata.execution_plan", "must be a list of steps like {toolName: x, parameters: {}}")
        steps = []
        for number, step in enumerate(value, start=1):
            field = f"metadata.execution_plan step {number}"
            if not isinstance(step, dict):
                raise self.error(field, "must be an inline map such as {toolName: x, parameters: {message: hi}}")
            tool = step.get("toolName") or step.get("tool")
            if not isinstance(tool, str) or not tool.strip():
                raise self.error(field, "has no toolName")
            parameters = step.get("parameters", step.get("params"))
            if parameters is not None and not isinstance(parameters, dict):
                raise self.error(f"{field} parameters", "must be a map")
            out: dict[str, Any] = {"id": str(step.get("id") or f"step{number}"), "toolName": tool.strip()}
            if parameters:
                out["parameters"] = parameters
            steps.append(out)
        return tuple(steps)


def parse_skill_file(text: str, path: Path) -> SkillFile:
    """A SkillFile from the text of `path` (pure); FrontmatterError naming the file and field when it is invalid."""
    try:
        meta, body = parse_frontmatter(text)
    except FrontmatterError as exc:
        raise FrontmatterError(f"{path}: {exc}") from None
    fields = _Fields(path)
    raw_extra = meta.get("metadata")
    if raw_extra is not None and not isinstance(raw_extra, dict):
        raise fields.error("metadata", "must be a mapping of keywords, priority, required_tools, ...")
    extra: Mapping[str, Any] = raw_extra or {}
    name = str(meta.get("name") or path.parent.name).strip()
    description = str(meta.get("description") or "").strip()
    if not description:
        raise fields.error("description", "is missing (the agentskills.io format requires it)")
    priority = extra.get("priority")
    max_steps = extra.get("max_steps")
    notify = extra.get("notify_on_completion")
    return SkillFile(
        name=name,
        description=description,
        keywords=fields.strings("metadata.keywords", extra.get("keywords")),
        priority=10 if priority is None else fields.integer("metadata.priority", priority),
        required_tools=fields.strings("metadata.required_tools", extra.get("required_tools")),
        instructions=body,
        path=path,
        trigger_config=fields.trigger_config(extra.get("trigger_config")),
        max_steps=None if max_steps is None else fields.integer("metadata.max_steps", max_steps, 1, 100),
        execution_plan=fields.plan(extra.get("execution_plan")),
        notify_on_completion=None if notify is None else fields.boolean("metadata.notify_on_completion", notify),
        allowed_tools=fields.strings("allowed-tools", meta.get("allowed-tools")),
    )


def read_skill_file(path: Path) -> SkillFile:
    """Read and parse one SKILL.md; raises FrontmatterError (or OSError) with the reason."""
    return parse_skill_file(path.read_text(encoding="utf-8"), path)


def load_skill_files(skills_dir: Path) -> list[SkillFile]:
    """Every readable SKILL.md under `skills_dir/*/`; broken ones are logged and skipped."""
    found = []
    for path in sorted(skills_dir.glob("*/SKILL.md")):
        try:
            found.append(read_skill_file(path))
        except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
            log.warning("skill file skipped", extra={"path": str(path), "reason": str(exc)})
    return found
