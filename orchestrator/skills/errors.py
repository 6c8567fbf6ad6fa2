"""Exceptions of the skills package.

    SkillError
    ├── TriggerError        a trigger_config (cron, time zone, interval, one-shot time) cannot be scheduled
    └── SkillInputError     memory_store_skill / memory_update_skill arguments that cannot be stored

Both carry a sentence a model can act on: the hub puts it in the envelope's `error` with `INVALID_ARGUMENTS`, so
the model that wrote the skill fixes the arguments and calls again.
"""

from __future__ import annotations


class SkillError(ValueError):
    """Base of every error the skills package raises on purpose."""


class TriggerError(SkillError):
    """A trigger that cannot be scheduled: the message names the field and what would be accepted."""


class SkillInputError(SkillError):
    """Skill arguments rejected at creation; nothing was stored."""
