"""`/cron`: the skills in memory with their trigger, whether they are enabled, and how their last run went.

With the skill scheduler running, each line also says when the skill runs next and whether it is backing off
after failures (`SkillScheduler.describe` adds those fields); the formatting below is pure.
"""

from __future__ import annotations

import json
from typing import Any

from orchestrator.commands._helpers import data_of
from orchestrator.commands.registry import CommandContext, command
from shared.text import clip

LIST_TOOL = "memory_list_skills"
MAX_LISTED = 40


def trigger_text(skill: dict[str, Any]) -> str:
    kind = str(skill.get("trigger_type") or "manual")
    config = skill.get("trigger_config")
    if isinstance(config, dict):
        for key in ("schedule", "cron", "expression", "interval_minutes", "in_minutes", "at", "event"):
            if config.get(key) not in (None, ""):
                return f"{kind} {config[key]}" + (" min" if key.endswith("minutes") else "")
    return f"{kind} {clip(json.dumps(config), 40)}" if config else kind


def _minute(moment: Any) -> str:
    """`2026-03-02T09:00:00+00:00` or `2026-03-02 09:00:00` → `2026-03-02 09:00` (times are UTC)."""
    return str(moment or "")[:16].replace("T", " ")


def skill_line(skill: dict[str, Any]) -> str:
    mark = "on " if skill.get("enabled") else "off"
    last = skill.get("last_run_status")
    when = str(skill.get("last_run_at") or "")[:16].replace("T", " ")
    ran = f"last {last} {when}".rstrip() if last else "never run"
    failures = int(skill.get("consecutive_failures") or 0)
    if failures:
        ran += f", {failures} failure(s) in a row"
    if skill.get("backing_off"):
        ran += f", backing off until {_minute(skill.get('backoff_until'))}"
    if skill.get("next_run_at"):
        ran += f", next {_minute(skill['next_run_at'])} UTC"
    elif skill.get("enabled") and skill.get("next_run_reason") and skill.get("trigger_type") == "cron":
        ran += f", {skill['next_run_reason']}"
    agent = skill.get("agent_id")
    owner = f" @{agent}" if agent else ""
    return clip(f"[{mark}] #{skill.get('id')} {skill.get('name')}{owner} — {trigger_text(skill)} — {ran}", 200)


def format_skills(skills: list[dict[str, Any]]) -> str:
    """The `/cron` answer: a count, then one line per skill, enabled ones first (pure)."""
    if not skills:
        return "No skills yet. Ask the assistant to create one (e.g. 'remind me every morning at 8 to ...')."
    enabled = sum(1 for s in skills if s.get("enabled"))
    ordered = sorted(skills, key=lambda s: (not s.get("enabled"), str(s.get("name", "")).lower()))
    lines = [f"Skills: {len(skills)} ({enabled} enabled)"]
    lines.extend(skill_line(skill) for skill in ordered[:MAX_LISTED])
    if len(ordered) > MAX_LISTED:
        lines.append(f"… and {len(ordered) - MAX_LISTED} more (memory_list_skills lists them all).")
    return "\n".join(lines)


async def list_skills(ctx: CommandContext) -> list[dict[str, Any]]:
    data = data_of(
        await ctx.hub.call(LIST_TOOL, {"agent_id": "*", "detail": "full"}, caller=ctx.caller), "the skills (Memorizer)"
    )
    return list((data or {}).get("skills") or [])


@command("cron", "Scheduled skills: trigger, enabled, last run, next run, backoff")
async def cron_command(ctx: CommandContext, args: str) -> str:
    skills = await list_skills(ctx)
    scheduler = getattr(ctx.hub, "skills", None)  # absent in hubs without a skill scheduler (and in fakes)
    if scheduler is not None:
        skills = [scheduler.describe(skill) for skill in skills]
    return format_skills(skills)
