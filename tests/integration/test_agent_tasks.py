"""The agent benchmark's tasks (benchmarks/agent_tasks.py) checked with a perfect model.

A scripted model makes each task's tool calls through the whole stack (the real hub, its MCPs, the Thinker, the
fake Google and Brave servers); every end-state check must then pass. A failure here is a broken task or a
broken path through the stack, not a weak model. The stack test runs one task per category (three of them not
in English) to stay fast; `python benchmarks/agent_tasks.py --perfect` runs all of them.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

from agent_tasks import TASK_SETS, run  # noqa: E402
from agent_taskset import CATEGORIES, TASKS, Task, task_by_id  # noqa: E402
from agent_taskset_fresh import FRESH_TASKS, SET_NAME  # noqa: E402
from agent_taskset_fresh_b import FRESH_B_TASKS  # noqa: E402
from agent_taskset_fresh_b import SET_NAME as SET_NAME_B  # noqa: E402
from agent_taskset_fresh_c import FRESH_C_TASKS  # noqa: E402
from agent_taskset_fresh_c import SET_NAME as SET_NAME_C  # noqa: E402
from agent_taskset_fresh_d import FRESH_D_TASKS  # noqa: E402
from agent_taskset_fresh_d import SET_NAME as SET_NAME_D  # noqa: E402
from agent_taskset_fresh_e import FRESH_E_TASKS  # noqa: E402
from agent_taskset_fresh_e import SET_NAME as SET_NAME_E  # noqa: E402
from agent_taskset_fresh_f import FRESH_F_TASKS  # noqa: E402
from agent_taskset_fresh_f import SET_NAME as SET_NAME_F  # noqa: E402
from agent_taskset_fresh_g import FRESH_G_TASKS  # noqa: E402
from agent_taskset_fresh_g import SET_NAME as SET_NAME_G  # noqa: E402
from agent_taskset_fresh_h import FRESH_H_TASKS  # noqa: E402
from agent_taskset_fresh_h import SET_NAME as SET_NAME_H  # noqa: E402
from agent_taskset_fresh_i import FRESH_I_TASKS  # noqa: E402
from agent_taskset_fresh_i import SET_NAME as SET_NAME_I  # noqa: E402
from agent_taskset_fresh_j import FRESH_J_TASKS  # noqa: E402
from agent_taskset_fresh_j import SET_NAME as SET_NAME_J  # noqa: E402

SAMPLE = (
    "files-create-pt",
    "memory-ru",
    "skills-weekly",
    "email-send",
    "calendar-es",
    "search-weather",
    "multi-calendar-file",
    "follow-file",
)
"""One task per category; between them they reach every fake server and the Filer, Memorizer and skills."""


def assert_well_formed(tasks: Sequence[Task], prefix: str) -> None:
    """Ids of the batch's own (prefixed, unique), one scripted answer per turn, no empty turn."""
    assert all(task.id.startswith(prefix) for task in tasks)
    assert len({task.id for task in tasks}) == len(tasks)
    for task in tasks:
        assert len(task.script) == len(task.turns), task.id
        assert all(text.strip() for text in task.turns), task.id


BATCH_OF_24 = {
    "files": 3,
    "memory": 4,
    "skills": 5,
    "email": 3,
    "calendar": 3,
    "search": 2,
    "multistep": 2,
    "followup": 2,
}
"""Tasks per category of the sixth to tenth batches."""


def test_the_task_set_has_forty_user_tasks_in_every_category_with_eight_not_in_english() -> None:
    assert len(TASKS) >= 40
    assert len({task.id for task in TASKS}) == len(TASKS)
    assert sum(task.lang != "en" for task in TASKS) >= 8
    per_category = Counter(task.category for task in TASKS)
    assert set(per_category) == set(CATEGORIES) and min(per_category.values()) >= 4
    for task in TASKS:
        assert len(task.script) == len(task.turns), task.id
        assert all(text.strip() for text in task.turns), task.id


def test_the_fresh_batch_is_a_set_of_its_own_in_every_category_and_eight_languages() -> None:
    assert TASK_SETS[SET_NAME] == FRESH_TASKS and TASK_SETS["first"] == TASKS
    assert len(FRESH_TASKS) >= 20
    assert {task.category for task in FRESH_TASKS} == set(CATEGORIES)
    assert len({task.lang for task in FRESH_TASKS} - {"en"}) >= 7
    assert sum(len(task.turns) > 1 for task in FRESH_TASKS) >= 3
    assert_well_formed(FRESH_TASKS, "fresh-")
    everything = TASK_SETS["all"]
    assert len({task.id for task in everything}) == len(everything)
    # The perfect model knows a task and its turn by the user's message alone.
    messages = [text for task in everything for text in task.turns]
    assert len(set(messages)) == len(messages)


def test_the_second_fresh_batch_is_a_set_of_its_own_with_reminders_of_every_kind_and_eight_languages() -> None:
    assert TASK_SETS[SET_NAME_B] == FRESH_B_TASKS
    assert len(FRESH_B_TASKS) >= 20
    assert {task.category for task in FRESH_B_TASKS} == set(CATEGORIES)
    per_category = Counter(task.category for task in FRESH_B_TASKS)
    assert per_category["skills"] >= 7 and per_category["memory"] >= 4 and per_category["files"] >= 3
    assert per_category["email"] + per_category["calendar"] >= 3 and per_category["search"] >= 2
    assert sum(task.lang != "en" for task in FRESH_B_TASKS) >= 8
    assert len({task.lang for task in FRESH_B_TASKS} - {"en"}) >= 8
    assert sum(len(task.turns) > 1 for task in FRESH_B_TASKS) >= 2
    assert_well_formed(FRESH_B_TASKS, "freshb-")


def test_the_third_fresh_batch_is_a_set_of_its_own_in_every_category_and_eight_other_languages() -> None:
    assert TASK_SETS[SET_NAME_C] == FRESH_C_TASKS
    assert len(FRESH_C_TASKS) >= 25
    assert {task.category for task in FRESH_C_TASKS} == set(CATEGORIES)
    per_category = Counter(task.category for task in FRESH_C_TASKS)
    assert per_category["skills"] >= 6 and per_category["memory"] >= 4 and per_category["followup"] >= 3
    assert sum(task.lang != "en" for task in FRESH_C_TASKS) >= 8
    assert len({task.lang for task in FRESH_C_TASKS} - {"en"}) >= 8
    # Languages the earlier batches hardly used, so the batch says something new about them.
    earlier = {task.lang for task in TASKS + FRESH_TASKS + FRESH_B_TASKS}
    assert len({task.lang for task in FRESH_C_TASKS} - earlier) >= 5
    assert_well_formed(FRESH_C_TASKS, "freshc-")


def test_the_fourth_fresh_batch_is_a_set_of_its_own_with_every_kind_of_task_and_seven_new_languages() -> None:
    assert TASK_SETS[SET_NAME_D] == FRESH_D_TASKS
    assert len(FRESH_D_TASKS) == 20
    per_category = Counter(task.category for task in FRESH_D_TASKS)
    assert per_category == {
        "skills": 5,
        "memory": 4,
        "files": 2,
        "email": 2,
        "calendar": 2,
        "search": 1,
        "multistep": 2,
        "followup": 2,
    }
    assert set(per_category) == set(CATEGORIES)
    # Languages none of the earlier batches used, so the batch says something new about them.
    earlier = {task.lang for task in TASKS + FRESH_TASKS + FRESH_B_TASKS + FRESH_C_TASKS}
    others = [task.lang for task in FRESH_D_TASKS if task.lang != "en"]
    assert len(others) >= 7 and len(set(others) - earlier) >= 7
    assert_well_formed(FRESH_D_TASKS, "freshd-")


def test_the_fifth_fresh_batch_is_a_set_of_its_own_with_changed_reminders_and_ten_new_languages() -> None:
    assert TASK_SETS[SET_NAME_E] == FRESH_E_TASKS
    assert len(FRESH_E_TASKS) == 20
    per_category = Counter(task.category for task in FRESH_E_TASKS)
    assert per_category == {
        "skills": 5,
        "memory": 3,
        "files": 3,
        "email": 2,
        "calendar": 2,
        "search": 1,
        "multistep": 2,
        "followup": 2,
    }
    # Reminders the setup stored, which the task must change, pause or cancel.
    assert sum(task.category == "skills" and task.setup is not None for task in FRESH_E_TASKS) >= 3
    # Languages none of the earlier batches used, so the batch says something new about them.
    earlier = {task.lang for task in TASKS + FRESH_TASKS + FRESH_B_TASKS + FRESH_C_TASKS + FRESH_D_TASKS}
    others = [task.lang for task in FRESH_E_TASKS if task.lang != "en"]
    assert len(others) >= 8 and len(set(others) - earlier) >= 8
    assert_well_formed(FRESH_E_TASKS, "freshe-")


def test_the_sixth_fresh_batch_is_a_set_of_its_own_with_stored_reminders_changed_and_ten_new_languages() -> None:
    assert TASK_SETS[SET_NAME_F] == FRESH_F_TASKS
    assert len(FRESH_F_TASKS) == 24
    per_category = Counter(task.category for task in FRESH_F_TASKS)
    assert per_category == BATCH_OF_24
    # Reminders the setup stored, which the task must cancel, resume or retime.
    assert sum(task.category == "skills" and task.setup is not None for task in FRESH_F_TASKS) >= 2
    # Languages none of the earlier batches used, so the batch says something new about them.
    earlier = {
        task.lang for task in TASKS + FRESH_TASKS + FRESH_B_TASKS + FRESH_C_TASKS + FRESH_D_TASKS + FRESH_E_TASKS
    }
    others = [task.lang for task in FRESH_F_TASKS if task.lang != "en"]
    assert len(others) >= 10 and len(set(others) - earlier) >= 10
    assert_well_formed(FRESH_F_TASKS, "freshf-")


def test_the_seventh_fresh_batch_is_a_set_of_its_own_with_stored_reminders_changed_and_twelve_languages() -> None:
    assert TASK_SETS[SET_NAME_G] == FRESH_G_TASKS
    assert TASK_SETS["all"] == sum((tasks for name, tasks in TASK_SETS.items() if name != "all"), ())
    assert len(FRESH_G_TASKS) == 24
    per_category = Counter(task.category for task in FRESH_G_TASKS)
    assert per_category == BATCH_OF_24
    # Reminders the setup stored, which the task must pause, move to other days or cancel.
    assert sum(task.category == "skills" and task.setup is not None for task in FRESH_G_TASKS) >= 3
    # Half in English, half in twelve other languages, one task each.
    others = [task.lang for task in FRESH_G_TASKS if task.lang != "en"]
    assert sorted(others) == sorted(["es", "de", "fr", "it", "pt", "nl", "pl", "ru", "ja", "tr", "sv", "cs"])
    assert sum(len(task.turns) > 1 for task in FRESH_G_TASKS) >= 2
    assert_well_formed(FRESH_G_TASKS, "freshg-")


def test_the_eighth_fresh_batch_is_a_set_of_its_own_with_stored_reminders_changed_and_twelve_languages() -> None:
    assert TASK_SETS[SET_NAME_H] == FRESH_H_TASKS
    assert TASK_SETS["all"] == sum((tasks for name, tasks in TASK_SETS.items() if name != "all"), ())
    assert len(FRESH_H_TASKS) == 24
    per_category = Counter(task.category for task in FRESH_H_TASKS)
    assert per_category == BATCH_OF_24
    # Reminders the setup stored, which the task must pause, move to other days or cancel.
    assert sum(task.category == "skills" and task.setup is not None for task in FRESH_H_TASKS) >= 3
    # Half in English, half in twelve other languages, one task each.
    others = [task.lang for task in FRESH_H_TASKS if task.lang != "en"]
    assert sorted(others) == sorted(["es", "de", "fr", "pl", "pt", "uk", "ko", "zh", "ar", "hi", "el", "ro"])
    # At least four of them not in the seventh batch, so the batch says something new about them.
    assert len(set(others) - {task.lang for task in FRESH_G_TASKS}) >= 4
    assert sum(len(task.turns) > 1 for task in FRESH_H_TASKS) >= 2
    assert_well_formed(FRESH_H_TASKS, "freshh-")


def test_the_ninth_fresh_batch_is_a_set_of_its_own_with_stored_reminders_changed_and_twelve_languages() -> None:
    assert TASK_SETS[SET_NAME_I] == FRESH_I_TASKS
    assert TASK_SETS["all"] == sum((tasks for name, tasks in TASK_SETS.items() if name != "all"), ())
    assert len(FRESH_I_TASKS) == 24
    per_category = Counter(task.category for task in FRESH_I_TASKS)
    assert per_category == BATCH_OF_24
    # Reminders the setup stored, which the task must pause, move to other days or cancel.
    assert sum(task.category == "skills" and task.setup is not None for task in FRESH_I_TASKS) >= 3
    # Half in English, half in twelve other languages, one task each.
    others = [task.lang for task in FRESH_I_TASKS if task.lang != "en"]
    assert sorted(others) == sorted(["nl", "de", "fi", "tr", "hu", "es", "sv", "id", "it", "pl", "vi", "fr"])
    # At least four of them not in the eighth batch, so the batch says something new about them.
    assert len(set(others) - {task.lang for task in FRESH_H_TASKS}) >= 4
    assert sum(len(task.turns) > 1 for task in FRESH_I_TASKS) >= 2
    assert_well_formed(FRESH_I_TASKS, "freshi-")


def test_the_tenth_fresh_batch_is_a_set_of_its_own_with_stored_reminders_changed_and_twelve_new_languages() -> None:
    assert TASK_SETS[SET_NAME_J] == FRESH_J_TASKS
    assert len(FRESH_J_TASKS) == 24
    assert Counter(task.category for task in FRESH_J_TASKS) == BATCH_OF_24
    assert sum(task.category == "skills" and task.setup is not None for task in FRESH_J_TASKS) >= 3
    others = [task.lang for task in FRESH_J_TASKS if task.lang != "en"]
    assert len(others) == 12 and len(set(others)) == 12
    # None of its languages in the ninth batch.
    assert not set(others) & {task.lang for task in FRESH_I_TASKS}
    assert sum(len(task.turns) > 1 for task in FRESH_J_TASKS) >= 2
    assert_well_formed(FRESH_J_TASKS, "freshj-")


def test_the_stack_sample_covers_every_category() -> None:
    assert {task_by_id(task_id).category for task_id in SAMPLE} == set(CATEGORIES)


@pytest.mark.slow
def test_a_perfect_model_gets_a_task_of_every_category_done_through_the_whole_stack(tmp_path: Path) -> None:
    lines: list[str] = []
    result = run(
        [task_by_id(task_id) for task_id in SAMPLE],
        model="",
        api_base=None,
        perfect=True,
        turn_timeout=120,
        embeddings="none",
        workdir=tmp_path / "bench",
        # Guardian's rules only: the classifier's scan of a results page costs seconds on a busy CI machine, and
        # these tasks check the path through the stack, not Guardian.
        extra_env={"GUARDIAN_SCANNER": "rules"},
        agent_fields={"temperature": 0.3},
        log=lines.append,
    )
    assert result["failures"] == [], "\n".join(lines)
    assert result["success"] == 1.0 and result["tasks"] == len(SAMPLE)
    assert result["per_language"]["non_english"]["passed"] == 3
    assert result["schema_valid_rate"] == 1.0 and result["tool_calls"] >= len(SAMPLE)
    assert result["prompt_tokens_p50"] is not None and result["model_calls_per_task"] >= 2
    # Every model call is kept with the run's files, to read a failure by.
    journal = (tmp_path / "bench" / "model-exchanges.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(journal) == result["model_calls"]
    requests = [json.loads(line)["request"] for line in journal]
    assert all(request["messages"] for request in requests)
    # The run's agent fields reach agents.json and so every model call (the guards' retries only ever go cooler).
    assert result["agent_fields"] == {"temperature": 0.3}
    assert max(request["temperature"] for request in requests) == 0.3
