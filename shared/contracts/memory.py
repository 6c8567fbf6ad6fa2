"""What the Memorizer stores that other parts write or read: fact categories and the fields of a skill.

The Memorizer defines its tools with these; the hub's skill normaliser, file sync and scheduler send them; the
Thinker's fact extraction and `store_fact` use the categories.
"""

from __future__ import annotations

from typing import Literal, get_args

FactCategory = Literal["preference", "background", "pattern", "project", "contact", "decision"]
FACT_CATEGORIES: tuple[str, ...] = get_args(FactCategory)

SKILL_AUTHORED_FIELDS: tuple[str, ...] = (
    "name",
    "description",
    "trigger_type",
    "trigger_config",
    "instructions",
    "required_tools",
    "execution_plan",
    "max_steps",
    "notify_on_completion",
)
"""What the author of a skill writes down (a SKILL.md file, a shipped seed): the hub keeps these in step with it."""
SKILL_DEFINITION_FIELDS: tuple[str, ...] = (
    *SKILL_AUTHORED_FIELDS,
    "notify_interval_minutes",
    "max_tokens_per_run",
    "daily_tokens",
)
"""What a skill says it does and when: written by whoever creates or edits it."""
SKILL_STATE_FIELDS: tuple[str, ...] = (
    "enabled",
    "last_run_at",
    "last_run_status",
    "last_run_summary",
    "last_notified_at",
    "consecutive_failures",
    "backoff_until",
    "last_error",
)
"""How a skill stands: switched by its owner, kept up to date by the scheduler after each run."""
TIMING_DAYS = 'DAYS: "day", "weekday", "weekend", a weekday name or a list of them, or "month" with "day": N'
"""What `every` takes in a skill's plain timing ({"every": DAYS, "time": "HH:MM"}), said once for the tool
description, the reminder playbook and the refusal of a cron skill without a time."""

SKILL_JSON_FIELDS = frozenset({"trigger_config", "required_tools", "execution_plan"})
"""Stored as JSON text: structured values on the wire."""

__all__ = [
    "FACT_CATEGORIES",
    "SKILL_AUTHORED_FIELDS",
    "SKILL_DEFINITION_FIELDS",
    "SKILL_JSON_FIELDS",
    "SKILL_STATE_FIELDS",
    "FactCategory",
]
