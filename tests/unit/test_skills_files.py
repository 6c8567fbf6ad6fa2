"""SKILL.md parsing in shared/skill_files.py: the metadata extensions and errors that name the file and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.skill_files import FrontmatterError, SkillFile, load_skill_files, parse_skill_file, read_skill_file

PATH = Path("/home/u/.annabelle/skills/news-digest/SKILL.md")

SCHEDULED = """---
name: news-digest
description: Three AI headlines every three hours
allowed-tools: [searcher_news_search]
metadata:
  keywords: ai news, headlines
  priority: "7"
  required_tools:
    - searcher_news_search
    - memory_store_fact
  trigger_config:
    schedule: "0 */3 * * *"
    timezone: Europe/Berlin
  max_steps: 5
  notify_on_completion: "false"
---
Search the news for AI and summarise three headlines.
"""


def test_every_metadata_extension_is_read():
    skill = parse_skill_file(SCHEDULED, PATH)
    assert skill == SkillFile(
        name="news-digest",
        description="Three AI headlines every three hours",
        keywords=("ai news", "headlines"),
        priority=7,
        required_tools=("searcher_news_search", "memory_store_fact"),
        instructions="Search the news for AI and summarise three headlines.",
        path=PATH,
        trigger_config={"schedule": "0 */3 * * *", "timezone": "Europe/Berlin"},
        max_steps=5,
        execution_plan=None,
        notify_on_completion=False,
        allowed_tools=("searcher_news_search",),
    )
    assert skill.scheduled and skill.dir_name == "news-digest"


def test_a_direct_tier_plan_is_written_as_inline_maps():
    text = (
        "---\ndescription: Water\nmetadata:\n  trigger_config:\n    interval_minutes: 60\n  execution_plan:\n"
        '    - {toolName: telegram_send_message, parameters: {message: "Drink water!"}}\n---\nRemind me.\n'
    )
    skill = parse_skill_file(text, PATH)
    assert skill.execution_plan == (
        {"id": "step1", "toolName": "telegram_send_message", "parameters": {"message": "Drink water!"}},
    )
    assert skill.trigger_config == {"interval_minutes": 60}


def test_a_keyword_only_file_is_not_scheduled_and_keeps_the_defaults():
    skill = parse_skill_file("---\ndescription: d\nmetadata:\n  keywords: [a]\n---\nbody", PATH)
    assert not skill.scheduled
    assert (skill.priority, skill.max_steps, skill.notify_on_completion, skill.trigger_config) == (10, None, None, None)


BAD = [
    ("description: d\nmetadata: 5", "metadata must be a mapping"),
    ("metadata:\n  keywords: [a]", "description is missing"),
    ("description: d\nmetadata:\n  priority: high", "metadata.priority must be a whole number"),
    ("description: d\nmetadata:\n  max_steps: 0", "metadata.max_steps must be from 1 to 100"),
    ("description: d\nmetadata:\n  max_steps: lots", "metadata.max_steps must be a whole number"),
    ("description: d\nmetadata:\n  notify_on_completion: sometimes", "metadata.notify_on_completion must be true"),
    ("description: d\nmetadata:\n  keywords: {a: 1}", "metadata.keywords must be a list"),
    ("description: d\nmetadata:\n  required_tools: 5", "metadata.required_tools must be a list"),
    ("description: d\nmetadata:\n  trigger_config: daily", "metadata.trigger_config must be a mapping"),
    ("description: d\nmetadata:\n  trigger_config:\n    in_minutes: 5", "trigger_config.in_minutes cannot be used"),
    ("description: d\nmetadata:\n  trigger_config:\n    cron: 0 9 * * *", "trigger_config.cron is not known"),
    ("description: d\nmetadata:\n  trigger_config:\n    timezone: UTC", "needs exactly one of"),
    (
        "description: d\nmetadata:\n  trigger_config:\n    schedule: '0 9 * * *'\n    at: '2026-01-01T09:00'",
        "needs exactly one of",
    ),
    ("description: d\nmetadata:\n  trigger_config:\n    interval_minutes: 0", "interval_minutes must be from 1"),
    ("description: d\nmetadata:\n  trigger_config:\n    schedule: 5", "trigger_config.schedule must be a string"),
    ("description: d\nmetadata:\n  execution_plan: [telegram_send_message]", "step 1 must be an inline map"),
    ("description: d\nmetadata:\n  execution_plan:\n    - {parameters: {}}", "step 1 has no toolName"),
    ("description: d\nmetadata:\n  execution_plan: []", "execution_plan must be a list of steps"),
    ("name x", "expected `key: value`"),
]


@pytest.mark.parametrize(("frontmatter", "message"), BAD, ids=[b[1] for b in BAD])
def test_invalid_files_are_refused_naming_the_file_and_field(frontmatter: str, message: str):
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_file(f"---\n{frontmatter}\n---\nbody\n", PATH)
    assert str(caught.value).startswith(f"{PATH}: ")
    assert message in str(caught.value)


def test_load_skips_broken_files_and_reads_the_rest(tmp_path: Path):
    (tmp_path / "good").mkdir()
    (tmp_path / "good" / "SKILL.md").write_text(SCHEDULED)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "SKILL.md").write_text("---\ndescription: d\nmetadata:\n  max_steps: 0\n---\n")
    (tmp_path / "loose.md").write_text(SCHEDULED)
    assert [s.dir_name for s in load_skill_files(tmp_path)] == ["good"]
    with pytest.raises(FrontmatterError, match=r"bad/SKILL\.md: metadata\.max_steps"):
        read_skill_file(tmp_path / "bad" / "SKILL.md")


def test_the_thinker_reads_skill_files_from_shared():
    import thinker.context as context

    assert context.load_skill_files is load_skill_files
    assert context.SkillFile is SkillFile
