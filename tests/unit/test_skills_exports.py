"""The public surface of the skills building blocks is what the hub wiring imports: pinned here."""

from __future__ import annotations

import importlib

import pytest

EXPORTS = {
    "orchestrator.skills.triggers": [
        "AUTO_DISABLE_AFTER",
        "BACKOFF_STEPS",
        "DEFAULT_GRACE",
        "CronTrigger",
        "IntervalTrigger",
        "OneShotTrigger",
        "RunDecision",
        "Trigger",
        "backoff_after",
        "backoff_until",
        "check_cron",
        "cron_next",
        "first_due",
        "is_due",
        "missed_runs_decision",
        "next_fire",
        "parse_moment",
        "parse_trigger",
        "should_auto_disable",
        "zone",
    ],
    "orchestrator.skills.normalizer": [
        "COMPAT_TOOL_NAMES",
        "DEFAULT_AGENT_ID",
        "SKILL_TOOLS",
        "NormalizedSkill",
        "normalize_skill_input",
    ],
    "orchestrator.skills.file_sync": [
        "FILE_REMOVED_MARKER",
        "SOURCE_KEY",
        "SyncAction",
        "SyncPlan",
        "file_source",
        "plan_file_sync",
        "source_of",
    ],
    "orchestrator.skills.seeds": [
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
    ],
    "shared.skill_files": [
        "FrontmatterError",
        "SkillFile",
        "load_skill_files",
        "parse_frontmatter",
        "parse_skill_file",
        "read_skill_file",
    ],
}


@pytest.mark.parametrize("module_name", sorted(EXPORTS))
def test_each_module_exports_exactly_its_pinned_names(module_name: str):
    module = importlib.import_module(module_name)
    assert list(module.__all__) == EXPORTS[module_name]
    assert all(hasattr(module, name) for name in module.__all__)


def test_the_skills_errors_form_one_tree():
    from orchestrator.skills.errors import SkillError, SkillInputError, TriggerError

    assert issubclass(SkillInputError, SkillError) and issubclass(TriggerError, SkillError)
    assert issubclass(SkillError, ValueError)
