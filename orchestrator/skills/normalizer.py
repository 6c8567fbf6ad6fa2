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
4. `in_minutes`/`in_hours` turned into an absolute `at` using the injected `now`.
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
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from orchestrator.skills.errors import SkillInputError, TriggerError
from orchestrator.skills.triggers import check_cron, cron_next, parse_moment, zone
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
_TRIGGER_KEYS = ("schedule", "interval_minutes", "timezone", "at", "in_minutes", "in_hours")
_KNOWN_TRIGGER_KEYS = frozenset(
    {"schedule", "interval_minutes", "timezone", "at", "keywords", "priority", "source", "seed_version"}
)
_ALIASES = {
    "cronExpression": "schedule",
    "cron_expression": "schedule",
    "cron": "schedule",
    "intervalMinutes": "interval_minutes",
    "inMinutes": "in_minutes",
    "inHours": "in_hours",
    "timeZone": "timezone",
    "time_zone": "timezone",
    "tz": "timezone",
}
_TRIGGER_TYPES = ("cron", "manual", "event")
_TRIGGER_TYPE_ALIASES = {
    "schedule": "cron",
    "scheduled": "cron",
    "interval": "cron",
    "once": "cron",
    "one-shot": "cron",
    "oneshot": "cron",
    "time": "cron",
    "keyword": "event",
    "playbook": "event",
    "on_demand": "manual",
    "on-demand": "manual",
}
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
_MAX_STEPS = (1, 100)
_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})


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


# -- small coercions -------------------------------------------------------------------------------------------


def _json(field: str, text: str, expected: type) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise SkillInputError(
            f"{field} is a string that is not valid JSON; send it as a JSON {_kind(expected)}."
        ) from None
    if not isinstance(value, expected):
        raise SkillInputError(f"{field} must be a JSON {_kind(expected)}, got {type(value).__name__}.")
    return value


def _kind(expected: type) -> str:
    return "object" if expected is dict else "list"


def _integer(field: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    number: float | None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    else:
        number = None
    if number is None or number != number or number != int(number):
        raise SkillInputError(f"{field} must be a whole number, got {value!r}.")
    result = int(number)
    if (low is not None and result < low) or (high is not None and result > high):
        bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise SkillInputError(f"{field} must be {bounds}, got {result}.")
    return result


def _positive_number(field: str, value: Any) -> float:
    try:
        number = float(value.strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or number != number or number <= 0:
        raise SkillInputError(f"{field} must be a number greater than 0, got {value!r}.")
    return number


def _boolean(field: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise SkillInputError(f"{field} must be true or false, got {value!r}.")


def _tool_list(field: str, value: Any) -> list[str]:
    if isinstance(value, str):
        text = value.strip()
        value = _json(field, text, list) if text.startswith("[") else text.split(",")
    if not isinstance(value, list | tuple):
        raise SkillInputError(f'{field} must be a list of tool names, e.g. ["gmail_list_emails"].')
    names: list[str] = []
    for item in value:
        name = str(item).strip().strip("\"'") if item is not None else ""
        if name and name not in names:
            names.append(name)
    return names


def _keywords(value: Any) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple):
        raise SkillInputError('trigger_config.keywords must be a list of words or phrases, e.g. ["inbox", "mail"].')
    words: list[str] = []
    for item in value:
        word = " ".join(str(item).split()) if item is not None else ""
        if word and word not in words:
            words.append(word)
    return words


def _compat(names: list[str], warnings: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        real = COMPAT_TOOL_NAMES.get(name, name)
        if real != name:
            warnings.append(f"Tool '{name}' is called '{real}' here; stored as '{real}'.")
        if real not in out:
            out.append(real)
    return out


def _rename(mapping: dict[str, Any], where: str, warnings: list[str]) -> None:
    for alias, key in _ALIASES.items():
        if alias not in mapping:
            continue
        value = mapping.pop(alias)
        if key in mapping and mapping[key] != value:
            warnings.append(f"Both {where}{alias} and {where}{key} were given; kept {key}.")
        else:
            mapping.setdefault(key, value)


# -- trigger_config --------------------------------------------------------------------------------------------


def _trigger_config(
    args: dict[str, Any],
    *,
    creating: bool,
    now: datetime,
    default_tz: str,
    current: Mapping[str, Any] | None,
    warnings: list[str],
) -> dict[str, Any] | None:
    raw = args.pop("trigger_config", None)
    if isinstance(raw, str):
        raw = _json("trigger_config", raw.strip(), dict) if raw.strip() else None
    if raw is not None and not isinstance(raw, dict):
        raise SkillInputError('trigger_config must be an object such as {"schedule": "0 9 * * *"}.')
    config: dict[str, Any] = {k: v for k, v in (raw or {}).items() if v is not None}
    _rename(config, "trigger_config.", warnings)
    _rename(args, "", warnings)
    moved = [key for key in _TRIGGER_KEYS if key in args]
    for key in moved:
        value = args.pop(key)
        if key in config and config[key] != value:
            warnings.append(f"{key} was given both at the top level and in trigger_config; kept trigger_config's.")
        else:
            config[key] = value
    if moved:
        warnings.append(f"Moved {', '.join(moved)} into trigger_config.")
    if raw is None and not moved:
        return None
    if current:
        # The Memorizer replaces trigger_config whole: keep what this update does not mention.
        merged = dict(current)
        if any(key in config for key in ("schedule", "interval_minutes", "at", "in_minutes", "in_hours")):
            for key in ("schedule", "interval_minutes", "at"):
                merged.pop(key, None)
        merged.update(config)
        config = merged

    zone_name = config.get("timezone")
    if zone_name is not None:
        try:
            config["timezone"] = zone(str(zone_name)).key
        except TriggerError as exc:
            raise SkillInputError(str(exc)) from None
    tz = zone(config.get("timezone") or default_tz)

    relative = [key for key in ("in_minutes", "in_hours") if key in config]
    if relative:
        minutes = sum(_positive_number(key, config.pop(key)) * (60 if key == "in_hours" else 1) for key in relative)
        if "at" in config:
            raise SkillInputError(f"trigger_config has both at and {relative[0]}; give one of them.")
        moment = (now.astimezone(tz) + timedelta(minutes=minutes)).replace(microsecond=0)
        config["at"] = moment.isoformat()
        warnings.append(f"{' and '.join(relative)} converted to at {config['at']}.")

    timing = [key for key in ("schedule", "interval_minutes", "at") if key in config]
    if len(timing) > 1:
        raise SkillInputError(
            f"trigger_config has {' and '.join(timing)}; give exactly one: schedule (cron, repeating at set times), "
            "interval_minutes (every N minutes) or at (once)."
        )
    try:
        if "schedule" in config:
            config["schedule"] = check_cron(config["schedule"])
            if cron_next(config["schedule"], tz, now) is None:
                raise SkillInputError(f"schedule {config['schedule']!r} never fires again after now.")
        if "interval_minutes" in config:
            config["interval_minutes"] = _integer("interval_minutes", config["interval_minutes"], low=1)
        if "at" in config:
            at = parse_moment(config["at"], tz)
            if at <= now:
                message = (
                    f"at {at.isoformat()} is in the past (now is {now.astimezone(tz).replace(microsecond=0).isoformat()}); "
                    "give a future time, or in_minutes/in_hours for a time relative to now."
                )
                if creating:
                    raise SkillInputError(message)
                warnings.append(message + " The skill will not fire.")
            config["at"] = at.isoformat()
    except TriggerError as exc:
        raise SkillInputError(str(exc)) from None
    for key in ("priority",):
        if key in config:
            config[key] = _integer(f"trigger_config.{key}", config[key])
    if "keywords" in config:
        config["keywords"] = _keywords(config["keywords"])
    unknown = sorted(set(config) - _KNOWN_TRIGGER_KEYS)
    if unknown:
        warnings.append(f"trigger_config keys {', '.join(unknown)} mean nothing to the scheduler and were kept as is.")
    return config


def _trigger_type(args: dict[str, Any], config: dict[str, Any] | None, creating: bool, warnings: list[str]) -> None:
    scheduled = config is not None and any(key in config for key in ("schedule", "interval_minutes", "at"))
    given = args.get("trigger_type")
    if given is not None:
        text = str(given).strip().lower()
        text = _TRIGGER_TYPE_ALIASES.get(text, text)
        if text not in _TRIGGER_TYPES:
            raise SkillInputError(
                f"trigger_type {given!r} is not one of cron (scheduled), manual (on request) or event (playbook)."
            )
        if scheduled and text != "cron":
            warnings.append(f"trigger_type was {given!r} but trigger_config has a schedule; set to 'cron'.")
            text = "cron"
        args["trigger_type"] = text
    elif scheduled:
        args["trigger_type"] = "cron"
    elif creating:
        args["trigger_type"] = "event" if config and config.get("keywords") else "manual"
    if creating and args["trigger_type"] == "cron" and not scheduled:
        raise SkillInputError(
            "A cron skill needs a schedule: trigger_config.schedule (cron, e.g. '0 9 * * *'), interval_minutes, "
            "at (ISO date-time) or in_minutes/in_hours."
        )


# -- execution plan --------------------------------------------------------------------------------------------


def _plan(raw: Any, warnings: list[str]) -> list[dict[str, Any]] | None:
    if isinstance(raw, str):
        raw = _json("execution_plan", raw.strip(), list) if raw.strip() else None
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
            params = _json(f"execution_plan step {index} parameters", params.strip(), dict)
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


# -- tools -----------------------------------------------------------------------------------------------------


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

    config = _trigger_config(
        out, creating=creating, now=now, default_tz=default_tz, current=current_trigger_config, warnings=warnings
    )
    if config is not None:
        out["trigger_config"] = config
    _trigger_type(out, config, creating, warnings)

    if "required_tools" in out:
        out["required_tools"] = _compat(_tool_list("required_tools", out["required_tools"]), warnings)
    integers = (
        ("max_steps", _MAX_STEPS),
        ("notify_interval_minutes", (0, 525_600)),
        ("max_tokens_per_run", (0, MAX_SKILL_TOKENS)),
        ("daily_tokens", (0, MAX_SKILL_TOKENS)),
    )
    for field, bounds in integers:
        if field in out:
            out[field] = _integer(field, out[field], *bounds)
    for field in ("skill_id", "consecutive_failures"):
        if field in out:
            out[field] = _integer(field, out[field], low=0 if field == "consecutive_failures" else 1)
    for field in ("notify_on_completion", "enabled"):
        if field in out:
            out[field] = _boolean(field, out[field])
    for field in ("name", "instructions", "description"):
        if isinstance(out.get(field), str):
            out[field] = out[field].strip()
    out["agent_id"] = str(out.get("agent_id") or DEFAULT_AGENT_ID).strip() or DEFAULT_AGENT_ID

    tier: Literal["direct", "agent"] | None = None
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
        tier = "agent"
    elif plan is not None:
        out["execution_plan"] = plan
        if not out.get("instructions"):
            out["instructions"] = _describe_steps(plan)
        tier = "direct"
    elif out.get("trigger_type") in ("cron", "manual"):
        tier = "agent"

    if creating:
        if not out.get("name"):
            raise SkillInputError("name is required: a short unique name such as 'Morning Briefing'.")
        if not out.get("instructions"):
            raise SkillInputError(
                "instructions are required: say in plain language what the skill does, or give an execution_plan."
            )
    elif "skill_id" not in out:
        raise SkillInputError("skill_id is required to update a skill; find it with memory_list_skills.")

    missing: list[str] = []
    if known_tools is not None:
        wanted = list(out.get("required_tools") or []) + [s["toolName"] for s in out.get("execution_plan") or []]
        missing = sorted({name for name in wanted if name not in known_tools})
        if missing and on_missing_tools == "reject":
            raise SkillInputError(_unknown_tools_message(missing, known_tools))
        if missing:
            out["enabled"] = False
            warnings.append(f"Stored disabled: these tools are not available yet: {', '.join(missing)}.")

    allowed = _STORE_FIELDS if creating else _UPDATE_FIELDS
    dropped = sorted(set(out) - allowed)
    for key in dropped:
        del out[key]
    if dropped:
        warnings.append(f"Ignored fields the skill store does not have: {', '.join(dropped)}.")
    if not creating and set(out) <= {"skill_id", "agent_id"}:
        raise SkillInputError("Nothing to update: give at least one field besides skill_id.")
    return NormalizedSkill(out, tuple(warnings), tier, tuple(missing))
