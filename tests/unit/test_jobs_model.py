"""Background jobs' pure decisions: what a valid action is, which steps may start, the status and progress."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from orchestrator.jobs.model import JobAction, clip_result, job_status, progress, ready_steps, steps_of


def workflow(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"type": "workflow", "workflowSteps": list(steps)}


@pytest.mark.parametrize(
    ("action", "problem"),
    [
        ({"type": "tool_call"}, "needs toolName"),
        ({"type": "workflow"}, "at least one step"),
        (workflow({"id": "a", "toolName": "x"}, {"id": "a", "toolName": "y"}), "repeated: a"),
        (workflow({"id": "a", "toolName": "x", "dependsOn": ["b"]}), "do not exist: b"),
        (
            workflow(
                {"id": "a", "toolName": "x", "dependsOn": ["b"]}, {"id": "b", "toolName": "y", "dependsOn": ["a"]}
            ),
            "in a circle",
        ),
        ({"type": "tool_call", "toolName": "queue_task"}, "cannot call queue_task"),
        (
            {"type": "tool_call", "toolName": "x", "workflowSteps": [{"id": "a", "toolName": "y"}]},
            "belong to a workflow",
        ),
        ({"type": "shell", "toolName": "x"}, "type"),
        (workflow(*({"id": f"s{n}", "toolName": "x"} for n in range(51))), "at most 50"),
    ],
)
def test_an_invalid_action_is_refused_with_its_reason(action: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValidationError) as caught:
        JobAction.model_validate(action)
    assert problem in str(caught.value)


def test_a_tool_call_is_a_workflow_of_one_step() -> None:
    action = JobAction.model_validate({"type": "tool_call", "toolName": "echo_echo", "parameters": {"text": "hi"}})
    (step,) = steps_of(action)
    assert step["id"] == "call" and step["parameters"] == {"text": "hi"} and step["status"] == "pending"


def _steps(**status: str) -> list[dict[str, Any]]:
    deps = {"a": [], "b": ["a"], "c": ["a"], "d": ["b", "c"], "e": []}
    return [{"id": step, "dependsOn": deps[step], "status": state} for step, state in status.items()]


@pytest.mark.parametrize(
    ("status", "ready", "doomed"),
    [
        ({"a": "pending", "b": "pending", "c": "pending", "d": "pending", "e": "pending"}, ["a", "e"], []),
        ({"a": "succeeded", "b": "pending", "c": "pending", "d": "pending", "e": "running"}, ["b", "c"], []),
        ({"a": "succeeded", "b": "succeeded", "c": "running", "d": "pending", "e": "succeeded"}, [], []),
        ({"a": "failed", "b": "pending", "c": "pending", "d": "pending", "e": "pending"}, ["e"], ["b", "c"]),
        ({"a": "failed", "b": "skipped", "c": "skipped", "d": "pending", "e": "succeeded"}, [], ["d"]),
    ],
)
def test_a_step_starts_once_its_dependencies_succeeded_and_is_skipped_once_one_did_not(
    status: dict[str, str], ready: list[str], doomed: list[str]
) -> None:
    assert ready_steps(_steps(**status)) == (ready, doomed)


def test_a_job_fails_when_any_step_failed_or_was_skipped_and_progress_counts_ended_steps() -> None:
    done = _steps(a="succeeded", b="succeeded", c="succeeded", d="succeeded", e="succeeded")
    assert job_status(done) == "succeeded"
    assert job_status(_steps(a="succeeded", b="failed", c="succeeded", d="skipped", e="succeeded")) == "failed"
    assert progress({"steps": _steps(a="succeeded", b="failed", c="running", d="pending", e="skipped")}) == {
        "done": 3,
        "total": 5,
        "percent": 60,
        "text": "3/5 steps",
    }
    assert progress({"steps": [], "counted": {"done": 30, "total": 120, "unit": "facts"}})["text"] == "30/120 facts"


def test_a_long_result_keeps_its_start_and_says_how_long_it_was() -> None:
    assert clip_result({"a": 1}) == {"a": 1}
    clipped = clip_result({"text": "x" * 10_000}, limit=100)
    assert clipped["truncated"] is True and clipped["chars"] > 10_000 and len(clipped["start"]) == 100
