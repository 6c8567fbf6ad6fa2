"""The hub-native tools of background jobs: `queue_task`, `get_job_status`, `trigger_backfill`.

They register in the native-tool table when this module is imported (the app does). Each job runs its tool calls
with the caller that queued it: an agent's job is limited to the agent's tools, as the agent is.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from orchestrator.callers import Caller
from orchestrator.jobs.model import JobAction, steps_of
from orchestrator.jobs.runner import JobRunner
from orchestrator.native_tools import READS_HUB_STATE, NativeHost, Untrusted, native_tool
from shared.agents import DEFAULT_AGENT_ID
from shared.envelope import ErrorCode
from shared.manifest import ToolEffects
from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure, describe_validation

QUEUES_WORK = ToolEffects()
"""Runs other tools later: its effects are theirs (any of the caller's tools), so the worst is assumed."""
EMBEDS_FACTS = ToolEffects(readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False)
"""Adds vectors to facts in local memory; running it twice adds nothing more."""


def _runner(hub: NativeHost) -> JobRunner:
    if hub.jobs is None or not hub.jobs.started:
        raise ToolFailure(
            "Background jobs are not running in this hub yet; retry in a moment.", code=ErrorCode.MCP_UNAVAILABLE
        )
    return hub.jobs


class QueueTaskParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="A short name for the job, shown in its status.")
    action: dict[str, Any] = Field(
        description=(
            "What to run: {type: 'tool_call', toolName, parameters} or {type: 'workflow', workflowSteps: "
            "[{id, name, toolName, parameters, dependsOn: [step ids]}]} (steps run once their dependencies succeeded)."
        ),
    )


@native_tool("queue_task", QueueTaskParams, effects=QUEUES_WORK)
async def queue_task(hub: NativeHost, params: QueueTaskParams, caller: Caller) -> dict[str, Any]:
    """Run a tool call or a workflow of steps in the background; answers at once with a taskId.

    Use it for slow or many-step work the user need not wait for. Steps run as you would run them (your tools
    only). Check on it with get_job_status.
    """
    try:
        action = JobAction.model_validate(params.action)
    except ValidationError as exc:
        raise InvalidArguments(f"queue_task action: {describe_validation(exc)}") from None
    record = _runner(hub).submit(name=params.name, kind=action.type, steps=steps_of(action), caller=caller)
    return {
        "taskId": record["taskId"],
        "status": record["status"],
        "name": record["name"],
        "steps": [step["id"] for step in record["steps"]],
        "note": "Queued; get_job_status with this taskId tells its progress and results.",
    }


class JobStatusParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    taskId: str = Field(min_length=1, max_length=64, description="The taskId queue_task or trigger_backfill gave.")


@native_tool("get_job_status", JobStatusParams, effects=READS_HUB_STATE)
async def get_job_status(hub: NativeHost, params: JobStatusParams, caller: Caller) -> dict[str, Any] | Untrusted:
    """The status of a background job: queued, running, succeeded, failed or interrupted; its progress, each
    step's outcome and result (shortened)."""
    status = _runner(hub).status_of(params.taskId, caller)
    if status is None:
        raise InvalidArguments(f"No job {params.taskId!r} (jobs are kept 30 days after they finish).")
    # A step that read mail or the web hands its result on: whoever reads it reads untrusted content.
    return Untrusted(status) if any(step.get("untrusted") for step in status.get("steps") or []) else status


class BackfillParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent_id: str | None = Field(
        default=None,
        max_length=64,
        description="Only this agent's facts (default: your own; for the owner every agent in agents.json).",
    )
    batch_size: int = Field(default=50, ge=1, le=200, description="Facts embedded per call to the Memorizer.")


def _backfill_agents(hub: NativeHost, wanted: str | None, caller: Caller) -> list[str]:
    if caller.agent is not None:
        if wanted not in (None, caller.agent.agentId):
            raise NotAllowed(f"An agent may backfill only its own facts ({caller.agent.agentId!r}).")
        return [caller.agent.agentId]
    if wanted is not None:
        return [wanted]
    agents = hub.agents
    ids = [agent.agentId for agent in agents.config.agents] if agents is not None else []
    return ids or [DEFAULT_AGENT_ID]


@native_tool("trigger_backfill", BackfillParams, effects=EMBEDS_FACTS)
async def trigger_backfill(hub: NativeHost, params: BackfillParams, caller: Caller) -> dict[str, Any]:
    """Compute embeddings for memory facts that lack one (after changing EMBEDDING_PROVIDER, or when the embedder
    was down), in the background; answers with a taskId whose progress get_job_status shows."""
    agent_ids = _backfill_agents(hub, params.agent_id, caller)
    steps = [
        {
            "id": agent_id,
            "name": f"embeddings for {agent_id}",
            "toolName": "memory_backfill_embeddings",
            "parameters": {"agent_id": agent_id, "batch_size": params.batch_size},
            "dependsOn": [],
            "status": "pending",
        }
        for agent_id in agent_ids
    ]
    record = _runner(hub).submit(
        name="embedding backfill",
        kind="backfill",
        steps=steps,
        caller=caller,
        extra={"batchSize": params.batch_size, "counted": {"done": 0, "total": 0, "unit": "facts"}},
    )
    return {"taskId": record["taskId"], "status": record["status"], "agents": agent_ids}
