"""The shipped skills: the 17 playbooks and 7 scheduled skills as data, and the plan that installs them."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from orchestrator.skills.normalizer import normalize_skill_input
from orchestrator.skills.seeds import (
    PLAYBOOKS,
    QUIET_REPLIES,
    SCHEDULED,
    SEED_SOURCE,
    SEEDS,
    TOOLS_FROM_ELSEWHERE,
    SeedSkill,
    plan_seed,
    user_skill_conflicts,
)
from orchestrator.skills.triggers import next_fire, parse_trigger
from thinker.context import playbooks_from_memorizer
from thinker.selection import match_playbooks

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 2, 14, 14, 0, tzinfo=UTC)
TZ = "Europe/Berlin"


def routed_tools() -> frozenset[str]:
    """Every tool the first-party MCPs and the hub expose, read from their sources (no process started)."""
    names: set[str] = set()
    for manifest in ROOT.glob("*_mcp/manifest.json"):
        prefix = json.loads(manifest.read_text())["mcpName"]
        source = (manifest.parent / "server.py").read_text()
        names.update(
            f"{prefix}_{tool}" for tool in re.findall(r"@envelope_tool\(server[^)]*\)\s*\n(?:async )?def (\w+)", source)
        )
    names.update(re.findall(r'@native_tool\("(\w+)"', (ROOT / "orchestrator" / "native_tools.py").read_text()))
    return frozenset(names)


TOOLS = routed_tools()

ORIGINAL_PLAYBOOKS = {
    "email-triage": 10,
    "email-compose": 10,
    "schedule-meeting": 10,
    "research-and-share": 5,
    "telegram-conversation": 10,
    "memory-recall": 15,
    "file-operations": 5,
    "daily-briefing": 15,
    "contact-lookup": 10,
    "email-classify": 10,
    "system-health-check": 15,
    "message-cleanup": 10,
    "web-browsing": 10,
    "cron-scheduling": 10,
    "vercel-deployments": 10,
    "skill-management": 10,
    "project-source-linking": 10,
}
ORIGINAL_KEYWORDS = {
    "email-triage": ["email", "inbox", "unread", "mail", "gmail", "check email", "check my email"],
    "email-compose": ["send email", "write email", "compose email", "draft email", "reply email", "email to"],
    "schedule-meeting": ["meeting", "calendar", "schedule", "event", "appointment", "free time", "busy"],
    "research-and-share": ["search for", "find out", "look up", "research", "what is", "tell me about", "news"],
    "telegram-conversation": ["telegram message", "check telegram", "telegram chat", "reply on telegram"],
    "memory-recall": ["remember", "what do you know", "what did i tell you", "memory", "recall"],
    "file-operations": ["file", "document", "save to file", "read file", "write file", "workspace"],
    "daily-briefing": ["daily briefing", "morning briefing", "briefing", "what's happening", "daily summary"],
    "contact-lookup": ["who is", "contact", "colleague", "manager", "email address", "'s email", "find email"],
    "email-classify": ["classify email", "label email", "sort email", "organize inbox"],
    "system-health-check": ["what's broken", "system status", "health check", "are you ok", "diagnostics"],
    "message-cleanup": ["cleanup", "delete messages", "clear messages", "purge messages", "clear chat"],
    "web-browsing": ["browse", "website", "screenshot", "scrape", "fill form", "navigate to", "open url"],
    "cron-scheduling": ["cron", "remind me", "recurring", "every hour", "daily at", "weekly", "hourly", "at 3pm"],
    "vercel-deployments": ["vercel", "deployment", "deploy", "build log"],
    "skill-management": ["delete skill", "list skills", "my skills", "my jobs", "scheduled tasks"],
    "project-source-linking": ["link project", "connect project", "project status", "linked projects"],
}


def test_the_seventeen_playbooks_keep_the_originals_names_and_priorities():
    assert {p.name: p.trigger_config["priority"] for p in PLAYBOOKS} == ORIGINAL_PLAYBOOKS
    assert all(p.trigger_type == "event" for p in PLAYBOOKS)


@pytest.mark.parametrize("seed", PLAYBOOKS, ids=lambda s: s.name)
def test_each_playbook_has_at_least_the_originals_keywords(seed: SeedSkill):
    assert set(ORIGINAL_KEYWORDS[seed.name]) <= set(seed.trigger_config["keywords"])


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.name)
def test_instructions_are_five_to_fifteen_lines_and_name_their_tools(seed: SeedSkill):
    lines = seed.instructions.splitlines()
    assert 4 <= len(lines) <= 15
    assert seed.description and seed.required_tools
    mentioned = [tool for tool in seed.required_tools if tool in seed.instructions]
    assert len(mentioned) >= min(2, len(seed.required_tools))


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.name)
def test_every_seed_tool_exists_or_is_listed_with_where_it_comes_from(seed: SeedSkill):
    unknown = [t for t in seed.required_tools if t not in TOOLS and t not in TOOLS_FROM_ELSEWHERE]
    assert unknown == []


def test_the_tools_from_elsewhere_really_are_missing_today():
    assert not set(TOOLS_FROM_ELSEWHERE) & TOOLS
    assert "telegram_list_contacts" not in {t for s in SEEDS for t in s.required_tools}
    assert "gmail_get_new_emails" in TOOLS


def test_the_seven_scheduled_skills_are_agent_tier_and_seeded_disabled():
    assert [s.name for s in SCHEDULED] == [
        "Email Processor",
        "Morning Briefing",
        "Evening Recap",
        "Weekly Digest",
        "Follow-up Tracker",
        "Pre-meeting Prep",
        "Meeting Overload Warning",
    ]
    assert all(s.trigger_type == "cron" and not s.enabled and s.notify_on_completion for s in SCHEDULED)
    assert [s.max_steps for s in SCHEDULED] == [15, 15, 12, 15, 10, 10, 6]


@pytest.mark.parametrize("seed", SCHEDULED, ids=lambda s: s.name)
def test_scheduled_seeds_have_a_valid_schedule_in_the_users_zone(seed: SeedSkill):
    trigger = parse_trigger(seed.trigger_config, default_tz=TZ)
    assert trigger is not None and "timezone" not in seed.trigger_config
    assert next_fire(trigger, NOW) is not None


def test_quiet_replies_are_the_ones_the_instructions_ask_for():
    written = {reply for reply in QUIET_REPLIES if any(f'"{reply}"' in s.instructions for s in SCHEDULED)}
    assert written == set(QUIET_REPLIES)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("check my email please", "email-triage"),
        ("remind me to call mum at 3pm", "cron-scheduling"),
        ("what do you know about my sister", "memory-recall"),
        ("give me my morning briefing", "daily-briefing"),
        ("what's Anna's email address?", "contact-lookup"),
        ("list skills", "skill-management"),
        ("are you ok? run a health check", "system-health-check"),
    ],
)
def test_stored_seeds_match_real_messages_through_the_thinkers_matcher(message: str, expected: str):
    stored = [upsert.args for upsert in plan_seed(PLAYBOOKS, [], now=NOW, default_tz=TZ)]
    matched = match_playbooks(message, playbooks_from_memorizer(stored))
    assert expected in [p.name for p in matched]


# -- plan_seed -------------------------------------------------------------------------------------------------


def stored_rows(upserts: list[Any]) -> list[dict[str, Any]]:
    return [{"id": i + 1, "enabled": u.args.get("enabled", True), **u.args} for i, u in enumerate(upserts)]


def test_an_empty_store_gets_every_seed_created_in_the_memorizers_format():
    upserts = plan_seed(SEEDS, [], now=NOW, default_tz=TZ, available_tools=TOOLS)
    assert [u.kind for u in upserts] == ["create"] * 24
    for upsert in upserts:
        assert upsert.args["agent_id"] == "annabelle"
        assert upsert.args["trigger_config"]["source"] == SEED_SOURCE
        again = normalize_skill_input("memory_store_skill", upsert.args, now=NOW, default_tz=TZ)
        assert again.args == upsert.args


def test_seeds_with_missing_tools_are_created_disabled_with_a_warning_naming_them_and_their_origin():
    upserts = {u.name: u for u in plan_seed(SEEDS, [], now=NOW, default_tz=TZ, available_tools=TOOLS)}
    vercel = upserts["vercel-deployments"]
    assert vercel.args["enabled"] is False
    assert "vercel_getDeployments" in vercel.warnings[0] and "external-mcps.json" in vercel.warnings[0]
    assert upserts["email-triage"].args["enabled"] is True and upserts["email-triage"].warnings == ()


def test_the_web_browsing_playbook_is_enabled_now_that_the_browser_tools_exist():
    browsing = next(
        u for u in plan_seed(SEEDS, [], now=NOW, default_tz=TZ, available_tools=TOOLS) if u.name == "web-browsing"
    )
    assert browsing.args["enabled"] is True and browsing.warnings == ()
    assert {t for t in browsing.args["required_tools"] if t.startswith("web_browser_")} <= TOOLS


def test_scheduled_seeds_start_disabled_even_when_their_tools_exist():
    upserts = {u.name: u for u in plan_seed(SCHEDULED, [], now=NOW, default_tz=TZ, available_tools=TOOLS)}
    assert all(u.args["enabled"] is False and u.warnings == () for u in upserts.values())


def test_an_unchanged_store_plans_nothing():
    stored = stored_rows(plan_seed(SEEDS, [], now=NOW, default_tz=TZ))
    assert plan_seed(SEEDS, stored, now=NOW, default_tz=TZ) == []


def test_a_changed_seed_is_updated_without_touching_enabled():
    stored = stored_rows(plan_seed(PLAYBOOKS[:1], [], now=NOW, default_tz=TZ))
    stored[0]["enabled"] = False  # the user switched it off
    new = SeedSkill(**{**PLAYBOOKS[0].__dict__, "instructions": "New triage steps.\n2.\n3.\n4.\n5."})
    (upsert,) = plan_seed([new], stored, now=NOW, default_tz=TZ)
    assert upsert.kind == "update" and upsert.tool == "memory_update_skill"
    assert upsert.args["skill_id"] == 1
    assert upsert.args["instructions"].startswith("New triage steps.")
    assert upsert.args["trigger_config"]["seed_version"] == new.version
    assert "enabled" not in upsert.args


def test_new_keywords_change_the_version_and_update_the_trigger_config():
    stored = stored_rows(plan_seed(PLAYBOOKS[:1], [], now=NOW, default_tz=TZ))
    keywords = [*PLAYBOOKS[0].trigger_config["keywords"], "mailbox"]
    new = SeedSkill(**{**PLAYBOOKS[0].__dict__, "trigger_config": {"keywords": keywords, "priority": 10}})
    (upsert,) = plan_seed([new], stored, now=NOW, default_tz=TZ)
    assert set(upsert.args) == {"skill_id", "agent_id", "trigger_config"}
    assert "mailbox" in upsert.args["trigger_config"]["keywords"]


def test_a_users_edit_of_a_seeded_skill_survives_until_the_seed_changes():
    stored = stored_rows(plan_seed(PLAYBOOKS[:1], [], now=NOW, default_tz=TZ))
    stored[0]["instructions"] = "My own way of triaging."
    assert plan_seed(PLAYBOOKS[:1], stored, now=NOW, default_tz=TZ) == []


def test_a_users_own_skill_of_the_same_name_is_left_alone_and_reported():
    mine = {"id": 9, "agent_id": "annabelle", "name": "email-triage", "trigger_config": {"keywords": ["x"]}}
    assert plan_seed(PLAYBOOKS[:1], [mine], now=NOW, default_tz=TZ) == []
    assert user_skill_conflicts(PLAYBOOKS, [mine]) == [
        "Seed 'email-triage' was not installed: a skill of that name (id 9) already exists."
    ]


def test_seeds_go_to_the_agent_asked_for():
    upserts = plan_seed(PLAYBOOKS[:1], [], now=NOW, default_tz=TZ, agent_id="work")
    assert upserts[0].args["agent_id"] == "work"
    other = stored_rows(plan_seed(PLAYBOOKS[:1], [], now=NOW, default_tz=TZ))
    assert [u.kind for u in plan_seed(PLAYBOOKS[:1], other, now=NOW, default_tz=TZ, agent_id="work")] == ["create"]


def test_the_version_hash_follows_content_only():
    assert PLAYBOOKS[0].version == SeedSkill(**PLAYBOOKS[0].__dict__).version
    assert len({s.version for s in SEEDS}) == len(SEEDS)


SEED_CHANGES: dict[str, Any] = {
    "description": "old description",
    "trigger_type": "cron",
    "instructions": "Old instructions.",
    "required_tools": [],
    "max_steps": 3,
    "notify_on_completion": True,
}


def released_again(**row: Any) -> list[dict[str, Any]]:
    """The first playbook as stored by an earlier release (another seed version), with `row` changed."""
    (stored,) = stored_rows(plan_seed(PLAYBOOKS[:1], [], now=NOW, default_tz=TZ))
    stored["trigger_config"] = {**stored["trigger_config"], "seed_version": "older"}
    return [{**stored, **row}]


@pytest.mark.parametrize("key", sorted(SEED_CHANGES))
def test_each_field_a_seed_ships_is_brought_back_to_the_seed(key: str):
    (upsert,) = plan_seed(PLAYBOOKS[:1], released_again(**{key: SEED_CHANGES[key]}), now=NOW, default_tz=TZ)
    assert set(upsert.args) == {"skill_id", "agent_id", "trigger_config", key}
    assert upsert.args[key] == PLAYBOOKS[0].store_args("annabelle")[key]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("execution_plan", [{"id": "s1", "toolName": "memory_list_facts", "parameters": {}}]),
        ("enabled", False),
        ("notify_interval_minutes", 30),
        ("max_tokens_per_run", 500),
        ("daily_tokens", 9000),
    ],
)
def test_fields_a_seed_does_not_ship_are_left_as_stored(key: str, value: Any):
    (upsert,) = plan_seed(PLAYBOOKS[:1], released_again(**{key: value}), now=NOW, default_tz=TZ)
    assert set(upsert.args) == {"skill_id", "agent_id", "trigger_config"}


def test_the_version_hash_of_a_seed_is_stable_across_releases():
    # A changed hash makes every install rewrite its seeded skills at the next start: it must follow content only.
    seed = SeedSkill(
        name="n",
        description="d",
        trigger_type="event",
        trigger_config={"keywords": ["k"], "priority": 1},
        instructions="i",
        required_tools=("memory_list_facts",),
    )
    assert seed.version == "7e1dff1fe33b"
