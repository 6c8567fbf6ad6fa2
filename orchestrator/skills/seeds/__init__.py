"""The skills the project ships: 17 keyword playbooks and 7 scheduled skills, and the plan that installs them.

- `model`      the `SeedSkill` shape, its version hash, and the tools some seeds need from elsewhere
- `playbooks`  `PLAYBOOKS` (Memorizer `event` skills with keywords and priority in trigger_config)
- `scheduled`  `SCHEDULED` (agent-tier cron skills, seeded disabled) and their `QUIET_REPLIES`
- `plan`       `plan_seed`: what to store or update, never re-enabling what the user disabled
"""

from orchestrator.skills.seeds.model import SEED_SOURCE, TOOLS_FROM_ELSEWHERE, SeedSkill
from orchestrator.skills.seeds.plan import SeedUpsert, plan_seed, user_skill_conflicts
from orchestrator.skills.seeds.playbooks import PLAYBOOKS
from orchestrator.skills.seeds.scheduled import QUIET_REPLIES, SCHEDULED

SEEDS: tuple[SeedSkill, ...] = PLAYBOOKS + SCHEDULED

__all__ = [
    "PLAYBOOKS",
    "QUIET_REPLIES",
    "SCHEDULED",
    "SEEDS",
    "SEED_SOURCE",
    "TOOLS_FROM_ELSEWHERE",
    "SeedSkill",
    "SeedUpsert",
    "plan_seed",
    "user_skill_conflicts",
]
