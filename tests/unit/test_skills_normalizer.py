"""The skill normaliser: every fix of reference §6.5 and the checks at creation, as plain table-driven cases."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from orchestrator.skills.errors import SkillInputError
from orchestrator.skills.normalizer import (
    COMPAT_TOOL_NAMES,
    DEFAULT_AGENT_ID,
    NormalizedSkill,
    normalize_skill_input,
)

NOW = datetime(2026, 2, 14, 14, 0, 0, tzinfo=UTC)  # 15:00 in Berlin
TZ = "Europe/Berlin"
STORE = "memory_store_skill"
UPDATE = "memory_update_skill"
TOOLS = frozenset(
    {
        "telegram_send_message",
        "gmail_list_emails",
        "gmail_get_email",
        "searcher_web_search",
        "searcher_news_search",
        "memory_store_fact",
        "memory_retrieve_memories",
        "get_status",
    }
)
BASE: dict[str, Any] = {"name": "Water", "instructions": "Remind me to drink water."}


def store(tools: frozenset[str] | None = None, **fields: Any) -> NormalizedSkill:
    return normalize_skill_input(STORE, {**BASE, **fields}, now=NOW, default_tz=TZ, known_tools=tools)


def update(**fields: Any) -> NormalizedSkill:
    return normalize_skill_input(UPDATE, {"skill_id": 7, **fields}, now=NOW, default_tz=TZ)


# -- trigger_config: re-nesting, aliases, relative times ------------------------------------------------------

TRIGGER_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("flattened schedule", {"schedule": "0 * * * *"}, {"schedule": "0 * * * *"}),
    ("flattened interval", {"interval_minutes": 30}, {"interval_minutes": 30}),
    (
        "flattened schedule and timezone",
        {"schedule": "0 9 * * *", "timezone": "America/New_York"},
        {"schedule": "0 9 * * *", "timezone": "America/New_York"},
    ),
    ("flattened at", {"at": "2026-02-14T18:00:00"}, {"at": "2026-02-14T18:00:00+01:00"}),
    ("flattened in_minutes", {"in_minutes": 5}, {"at": "2026-02-14T15:05:00+01:00"}),
    ("flattened in_hours", {"in_hours": 2}, {"at": "2026-02-14T17:00:00+01:00"}),
    ("in_minutes as a string", {"in_minutes": "10"}, {"at": "2026-02-14T15:10:00+01:00"}),
    ("fractional in_hours", {"in_hours": 1.5}, {"at": "2026-02-14T16:30:00+01:00"}),
    ("in_hours plus in_minutes", {"in_hours": 1, "in_minutes": 15}, {"at": "2026-02-14T16:15:00+01:00"}),
    ("cronExpression alias", {"cronExpression": "*/5 * * * *"}, {"schedule": "*/5 * * * *"}),
    ("cron_expression alias", {"cron_expression": "0 8 * * 1-5"}, {"schedule": "0 8 * * 1-5"}),
    ("cron alias", {"cron": "0 8 * * *"}, {"schedule": "0 8 * * *"}),
    ("intervalMinutes alias", {"intervalMinutes": 15}, {"interval_minutes": 15}),
    ("inMinutes alias", {"inMinutes": 1}, {"at": "2026-02-14T15:01:00+01:00"}),
    (
        "timeZone alias",
        {"schedule": "0 9 * * *", "timeZone": "Asia/Tokyo"},
        {"schedule": "0 9 * * *", "timezone": "Asia/Tokyo"},
    ),
    ("alias inside trigger_config", {"trigger_config": {"cronExpression": "0 7 * * *"}}, {"schedule": "0 7 * * *"}),
    ("intervalMinutes inside trigger_config", {"trigger_config": {"intervalMinutes": "45"}}, {"interval_minutes": 45}),
    ("in_minutes inside trigger_config", {"trigger_config": {"in_minutes": 5}}, {"at": "2026-02-14T15:05:00+01:00"}),
    ("trigger_config as a JSON string", {"trigger_config": '{"schedule": "0 9 * * *"}'}, {"schedule": "0 9 * * *"}),
    ("interval as a string", {"trigger_config": {"interval_minutes": "60"}}, {"interval_minutes": 60}),
    ("interval as a whole float", {"interval_minutes": 90.0}, {"interval_minutes": 90}),
    ("cron alias expanded", {"schedule": "@daily"}, {"schedule": "0 0 * * *"}),
    ("cron spacing collapsed", {"schedule": " 0  9 * *   * "}, {"schedule": "0 9 * * *"}),
    ("at with Z kept as given instant", {"at": "2026-02-15T08:00:00Z"}, {"at": "2026-02-15T08:00:00+00:00"}),
    (
        "naive at read in the skill's zone",
        {"at": "2026-02-15 09:00", "timezone": "America/New_York"},
        {"at": "2026-02-15T09:00:00-05:00", "timezone": "America/New_York"},
    ),
    (
        "in_minutes in the skill's zone",
        {"in_minutes": 5, "timezone": "America/New_York"},
        {"at": "2026-02-14T09:05:00-05:00", "timezone": "America/New_York"},
    ),
    ("null values dropped", {"schedule": "0 9 * * *", "interval_minutes": None, "at": None}, {"schedule": "0 9 * * *"}),
    (
        "playbook keywords string",
        {"trigger_type": "event", "trigger_config": {"keywords": "tea, coffee", "priority": "5"}},
        {"keywords": ["tea", "coffee"], "priority": 5},
    ),
    ("month end L", {"schedule": "0 0 L * *"}, {"schedule": "0 0 L * *"}),
    ("Sunday as 7", {"schedule": "0 18 * * 7"}, {"schedule": "0 18 * * 7"}),
    # The plain fields (orchestrator/skills/plain_timing.py): NOW is Saturday 14 February, 15:00 in Berlin.
    ("every weekday", {"trigger_config": {"every": "weekday", "time": "8.15"}}, {"schedule": "15 8 * * 1-5"}),
    ("every day, 12-hour clock", {"trigger_config": {"every": "day", "time": "7:30 pm"}}, {"schedule": "30 19 * * *"}),
    ("every weekend", {"trigger_config": {"every": "weekend", "time": "10"}}, {"schedule": "0 10 * * 0,6"}),
    ("every Sunday", {"trigger_config": {"every": "Sunday", "time": "20:00"}}, {"schedule": "0 20 * * 0"}),
    (
        "every listed weekday, short and plural",
        {"trigger_config": {"every": ["tue", "Thursdays"], "time": "18h30"}},
        {"schedule": "30 18 * * 2,4"},
    ),
    (
        "every month on a day",
        {"trigger_config": {"every": "month", "day": 1, "time": "09:00"}},
        {"schedule": "0 9 1 * *"},
    ),
    ("every hour at a minute", {"trigger_config": {"every": "hour", "time": "00:30"}}, {"schedule": "30 * * * *"}),
    ("every at the top level", {"every": "friday", "trigger_config": {"time": "17:00"}}, {"schedule": "0 17 * * 5"}),
    (
        "every in the skill's zone",
        {"trigger_config": {"every": "day", "time": "06:00", "timezone": "Asia/Tokyo"}},
        {"schedule": "0 6 * * *", "timezone": "Asia/Tokyo"},
    ),
    ("in_days at a time", {"trigger_config": {"in_days": 2, "time": "07:00"}}, {"at": "2026-02-16T07:00:00+01:00"}),
    ("in_days alone", {"in_days": "1"}, {"at": "2026-02-15T15:00:00+01:00"}),
    ("a time later today", {"trigger_config": {"time": "21:00"}}, {"at": "2026-02-14T21:00:00+01:00"}),
    ("a time already past: tomorrow", {"trigger_config": {"time": "09:00"}}, {"at": "2026-02-15T09:00:00+01:00"}),
]


@pytest.mark.parametrize(("case", "fields", "config"), TRIGGER_CASES, ids=[c[0] for c in TRIGGER_CASES])
def test_trigger_config_is_renested_and_normalised(case: str, fields: dict[str, Any], config: dict[str, Any]):
    result = store(**fields)
    assert result.args["trigger_config"] == config
    for key in ("schedule", "interval_minutes", "at", "in_minutes", "in_hours", "timezone", "cron", "cronExpression"):
        assert key not in result.args
    for key in ("every", "in_days", "time", "day"):
        assert key not in result.args and key not in result.args["trigger_config"]


# -- trigger_type ----------------------------------------------------------------------------------------------

TYPE_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("inferred from schedule", {"schedule": "0 9 * * *"}, "cron"),
    ("inferred from interval", {"interval_minutes": 5}, "cron"),
    ("inferred from in_minutes", {"in_minutes": 5}, "cron"),
    ("wrong type corrected", {"trigger_type": "manual", "schedule": "0 9 * * *"}, "cron"),
    ("alias 'scheduled'", {"trigger_type": "scheduled", "interval_minutes": 5}, "cron"),
    ("upper case", {"trigger_type": "CRON", "schedule": "0 9 * * *"}, "cron"),
    ("no schedule means manual", {}, "manual"),
    ("keywords mean event", {"trigger_config": {"keywords": ["x"]}}, "event"),
    ("event kept", {"trigger_type": "event", "trigger_config": {"keywords": ["x"], "priority": 5}}, "event"),
]


@pytest.mark.parametrize(("case", "fields", "expected"), TYPE_CASES, ids=[c[0] for c in TYPE_CASES])
def test_trigger_type_is_inferred_or_corrected(case: str, fields: dict[str, Any], expected: str):
    assert store(**fields).args["trigger_type"] == expected


# -- coercions -------------------------------------------------------------------------------------------------

COERCIONS: list[tuple[str, dict[str, Any], str, Any]] = [
    (
        "required_tools JSON string",
        {"required_tools": '["gmail_list_emails", "gmail_get_email"]'},
        "required_tools",
        ["gmail_list_emails", "gmail_get_email"],
    ),
    (
        "required_tools comma string",
        {"required_tools": "gmail_list_emails, gmail_get_email"},
        "required_tools",
        ["gmail_list_emails", "gmail_get_email"],
    ),
    (
        "required_tools single name",
        {"required_tools": "searcher_web_search"},
        "required_tools",
        ["searcher_web_search"],
    ),
    (
        "required_tools duplicates",
        {"required_tools": ["get_status", "get_status", " "]},
        "required_tools",
        ["get_status"],
    ),
    (
        "required_tools old names",
        {"required_tools": ["send_telegram", "store_fact"]},
        "required_tools",
        ["telegram_send_message", "memory_store_fact"],
    ),
    ("max_steps string", {"max_steps": "15"}, "max_steps", 15),
    ("max_steps float", {"max_steps": 8.0}, "max_steps", 8),
    ("notify true string", {"notify_on_completion": "true"}, "notify_on_completion", True),
    ("notify false string", {"notify_on_completion": "False"}, "notify_on_completion", False),
    ("notify 0", {"notify_on_completion": 0}, "notify_on_completion", False),
    ("enabled no", {"enabled": "no"}, "enabled", False),
    ("notify_interval string", {"notify_interval_minutes": "30"}, "notify_interval_minutes", 30),
    ("default agent id", {}, "agent_id", DEFAULT_AGENT_ID),
    ("empty agent id", {"agent_id": ""}, "agent_id", DEFAULT_AGENT_ID),
    ("agent id kept", {"agent_id": "work"}, "agent_id", "work"),
    ("name trimmed", {"name": "  Water  "}, "name", "Water"),
]


@pytest.mark.parametrize(("case", "fields", "key", "value"), COERCIONS, ids=[c[0] for c in COERCIONS])
def test_values_are_coerced_to_what_the_memorizer_takes(case: str, fields: dict[str, Any], key: str, value: Any):
    assert store(**fields).args[key] == value


def test_the_default_agent_is_annabelle_not_thinker():
    assert DEFAULT_AGENT_ID == "annabelle"


# -- execution plans and the safety net -----------------------------------------------------------------------


def test_a_one_step_plan_stays_direct_with_step_aliases_fixed():
    result = store(
        schedule="0 9 * * *", execution_plan=[{"tool": "send_telegram", "params": {"message": "Drink water!"}}]
    )
    assert result.tier == "direct"
    assert result.args["execution_plan"] == [
        {"id": "step1", "toolName": "telegram_send_message", "parameters": {"message": "Drink water!"}}
    ]
    assert any("send_telegram" in w for w in result.warnings)


def test_a_plan_given_as_a_json_string_is_parsed():
    plan = '[{"id": "s", "toolName": "telegram_send_message", "parameters": {"message": "hi"}}]'
    result = store(interval_minutes=60, execution_plan=plan)
    assert result.args["execution_plan"] == [
        {"id": "s", "toolName": "telegram_send_message", "parameters": {"message": "hi"}}
    ]


def test_a_plan_without_instructions_gets_instructions_written_from_it():
    result = normalize_skill_input(
        STORE,
        {
            "name": "Ping",
            "in_minutes": 5,
            "execution_plan": [{"toolName": "telegram_send_message", "parameters": {"message": "hi"}}],
        },
        now=NOW,
        default_tz=TZ,
    )
    assert result.args["instructions"] == 'Call telegram_send_message with {"message": "hi"}.'


def test_a_multi_step_plan_becomes_an_agent_skill_with_those_tools_required():
    plan = [
        {"id": "a", "toolName": "searcher_news_search", "parameters": {"query": "AI"}},
        {"id": "b", "toolName": "telegram_send_message", "parameters": {"message": "{{a.result}}"}, "dependsOn": ["a"]},
    ]
    result = store(schedule="0 */3 * * *", required_tools=["memory_store_fact"], execution_plan=plan)
    assert result.tier == "agent"
    assert "execution_plan" not in result.args
    assert result.args["required_tools"] == ["memory_store_fact", "searcher_news_search", "telegram_send_message"]
    assert result.args["instructions"] == BASE["instructions"]
    assert any("2 steps" in w and "agent skill" in w for w in result.warnings)


def test_a_multi_step_plan_without_instructions_gets_them_from_the_steps():
    plan = [{"toolName": "gmail_list_emails"}, {"toolName": "telegram_send_message", "parameters": {"message": "x"}}]
    result = normalize_skill_input(
        STORE, {"name": "Mail", "interval_minutes": 60, "execution_plan": plan}, now=NOW, default_tz=TZ
    )
    assert result.args["instructions"].startswith("Do these steps in order")
    assert "1. Call gmail_list_emails" in result.args["instructions"]


def test_an_agent_skill_without_a_plan_is_agent_tier():
    assert store(schedule="0 9 * * *", required_tools=["gmail_list_emails"]).tier == "agent"


# -- tool checks -----------------------------------------------------------------------------------------------


def test_unknown_required_tools_are_refused_with_the_closest_names():
    with pytest.raises(SkillInputError) as caught:
        store(tools=TOOLS, schedule="0 9 * * *", required_tools=["gmail_list_email", "teleport"])
    message = str(caught.value)
    assert "'gmail_list_email' (closest: gmail_list_emails" in message
    assert "'teleport'" in message
    assert "get_tool_catalog" in message


def test_unknown_plan_tools_are_refused_too():
    with pytest.raises(SkillInputError, match="telegram_send_msg"):
        store(tools=TOOLS, in_minutes=5, execution_plan=[{"toolName": "telegram_send_msg"}])


def test_known_tools_pass():
    result = store(tools=TOOLS, schedule="0 9 * * *", required_tools=["gmail_list_emails"])
    assert result.missing_tools == ()
    assert "enabled" not in result.args


def test_seeded_skills_with_missing_tools_are_stored_disabled_with_a_warning():
    result = normalize_skill_input(
        STORE,
        {**BASE, "schedule": "0 9 * * *", "required_tools": ["gmail_list_events", "gmail_list_emails"]},
        now=NOW,
        default_tz=TZ,
        known_tools=TOOLS,
        on_missing_tools="disable",
    )
    assert result.args["enabled"] is False
    assert result.missing_tools == ("gmail_list_events",)
    assert any("gmail_list_events" in w for w in result.warnings)


def test_without_known_tools_nothing_is_checked():
    assert store(schedule="0 9 * * *", required_tools=["anything_at_all"]).missing_tools == ()


# -- refusals --------------------------------------------------------------------------------------------------

REFUSALS: list[tuple[str, str, dict[str, Any], str]] = [
    ("bad cron", STORE, {"schedule": "every morning"}, "five"),
    ("cron out of range", STORE, {"schedule": "0 25 * * *"}, "not a valid cron"),
    ("cron with no next fire", STORE, {"schedule": "0 0 31 2 *"}, "never fires"),
    ("seconds field", STORE, {"schedule": "0 0 9 * * *"}, "has 6 fields"),
    ("bad timezone", STORE, {"schedule": "0 9 * * *", "timezone": "Berlin"}, "IANA"),
    ("unparseable at", STORE, {"at": "next tuesday"}, "not a date-time"),
    ("at in the past", STORE, {"at": "2026-02-14T14:59:00"}, "in the past"),
    ("at now", STORE, {"at": "2026-02-14T14:00:00Z"}, "in the past"),
    ("interval zero", STORE, {"interval_minutes": 0}, "at least 1"),
    ("interval fraction", STORE, {"interval_minutes": 0.5}, "whole number"),
    ("negative in_minutes", STORE, {"in_minutes": -5}, "greater than 0"),
    ("two schedules", STORE, {"schedule": "0 9 * * *", "interval_minutes": 5}, "exactly one"),
    ("at and in_minutes", STORE, {"at": "2026-03-01T09:00:00", "in_minutes": 5}, "both at and in_minutes"),
    ("bad trigger_config JSON", STORE, {"trigger_config": "{schedule: 0 9 * * *}"}, "not valid JSON"),
    ("trigger_config list", STORE, {"trigger_config": ["0 9 * * *"]}, "must be an object"),
    ("bad trigger type", STORE, {"trigger_type": "sometimes"}, "not one of cron"),
    ("cron type without schedule", STORE, {"trigger_type": "cron"}, "needs a time"),
    ("max_steps words", STORE, {"max_steps": "many"}, "whole number"),
    ("max_steps too big", STORE, {"max_steps": 500}, "from 1 to 100"),
    ("notify maybe", STORE, {"notify_on_completion": "maybe"}, "true or false"),
    ("required_tools object", STORE, {"required_tools": {"a": 1}}, "list of tool names"),
    ("required_tools bad JSON", STORE, {"required_tools": "[gmail"}, "not valid JSON"),
    ("plan step without tool", STORE, {"in_minutes": 5, "execution_plan": [{"parameters": {}}]}, "has no toolName"),
    ("plan not a list", STORE, {"in_minutes": 5, "execution_plan": 42}, "list of steps"),
    ("missing name", STORE, {"name": " "}, "name is required"),
    ("missing instructions", STORE, {"instructions": None}, "instructions are required"),
    ("update without id", UPDATE, {"skill_id": None, "enabled": False}, "skill_id is required"),
    ("update with nothing", UPDATE, {}, "Nothing to update"),
    ("update with bad cron", UPDATE, {"schedule": "99 * * * *"}, "not a valid cron"),
    ("unknown every word", STORE, {"trigger_config": {"every": "fortnight", "time": "9"}}, "is not one of day"),
    ("every hours for in hours", STORE, {"trigger_config": {"every": "hours", "time": "4"}}, '"in_hours": N'),
    ("every as a number", STORE, {"trigger_config": {"every": "10", "time": "9"}}, "instead of every"),
    ("time of day out of range", STORE, {"trigger_config": {"every": "day", "time": "25:00"}}, "not a time of day"),
    ("time in words", STORE, {"trigger_config": {"time": "noonish"}}, "not a time of day"),
    ("every and cron", STORE, {"trigger_config": {"every": "day", "schedule": "0 9 * * *"}}, "one way of saying"),
    ("time and in_minutes", STORE, {"trigger_config": {"time": "9:00", "in_minutes": 5}}, "one way of saying"),
    ("every and in_days", STORE, {"trigger_config": {"every": "day", "in_days": 2}}, "every \\(repeating\\)"),
    ("day without month", STORE, {"trigger_config": {"every": "monday", "day": 3, "time": "9"}}, "month"),
    ("month without its day", STORE, {"trigger_config": {"every": "month", "time": "9"}}, "day of the month"),
    ("day of month 32", STORE, {"trigger_config": {"every": "month", "day": 32, "time": "9"}}, "from 1 to 31"),
    ("every without a time", STORE, {"trigger_config": {"every": "weekday"}}, "needs a time of day"),
    ("hourly with an hour", STORE, {"trigger_config": {"every": "hour", "time": "09:30"}}, "minutes past the hour"),
]


@pytest.mark.parametrize(("case", "tool", "fields", "message"), REFUSALS, ids=[c[0] for c in REFUSALS])
def test_what_cannot_be_stored_is_refused_with_a_sentence(case: str, tool: str, fields: dict[str, Any], message: str):
    base = BASE if tool == STORE else {"skill_id": 7}
    with pytest.raises(SkillInputError, match=message):
        normalize_skill_input(tool, {**base, **fields}, now=NOW, default_tz=TZ)


# -- updates ---------------------------------------------------------------------------------------------------


def test_an_update_gets_the_same_fixes_and_keeps_run_bookkeeping():
    result = update(
        skill_id="7",
        cronExpression="30 6 * * *",
        enabled="true",
        last_run_status="success",
        consecutive_failures="2",
    )
    assert result.args == {
        "skill_id": 7,
        "agent_id": "annabelle",
        "trigger_config": {"schedule": "30 6 * * *"},
        "trigger_type": "cron",
        "enabled": True,
        "last_run_status": "success",
        "consecutive_failures": 2,
    }


def test_an_update_leaves_the_trigger_type_alone_without_a_schedule():
    result = update(instructions="New text")
    assert "trigger_type" not in result.args
    assert "trigger_config" not in result.args


def test_an_update_to_a_past_at_is_a_warning_not_an_error():
    result = update(at="2026-02-14T10:00:00")
    assert any("in the past" in w for w in result.warnings)


def test_an_update_keeps_the_stored_schedule_when_only_the_zone_changes():
    result = normalize_skill_input(
        UPDATE,
        {"skill_id": 7, "timezone": "Asia/Tokyo"},
        now=NOW,
        default_tz=TZ,
        current_trigger_config={"schedule": "0 9 * * *", "source": "file:x"},
    )
    assert result.args["trigger_config"] == {"schedule": "0 9 * * *", "source": "file:x", "timezone": "Asia/Tokyo"}


def test_an_update_with_a_new_kind_of_schedule_replaces_the_stored_one():
    result = normalize_skill_input(
        UPDATE,
        {"skill_id": 7, "in_minutes": 10},
        now=NOW,
        default_tz=TZ,
        current_trigger_config={"schedule": "0 9 * * *", "timezone": "UTC"},
    )
    assert result.args["trigger_config"] == {"timezone": "UTC", "at": "2026-02-14T14:10:00+00:00"}


RETIMED: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "a weekly schedule keeps its days",
        {"schedule": "0 10 * * 6", "timezone": "UTC"},
        {"schedule": "0 9 * * 6", "timezone": "UTC"},
    ),
    ("a one-off keeps its date", {"at": "2026-02-20T10:00:00+01:00"}, {"at": "2026-02-20T09:00:00+01:00"}),
]


@pytest.mark.parametrize(("case", "stored", "config"), RETIMED, ids=[c[0] for c in RETIMED])
def test_an_update_giving_only_a_time_moves_the_stored_timing_to_it(
    case: str, stored: dict[str, Any], config: dict[str, Any]
):
    result = normalize_skill_input(
        UPDATE,
        {"skill_id": 7, "trigger_config": {"time": "9:00"}},
        now=NOW,
        default_tz=TZ,
        current_trigger_config=stored,
    )
    assert result.args["trigger_config"] == config


def test_an_update_giving_only_the_days_keeps_the_stored_time_of_day():
    result = normalize_skill_input(
        UPDATE,
        {"skill_id": 7, "trigger_config": {"every": "sunday"}},
        now=NOW,
        default_tz=TZ,
        current_trigger_config={"schedule": "30 10 * * 6"},
    )
    assert result.args["trigger_config"] == {"schedule": "30 10 * * 0"}


def test_an_update_giving_only_a_time_cannot_move_a_schedule_with_no_one_time_of_day():
    for stored in ({"schedule": "*/15 * * * *"}, {"interval_minutes": 30}):
        with pytest.raises(SkillInputError, match="every and time"):
            normalize_skill_input(
                UPDATE,
                {"skill_id": 7, "trigger_config": {"time": "9:00"}},
                now=NOW,
                default_tz=TZ,
                current_trigger_config=stored,
            )


def test_keywords_keep_their_apostrophes_and_spacing_is_collapsed():
    result = store(trigger_type="event", trigger_config={"keywords": ["'s email", "check   my  email", "'s email"]})
    assert result.args["trigger_config"]["keywords"] == ["'s email", "check my email"]


def test_an_update_converts_in_minutes_from_now():
    assert update(in_minutes=30).args["trigger_config"] == {"at": "2026-02-14T15:30:00+01:00"}


# -- what reaches the Memorizer ---------------------------------------------------------------------------------


def test_fields_the_memorizer_does_not_take_are_dropped_with_a_warning():
    result = store(schedule="0 9 * * *", chat_id="123", model="gpt")
    assert "chat_id" not in result.args and "model" not in result.args
    assert any("chat_id" in w and "model" in w for w in result.warnings)


def test_run_bookkeeping_is_not_accepted_on_creation():
    result = store(last_run_at="2026-01-01")
    assert "last_run_at" not in result.args


def test_unknown_trigger_config_keys_are_kept_with_a_warning():
    result = store(trigger_config={"schedule": "0 9 * * *", "jitter": 5})
    assert result.args["trigger_config"]["jitter"] == 5
    assert any("jitter" in w for w in result.warnings)


def test_renesting_is_reported_to_the_model():
    assert any("Moved schedule into trigger_config" in w for w in store(schedule="0 9 * * *").warnings)


def test_the_input_mapping_is_not_modified():
    given = {**BASE, "schedule": "0 9 * * *", "trigger_config": {"timezone": "UTC"}}
    snapshot = {**given, "trigger_config": dict(given["trigger_config"])}
    normalize_skill_input(STORE, given, now=NOW, default_tz=TZ)
    assert given == snapshot


def test_a_naive_now_is_a_programming_error():
    with pytest.raises(ValueError, match="aware"):
        normalize_skill_input(STORE, BASE, now=datetime(2026, 1, 1), default_tz=TZ)


def test_only_the_two_skill_tools_are_normalised():
    with pytest.raises(ValueError, match="memory_store_skill"):
        normalize_skill_input("memory_store_fact", BASE, now=NOW, default_tz=TZ)


def test_compat_names_point_at_routed_tools():
    assert all("_" in real for real in COMPAT_TOOL_NAMES.values())
    assert COMPAT_TOOL_NAMES["send_telegram"] == "telegram_send_message"


def test_the_days_every_takes_are_described_once_for_the_tool_and_the_reminder_playbook() -> None:
    from memorizer_mcp.server import TriggerConfig
    from orchestrator.skills.seeds.playbooks import PLAYBOOKS
    from shared.contracts.memory import TIMING_DAYS

    described = TriggerConfig.__metadata__[0].description
    reminders = next(p for p in PLAYBOOKS if "memory_store_skill" in p.required_tools)
    assert TIMING_DAYS in described and TIMING_DAYS in reminders.instructions
