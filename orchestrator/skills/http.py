"""The hub's skill endpoints (master token), used by `annabelle skills` and curl.

GET  /skills                      every agent's skills with next run, backoff and whether one is running
POST /skills/{id}/run             run it now, whatever its schedule: {success, status, summary}
POST /skills/{id}/enable|disable  a hand-made switch (through the skill hook: clears the waiting marker,
                                  and enabling forgets past failures)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from orchestrator.callers import OWNER

if TYPE_CHECKING:
    from orchestrator.skills.scheduler import SkillScheduler

__all__ = ["skills_router"]

_NOT_RUNNING = "The skill scheduler is not running: the memory MCP is not available (see GET /status)."


def skills_router(scheduler: SkillScheduler) -> APIRouter:
    router = APIRouter(tags=["skills"])

    @router.get("/skills")
    async def list_skills() -> JSONResponse:
        """Every agent's skills with `next_run_at`, `next_run_reason`, `backing_off` and `running`."""
        if not scheduler.available:
            return JSONResponse({"success": False, "error": _NOT_RUNNING})
        return JSONResponse({"success": True, "skills": await scheduler.listing()})

    @router.post("/skills/{skill_id}/run")
    async def run_skill(skill_id: int) -> JSONResponse:
        """Run a skill now (its tier, pre-flight and bookkeeping as when scheduled); waits for the result."""
        if not scheduler.available:
            return JSONResponse({"success": False, "error": _NOT_RUNNING})
        report = await scheduler.run_now(skill_id)
        if report is None:
            return JSONResponse({"success": False, "error": f"No skill with id {skill_id}; GET /skills lists them."})
        return JSONResponse(report.as_json())

    async def switch(skill_id: int, enabled: bool) -> JSONResponse:
        if not scheduler.available:
            return JSONResponse({"success": False, "error": _NOT_RUNNING})
        await scheduler.refresh()
        skill = next((s for s in scheduler.skills() if s.get("id") == skill_id), None)
        if skill is None:
            return JSONResponse({"success": False, "error": f"No skill with id {skill_id}; GET /skills lists them."})
        args: dict[str, Any] = {"skill_id": skill_id, "agent_id": skill.get("agent_id"), "enabled": enabled}
        envelope = await scheduler.hub.call("memory_update_skill", args, caller=OWNER)
        if not envelope.get("success"):
            return JSONResponse({"success": False, "error": envelope.get("error")})
        await scheduler.refresh()
        return JSONResponse({"success": True, "skillId": skill_id, "name": skill.get("name"), "enabled": enabled})

    @router.post("/skills/{skill_id}/enable")
    async def enable_skill(skill_id: int) -> JSONResponse:
        """Turn a skill on (its failure count starts again from zero)."""
        return await switch(skill_id, True)

    @router.post("/skills/{skill_id}/disable")
    async def disable_skill(skill_id: int) -> JSONResponse:
        """Turn a skill off; the scheduler will not turn it back on by itself."""
        return await switch(skill_id, False)

    return router
