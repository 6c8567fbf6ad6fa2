"""Repair and check `memory_store_skill` / `memory_update_skill` arguments before they reach the Memorizer. Pure.

Models write skills with predictable mistakes: the schedule at the top level instead of inside `trigger_config`,
`cronExpression` for `schedule`, "in 5 minutes" as `in_minutes`, lists and numbers as strings, a multi-step
`execution_plan` that the direct tier cannot run. Each is fixed here once, at creation, so the scheduler only ever
reads clean records; what cannot be fixed is refused with a `SkillInputError` whose sentence tells the model what to
send instead. Nothing is stored until the arguments are valid: a bad cron expression fails now, not at 3 a.m.

The fixes, in order (reference §6.5 plus the checks the original lacked):

1. `null` values dropped (a model's way of saying "not given"); `trigger_config` given as a JSON string parsed.
2. Aliases: `cronExpression|cron_expression|cron → schedule`, `intervalMinutes → interval_minutes`,
   `inMinutes|inHours → in_minutes|in_hours`, `timeZone|time_zone|tz → timezone`, at the top level and inside
   `trigger_config`.
3. Flattened `schedule/interval_minutes/timezone/at/in_minutes/in_hours` moved into `trigger_config`.
4. `in_minutes`/`in_hours` turned into an absolute `at` using the injected `now`; the plain fields (`every`, `time`,
   `day`, `in_days`: orchestrator/skills/plain_timing.py) into a cron `schedule` or an `at`.
5. Checks: exactly one of schedule/interval_minutes/at; cron parses and has a next fire time; `timezone` is an IANA
   zone; `at` parses (no offset = wall time in the skill's zone, written back with its offset) and lies ahead;
   `interval_minutes` ≥ 1.
6. `trigger_type` inferred as `cron` when there is a schedule (and a wrong one corrected, with a warning).
7. Coercions: `required_tools` string (JSON list or comma-separated) → list, `max_steps`/`notify_interval_minutes`/
   `max_tokens_per_run`/`daily_tokens`/`skill_id` strings → int, `"true"/"false"` → bool for `notify_on_completion` and `enabled`.
8. `execution_plan`: JSON string parsed, step aliases (`tool|tool_name|name → toolName`,
   `params|args|arguments → parameters`) and missing step ids fixed; old names mapped (`send_telegram →
   telegram_send_message`, ...). Safety net: more than one step → the plan is removed and its tools join
   `required_tools` (agent tier: the direct tier cannot pipe one step's result into the next).
9. Default `agent_id` `annabelle` (the original used 'thinker').
10. Tool names checked against the hub's tools (`known_tools`): unknown names are refused with the closest real
    names, or, for seeded and file skills (`on_missing_tools="disable"`), stored disabled with a warning.
11. Keys the Memorizer does not take are dropped with a warning.

Fixes 1–6 (the trigger) are `trigger_input.py`'s, the coercions of 7 `coerce.py`'s; this module runs them in
order and does the rest.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from orchestrator.skills.coerce import boolean, json_value, tool_names, whole_number
from orchestrator.skills.errors import SkillInputError
from orchestrator.skills.trigger_input import repair_trigger_config, settle_trigger_type
from shared.contracts.memory import SKILL_DEFINITION_FIELDS, SKILL_STATE_FIELDS
from shared.contracts.thinker_api import MAX_SKILL_TOKENS

__all__ = [
    "COMPAT_TOOL_NAMES",
    "DEFAULT_AGENT_ID",
    "SKILL_TOOLS",
    "NormalizedSkill",
    "normalize_skill_input",
]

DEFAULT_AGENT_ID = "annabelle"
STORE_TOOL = "memory_store_skill"
UPDATE_TOOL = "memory_update_skill"
SKILL_TOOLS = frozenset({STORE_TOOL, UPDATE_TOOL})

_STORE_FIELDS = frozenset({"agent_id", "enabled", *SKILL_DEFINITION_FIELDS})
_UPDATE_FIELDS = _STORE_FIELDS | {"skill_id", *SKILL_STATE_FIELDS}
_STEP_TOOL_KEYS = ("toolName", "tool", "tool_name", "name")
_STEP_PARAM_KEYS = ("parameters", "params", "args", "arguments")
COMPAT_TOOL_NAMES: Mapping[str, str] = {
    "send_telegram": "telegram_send_message",
    "store_fact": "memory_store_fact",
    "search_memories": "memory_retrieve_memories",
    "list_facts": "memory_list_facts",
    "retrieve_memories": "memory_retrieve_memories",
    "read_file": "filer_read_file",
    "create_file": "filer_create_file",
    "list_files": "filer_list_files",
    "web_search": "searcher_web_search",
    "news_search": "searcher_news_search",
}
"""Unprefixed names models (and the original's direct tier) use, and the routed tool each means."""
_BOUNDED_INTEGERS: tuple[tuple[str, int, int], ...] = (
    ("max_steps", 1, 100),
    ("notify_interval_minutes", 0, 525_600),
    ("max_tokens_per_run", 0, MAX_SKILL_TOKENS),
    ("daily_tokens", 0, MAX_SKILL_TOKENS),
)
_LOWEST = {"skill_id": 1, "consecutive_failures": 0}


@dataclass(frozen=True)
class NormalizedSkill:
    """Arguments the Memorizer accepts, plus what was changed or doubted on the way.

    `warnings` go back to the model with the result (so it learns what was fixed); `missing_tools` are the
    required/plan tools the hub does not have (only with `on_missing_tools="disable"`; the skill is then disabled).
    """

    args: dict[str, Any]
    warnings: tuple[str, ...] = ()
    tier: Literal["direct", "agent"] | None = None
    missing_tools: tuple[str, ...] = ()


# -- fields ----------------------------------------------------------------------------------------------------


def _compat(names: list[str], warnings: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        real = COMPAT_TOOL_NAMES.get(name, name)
        if real != name:
            warnings.append(f"Tool '{name}' is called '{real}' here; stored as '{real}'.")
        if real not in out:
            out.append(real)
    return out


def _coerce_fields(out: dict[str, Any], warnings: list[str]) -> None:
    """Fix 7 and the default agent (9): lists, numbers and booleans as the Memorizer stores them."""
    if "required_tools" in out:
        out["required_tools"] = _compat(tool_names("required_tools", out["required_tools"]), warnings)
    for field, low, high in _BOUNDED_INTEGERS:
        if field in out:
            out[field] = whole_number(field, out[field], low, high)
    for field, low in _LOWEST.items():
        if field in out:
            out[field] = whole_number(field, out[field], low=low)
    for field in ("notify_on_completion", "enabled"):
        if field in out:
            out[field] = boolean(field, out[field])
    for field in ("name", "instructions", "description"):
        if isinstance(out.get(field), str):
            out[field] = out[field].strip()
    out["agent_id"] = str(out.get("agent_id") or DEFAULT_AGENT_ID).strip() or DEFAULT_AGENT_ID


def _check_required(out: Mapping[str, Any], creating: bool) -> None:
    if creating:
        if not out.get("name"):
            raise SkillInputError("name is required: a short unique name such as 'Morning Briefing'.")
        if not out.get("instructions"):
            raise SkillInputError(
                "instructions are required: say in plain language what the skill does, or give an execution_plan."
            )
    elif "skill_id" not in out:
        raise SkillInputError("skill_id is required to update a skill; find it with memory_list_skills.")


def _drop_unknown_fields(out: dict[str, Any], creating: bool, warnings: list[str]) -> None:
    allowed = _STORE_FIELDS if creating else _UPDATE_FIELDS
    dropped = sorted(set(out) - allowed)
    for key in dropped:
        del out[key]
    if dropped:
        warnings.append(f"Ignored fields the skill store does not have: {', '.join(dropped)}.")
    if not creating and set(out) <= {"skill_id", "agent_id"}:
        raise SkillInputError("Nothing to update: give at least one field besides skill_id.")


# -- execution plan --------------------------------------------------------------------------------------------


def _plan(raw: Any, warnings: list[str]) -> list[dict[str, Any]] | None:
    if isinstance(raw, str):
        raw = json_value("execution_plan", raw.strip(), list) if raw.strip() else None
    if isinstance(raw, dict):
        raw = [raw]
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise SkillInputError('execution_plan must be a list of steps such as [{"toolName": "...", "parameters": {}}].')
    steps: list[dict[str, Any]] = []
    for index, item in enumerate(raw, start=1):
        if not isinstance(item, dict):
            raise SkillInputError(f"execution_plan step {index} must be an object with toolName and parameters.")
        tool = next(
            (item[key] for key in _STEP_TOOL_KEYS if isinstance(item.get(key), str) and item[key].strip()), None
        )
        if tool is None:
            raise SkillInputError(f"execution_plan step {index} has no toolName; name the tool it calls.")
        params = next((item[key] for key in _STEP_PARAM_KEYS if item.get(key) is not None), None)
        if isinstance(params, str):
            params = json_value(f"execution_plan step {index} parameters", params.strip(), dict)
        if params is not None and not isinstance(params, dict):
            raise SkillInputError(f"execution_plan step {index} parameters must be an object.")
        step: dict[str, Any] = {"id": str(item.get("id") or f"step{index}"), "toolName": tool.strip()}
        if params:
            step["parameters"] = params
        depends = item.get("dependsOn")
        if depends:
            step["dependsOn"] = [str(d) for d in depends] if isinstance(depends, list) else [str(depends)]
        steps.append(step)
    for step in steps:
        real = COMPAT_TOOL_NAMES.get(step["toolName"], step["toolName"])
        if real != step["toolName"]:
            warnings.append(f"Tool '{step['toolName']}' is called '{real}' here; stored as '{real}'.")
            step["toolName"] = real
    return steps or None


def _describe_steps(steps: list[dict[str, Any]]) -> str:
    if len(steps) == 1:
        params = json.dumps(steps[0].get("parameters") or {}, ensure_ascii=False)
        return f"Call {steps[0]['toolName']} with {params}."
    lines = ["Do these steps in order, using each step's result where the next one needs it:"]
    for number, step in enumerate(steps, start=1):
        params = json.dumps(step.get("parameters") or {}, ensure_ascii=False)
        lines.append(f"{number}. Call {step['toolName']} with {params}.")
    return "\n".join(lines)


def _settle_plan(out: dict[str, Any], warnings: list[str]) -> Literal["direct", "agent"] | None:
    """Fix 8: the plan kept for the direct tier (one step) or turned into an agent skill (several); the tier."""
    plan = _plan(out.pop("execution_plan", None), warnings)
    if plan is not None and len(plan) > 1:
        merged = list(out.get("required_tools") or [])
        for step in plan:
            if step["toolName"] not in merged:
                merged.append(step["toolName"])
        out["required_tools"] = merged
        if not out.get("instructions"):
            out["instructions"] = _describe_steps(plan)
        warnings.append(
            f"The execution_plan had {len(plan)} steps; the direct tier cannot pass one step's result to the next, "
            f"so the skill runs as an agent skill with required_tools {', '.join(merged)} and the plan was removed."
        )
        return "agent"
    if plan is not None:
        out["execution_plan"] = plan
        if not out.get("instructions"):
            out["instructions"] = _describe_steps(plan)
        return "direct"
    return "agent" if out.get("trigger_type") in ("cron", "manual") else None


# -- tools -----------------------------------------------------------------------------------------------------


def _missing_tools(
    out: dict[str, Any],
    known_tools: Collection[str] | None,
    on_missing_tools: Literal["reject", "disable"],
    warnings: list[str],
) -> list[str]:
    """Fix 10: the required and plan tools the hub does not have (refused, or the skill stored disabled)."""
    if known_tools is None:
        return []
    wanted = list(out.get("required_tools") or []) + [s["toolName"] for s in out.get("execution_plan") or []]
    missing = sorted({name for name in wanted if name not in known_tools})
    if missing and on_missing_tools == "reject":
        raise SkillInputError(_unknown_tools_message(missing, known_tools))
    if missing:
        out["enabled"] = False
        warnings.append(f"Stored disabled: these tools are not available yet: {', '.join(missing)}.")
    return missing


def _unknown_tools_message(unknown: list[str], known: Collection[str]) -> str:
    hints = []
    for name in unknown:
        close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.5)
        hints.append(f"'{name}' (closest: {', '.join(close)})" if close else f"'{name}'")
    return (
        f"Unknown tools: {'; '.join(hints)}. Use exact names from get_tool_catalog and call again; nothing was stored."
    )


# -- entry point -----------------------------------------------------------------------------------------------


def normalize_skill_input(
    tool: str,
    args: Mapping[str, Any],
    *,
    now: datetime,
    default_tz: str,
    known_tools: Collection[str] | None = None,
    on_missing_tools: Literal["reject", "disable"] = "reject",
    current_trigger_config: Mapping[str, Any] | None = None,
) -> NormalizedSkill:
    """Fixed, checked arguments for `tool` (memory_store_skill or memory_update_skill), or SkillInputError.

    `now` (aware) anchors in_minutes/in_hours and the "at is in the future" check; `default_tz` is
    ANNABELLE_TIMEZONE, the zone of a schedule or `at` that names none. With `known_tools` (the hub's routable
    tools), unknown required/plan tools are refused (`on_missing_tools="reject"`, for skills a model creates through
    the hub) or make the skill disabled with a warning (`"disable"`, for seeded and file skills).
    `current_trigger_config` (the stored skill's, for an update) is merged under the given one, because the
    Memorizer replaces trigger_config whole: "change the zone" must not drop the schedule.
    """
    if tool not in SKILL_TOOLS:
        raise ValueError(f"normalize_skill_input handles {sorted(SKILL_TOOLS)}, not {tool!r}")
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    creating = tool == STORE_TOOL
    warnings: list[str] = []
    out: dict[str, Any] = {key: value for key, value in dict(args).items() if value is not None}

    config = repair_trigger_config(
        out, creating=creating, now=now, default_tz=default_tz, current=current_trigger_config, warnings=warnings
    )
    if config is not None:
        out["trigger_config"] = config
    settle_trigger_type(out, config, creating, warnings)
    _coerce_fields(out, warnings)
    tier = _settle_plan(out, warnings)
    _check_required(out, creating)
    missing = _missing_tools(out, known_tools, on_missing_tools, warnings)
    _drop_unknown_fields(out, creating, warnings)
    return NormalizedSkill(out, tuple(warnings), tier, tuple(missing))
