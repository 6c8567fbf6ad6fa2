"""The SKILL.md → Memorizer sync planner: add, change, delete, conflicts, missing tools, broken files."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from orchestrator.skills.file_sync import FILE_REMOVED_MARKER, file_source, plan_file_sync, source_of
from orchestrator.skills.normalizer import normalize_skill_input
from shared.skill_files import SkillFile

NOW = datetime(2026, 2, 14, 14, 0, tzinfo=UTC)
TZ = "Europe/Berlin"
TOOLS = frozenset({"searcher_news_search", "telegram_send_message", "memory_store_fact"})


def skill_file(dir_name: str = "news", **changes: Any) -> SkillFile:
    base = SkillFile(
        name=dir_name,
        description="AI headlines",
        keywords=(),
        priority=10,
        required_tools=("searcher_news_search",),
        instructions="Summarise three AI headlines.",
        path=Path(f"/home/u/.annabelle/skills/{dir_name}/SKILL.md"),
        trigger_config={"schedule": "0 */3 * * *"},
    )
    return replace(base, **changes)


def stored_from(plan_args: dict[str, Any], skill_id: int, **row: Any) -> dict[str, Any]:
    """A row as memory_list_skills would give it after storing `plan_args`."""
    record = {
        "id": skill_id,
        "agent_id": plan_args["agent_id"],
        "name": plan_args["name"],
        "description": plan_args.get("description"),
        "enabled": plan_args.get("enabled", True),
        "trigger_type": plan_args["trigger_type"],
        "trigger_config": plan_args.get("trigger_config"),
        "instructions": plan_args["instructions"],
        "required_tools": plan_args.get("required_tools", []),
        "execution_plan": plan_args.get("execution_plan"),
        "max_steps": plan_args.get("max_steps", 10),
        "notify_on_completion": plan_args.get("notify_on_completion", True),
        "last_error": None,
    }
    record.update(row)
    return record


def plan(files: list[SkillFile], stored: list[dict[str, Any]], **kwargs: Any):
    return plan_file_sync(files, stored, now=NOW, default_tz=TZ, known_tools=TOOLS, **kwargs)


def synced(dir_name: str = "news", skill_id: int = 1, **row: Any) -> dict[str, Any]:
    created = plan([skill_file(dir_name)], []).actions[0]
    return stored_from(created.args, skill_id, **row)


def test_a_new_scheduled_file_is_created_with_its_source_marker():
    result = plan([skill_file()], [])
    assert [a.kind for a in result.actions] == ["create"]
    action = result.actions[0]
    assert action.tool == "memory_store_skill"
    assert action.args["trigger_config"] == {"schedule": "0 */3 * * *", "source": "file:news"}
    assert action.args["trigger_type"] == "cron"
    assert action.args["agent_id"] == "annabelle"
    assert action.args["required_tools"] == ["searcher_news_search"]
    assert "enabled" not in action.args
    assert source_of(action.args) == "news"


def test_the_created_args_are_what_the_normaliser_accepts_unchanged():
    action = plan([skill_file()], []).actions[0]
    again = normalize_skill_input("memory_store_skill", action.args, now=NOW, default_tz=TZ, known_tools=TOOLS)
    assert again.args == action.args


def test_keyword_only_files_are_not_synced():
    assert plan([skill_file(trigger_config=None, keywords=("news",))], []).actions == ()


def test_an_unchanged_file_plans_nothing():
    result = plan([skill_file()], [synced()])
    assert result.actions == ()
    assert result.unchanged == ("news",)


def test_a_changed_file_updates_only_the_changed_fields():
    changed = skill_file(instructions="Five headlines now.", trigger_config={"schedule": "0 8 * * *"}, max_steps=4)
    result = plan([changed], [synced()])
    (action,) = result.actions
    assert action.kind == "update" and action.tool == "memory_update_skill"
    assert action.args == {
        "skill_id": 1,
        "agent_id": "annabelle",
        "instructions": "Five headlines now.",
        "trigger_config": {"schedule": "0 8 * * *", "source": "file:news"},
        "max_steps": 4,
    }


def test_renaming_the_skill_inside_the_file_keeps_its_identity():
    result = plan([skill_file(name="AI digest")], [synced()])
    (action,) = result.actions
    assert action.args["name"] == "AI digest" and action.args["skill_id"] == 1


def test_a_removed_plan_is_cleared_with_an_empty_list():
    plan_step = ({"id": "step1", "toolName": "telegram_send_message", "parameters": {"message": "hi"}},)
    with_plan = plan([skill_file(execution_plan=plan_step)], []).actions[0]
    result = plan([skill_file()], [stored_from(with_plan.args, 1)])
    (action,) = result.actions
    assert action.args["execution_plan"] == []


def test_a_deleted_file_disables_its_skill_once():
    result = plan([], [synced()])
    (action,) = result.actions
    assert action.kind == "disable"
    assert action.args["enabled"] is False
    assert action.args["last_error"].startswith(FILE_REMOVED_MARKER)
    already = synced(enabled=False, last_error=action.args["last_error"])
    assert plan([], [already]).actions == ()


def test_a_file_that_is_no_longer_scheduled_disables_its_skill():
    result = plan([skill_file(trigger_config=None, keywords=("news",))], [synced()])
    (action,) = result.actions
    assert action.kind == "disable" and "no longer scheduled" in action.args["last_error"]


def test_a_file_that_comes_back_re_enables_the_skill_it_disabled():
    removed = synced(enabled=False, last_error=f"{FILE_REMOVED_MARKER}: skills/news/SKILL.md was deleted.")
    (action,) = plan([skill_file()], [removed]).actions
    assert action.args["enabled"] is True and action.args["last_error"] == ""


def test_a_skill_the_user_disabled_is_never_re_enabled_by_a_sync():
    by_hand = synced(enabled=False, last_error=None)
    assert plan([skill_file()], [by_hand]).actions == ()
    changed = plan([skill_file(instructions="New.")], [by_hand]).actions[0]
    assert "enabled" not in changed.args


def test_a_broken_file_leaves_its_skill_alone():
    assert plan([], [synced()], broken_dirs={"news"}).actions == ()


def test_a_hand_made_skill_of_the_same_name_is_a_conflict_not_an_overwrite():
    mine = synced(trigger_config={"schedule": "0 9 * * *"})
    result = plan([skill_file()], [mine])
    assert result.actions == ()
    assert result.errors == (
        "skills/news/SKILL.md: a skill named 'news' already exists (id 1) and was not made from "
        "this file; rename one of them.",
    )


def test_an_invalid_schedule_is_reported_with_the_file_and_nothing_is_done():
    result = plan([skill_file(trigger_config={"schedule": "0 0 31 2 *"})], [synced()])
    assert result.actions == ()
    assert result.errors[0].startswith("skills/news/SKILL.md: schedule '0 0 31 2 *' never fires")


def test_a_one_shot_file_in_the_past_is_an_error_for_a_new_skill():
    result = plan([skill_file(trigger_config={"at": "2026-01-01T09:00:00"})], [])
    assert "in the past" in result.errors[0]


def test_missing_tools_create_the_skill_disabled_with_a_warning_naming_them():
    result = plan([skill_file(required_tools=("web_browser_navigate",))], [])
    (action,) = result.actions
    assert action.args["enabled"] is False
    assert action.warnings == ("skills/news/SKILL.md: stored disabled until these tools exist: web_browser_navigate.",)


def test_missing_tools_disable_an_enabled_stored_skill_on_update():
    (action,) = plan([skill_file(required_tools=("web_browser_navigate",))], [synced()]).actions
    assert action.args["enabled"] is False and action.args["required_tools"] == ["web_browser_navigate"]


def test_other_agents_skills_are_ignored():
    other = synced(agent_id="work")
    assert [a.kind for a in plan([skill_file()], [other]).actions] == ["create"]


def test_file_source_and_source_of_round_trip():
    assert source_of({"trigger_config": {"source": file_source("x")}}) == "x"
    assert source_of({"trigger_config": {"source": "seed"}}) is None
    assert source_of({"trigger_config": None}) is None


SYNCED_CHANGES: dict[str, Any] = {
    "name": "old name",
    "description": "old description",
    "trigger_type": "event",
    "trigger_config": {"schedule": "0 8 * * *", "source": "file:news"},
    "instructions": "Old instructions.",
    "required_tools": [],
    "execution_plan": [{"id": "step1", "toolName": "telegram_send_message", "parameters": {"message": "hi"}}],
    "max_steps": 3,
    "notify_on_completion": False,
}


@pytest.mark.parametrize("key", sorted(SYNCED_CHANGES))
def test_each_field_the_file_writes_is_brought_back_to_the_file(key: str):
    (action,) = plan([skill_file()], [synced(**{key: SYNCED_CHANGES[key]})]).actions
    assert action.kind == "update"
    assert set(action.args) == {"skill_id", "agent_id", key}


@pytest.mark.parametrize(
    ("key", "value"), [("notify_interval_minutes", 30), ("max_tokens_per_run", 500), ("daily_tokens", 9000)]
)
def test_fields_a_file_does_not_write_are_left_as_stored(key: str, value: int):
    result = plan([skill_file()], [synced(**{key: value})])
    assert result.actions == () and result.unchanged == ("news",)
