"""What a background job is and how it advances. Pure, no I/O.

A job is the original's `queue_task` action: one `tool_call`, or a `workflow` of steps with `dependsOn`, plus the
hub's own `backfill` (embeddings for facts that lack them). Its record (status, each step's outcome, progress) is
a plain dict the store persists as JSON; the runner asks this module which steps may start and what the job's
status is once they end, so the tests walk a workflow through plain function calls.

Statuses: a job is `queued` → `running` → `succeeded` | `failed` | `interrupted` (the hub stopped while it ran:
its steps are not repeated, since a tool call may have had effects). A step is `pending` → `running` →
`succeeded` | `failed` | `skipped` (a step it depends on did not succeed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from graphlib import CycleError, TopologicalSorter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

__all__ = [
    "FINISHED",
    "MAX_RESULT_CHARS",
    "MAX_STEPS",
    "NOT_IN_JOBS",
    "JobAction",
    "WorkflowStep",
    "clip_result",
    "job_status",
    "progress",
    "ready_steps",
    "steps_of",
]

JobStatus = Literal["queued", "running", "succeeded", "failed", "interrupted"]
StepStatus = Literal["pending", "running", "succeeded", "failed", "skipped"]
FINISHED: frozenset[str] = frozenset({"succeeded", "failed", "interrupted"})
MAX_ACTIVE_JOBS = 100
"""Queued and running jobs at most; `queue_task` refuses more."""
MAX_STEPS = 50
MAX_RESULT_CHARS = 4_000
"""A step's result is kept this long at most (its JSON text); a longer one keeps its start and says so."""
NOT_IN_JOBS = frozenset({"queue_task", "trigger_backfill"})
"""Tools a job may not call: a job queueing jobs would be a way round the limit on active jobs."""

_STEP_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
_TOOL = r"^[A-Za-z][A-Za-z0-9_.-]{0,127}$"


class WorkflowStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=_STEP_ID, description="Unique within the workflow; dependsOn names these.")
    name: str | None = Field(default=None, max_length=200, description="What the step does, for the status.")
    toolName: str = Field(pattern=_TOOL, description="The tool to call, as in /tools/list.")
    parameters: dict[str, JsonValue] = Field(default_factory=dict, description="The tool's arguments.")
    dependsOn: list[str] = Field(
        default_factory=list, max_length=MAX_STEPS, description="Steps that must succeed before this one starts."
    )


class JobAction(BaseModel):
    """The original's `action`: `tool_call` (toolName + parameters) or `workflow` (workflowSteps)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["tool_call", "workflow"] = Field(description="One tool call, or several steps with dependencies.")
    toolName: str | None = Field(default=None, pattern=_TOOL, description="For tool_call: the tool to call.")
    parameters: dict[str, JsonValue] = Field(default_factory=dict, description="For tool_call: its arguments.")
    workflowSteps: list[WorkflowStep] = Field(
        default_factory=list, max_length=MAX_STEPS, description="For workflow: the steps (at most 50)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> JobAction:
        if self.type == "tool_call":
            if self.toolName is None:
                raise ValueError("a tool_call action needs toolName")
            if self.workflowSteps:
                raise ValueError("workflowSteps belong to a workflow action, not a tool_call")
        else:
            if not self.workflowSteps:
                raise ValueError("a workflow action needs at least one step in workflowSteps")
            if self.toolName is not None or self.parameters:
                raise ValueError("toolName and parameters belong to a tool_call; a workflow's steps carry their own")
            _check_graph(self.workflowSteps)
        banned = sorted({step.toolName for step in self.steps()} & NOT_IN_JOBS)
        if banned:
            raise ValueError(f"a job cannot call {', '.join(banned)}")
        return self

    def steps(self) -> list[WorkflowStep]:
        """The steps to run: a tool_call is a workflow of one step named `call`."""
        if self.type == "tool_call":
            assert self.toolName is not None
            return [WorkflowStep(id="call", toolName=self.toolName, parameters=self.parameters)]
        return list(self.workflowSteps)


def _check_graph(steps: list[WorkflowStep]) -> None:
    ids = [step.id for step in steps]
    repeated = sorted({step_id for step_id in ids if ids.count(step_id) > 1})
    if repeated:
        raise ValueError(f"step ids must be unique; repeated: {', '.join(repeated[:5])}")
    unknown = sorted({dep for step in steps for dep in step.dependsOn} - set(ids))
    if unknown:
        raise ValueError(f"dependsOn names steps that do not exist: {', '.join(unknown[:5])}")
    try:
        TopologicalSorter({step.id: set(step.dependsOn) for step in steps}).prepare()
    except CycleError as exc:
        cycle = " → ".join(str(node) for node in exc.args[1][:6])
        raise ValueError(f"the steps depend on each other in a circle ({cycle})") from None


def steps_of(action: JobAction) -> list[dict[str, Any]]:
    """The record's step list for a new job: every step pending."""
    return [
        {
            "id": step.id,
            "name": step.name or step.toolName,
            "toolName": step.toolName,
            "parameters": step.parameters,
            "dependsOn": step.dependsOn,
            "status": "pending",
        }
        for step in action.steps()
    ]


def ready_steps(steps: list[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """(steps that may start now, pending steps to mark skipped because a dependency failed or was skipped)."""
    status = {str(step["id"]): str(step["status"]) for step in steps}
    ready: list[str] = []
    doomed: list[str] = []
    for step in steps:
        if step["status"] != "pending":
            continue
        deps = [status[dep] for dep in step.get("dependsOn") or []]
        if any(dep in ("failed", "skipped") for dep in deps):
            doomed.append(str(step["id"]))
        elif all(dep == "succeeded" for dep in deps):
            ready.append(str(step["id"]))
    return ready, doomed


def job_status(steps: list[Mapping[str, Any]]) -> JobStatus:
    """A job whose steps have all ended: failed when any step failed or was skipped, else succeeded."""
    if any(step["status"] in ("failed", "skipped") for step in steps):
        return "failed"
    return "succeeded"


def progress(record: Mapping[str, Any]) -> dict[str, Any]:
    """`{done, total, percent, text}`: steps ended of all (a backfill: facts processed of those missing)."""
    counted = record.get("counted")
    if isinstance(counted, Mapping) and counted.get("total"):
        done, total = int(counted.get("done") or 0), int(counted["total"])
        unit = str(counted.get("unit") or "items")
    else:
        steps = list(record.get("steps") or [])
        done = sum(1 for step in steps if step.get("status") in ("succeeded", "failed", "skipped"))
        total = len(steps)
        unit = "steps"
    percent = 100 if total == 0 else round(100 * min(done, total) / total)
    return {"done": done, "total": total, "percent": percent, "text": f"{done}/{total} {unit}"}


def clip_result(value: Any, limit: int = MAX_RESULT_CHARS) -> Any:
    """A step's result as kept in the record: itself when its JSON is short, else the start of that JSON."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= limit:
        return value
    return {"truncated": True, "chars": len(text), "start": text[:limit]}
