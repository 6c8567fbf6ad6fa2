"""Background jobs on APScheduler 3 with its SQLite job store: queued, persisted, run through `Hub.call`.

`submit` writes the job's record (`JobStore`) and hands APScheduler a job that runs now; APScheduler keeps it in
`$ANNABELLE_HOME/data/jobs.db` (its SQLAlchemy job store) until it starts, so a job queued just before the hub
stops runs when it is back. APScheduler calls `run_stored_job(job_id, key)` on the hub's event loop (its asyncio
executor); the runner that owns `key` runs the steps:

- a workflow in waves: every step whose dependencies succeeded starts at once, a step whose dependency failed is
  skipped, the job fails when any step failed (`orchestrator.jobs.model` decides);
- each step's tool call is `Hub.call(tool, parameters, caller=<the job's caller>)`: the agent that queued the job
  (its allowedTools/deniedTools apply, Guardian scans as for any call) or the owner. A job never has more power
  than whoever queued it, and a job cannot queue jobs. An agent's job runs in a turn of its own that starts with
  the queuing turn's taint (an agent that named no turn counts as tainted), so a job queued after reading
  untrusted content meets the same approval policy as the turn that queued it, and an untrusted step result
  taints the steps after it;
- results are kept short (`clip_result`) with sealed secrets masked, so neither the record nor `get_job_status`
  carries a secret in clear.

At most `concurrency` jobs run at once. A job that was running when the hub stopped is marked `interrupted`, not
run again: its tool calls may have had effects.

Start-up is in two steps so the hub's `/health` need not wait for APScheduler: `accept()` (before the hub says
ready: the records only, with the standard library's sqlite3) takes jobs, which wait as `queued`; `start()` (after)
imports APScheduler and SQLAlchemy (about 0.15 s of CPU, on a worker thread), starts the scheduler and hands it
every queued job it does not hold yet.
"""

from __future__ import annotations

import importlib
import logging
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import anyio.to_thread

from orchestrator.callers import OWNER, Caller, agent_caller
from orchestrator.jobs.model import FINISHED, MAX_ACTIVE_JOBS, clip_result, job_status, progress, ready_steps
from orchestrator.jobs.store import JobStore
from orchestrator.turns import TurnLedger
from shared.envelope import ErrorCode
from shared.mcp_tools import ToolFailure
from shared.secrets import mask_sealed
from shared.text import clip
from shared.traces import elapsed_ms, trace_event, traced

if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    from orchestrator.agents import AgentManager

__all__ = ["BACKFILL_TOOL", "MAX_ACTIVE_JOBS", "JobRunner", "run_stored_job"]

log = logging.getLogger(__name__)
# APScheduler logs every job it adds and runs at INFO; the runner logs what matters itself.
logging.getLogger("apscheduler").setLevel(logging.WARNING)

BACKFILL_TOOL = "memory_backfill_embeddings"
_ERROR_CHARS = 500

_RUNNERS: dict[str, JobRunner] = {}
"""The live runner per job store: APScheduler stores a job as a function reference and picklable arguments, so the
job names its store and finds the runner (and through it the hub) here."""


async def run_stored_job(job_id: str, key: str) -> None:
    """What APScheduler runs (by reference, from its SQLite store)."""
    runner = _RUNNERS.get(key)
    if runner is None:
        log.warning("a job started with no runner to take it", extra={"job": job_id})
        return
    await runner.run(job_id)


class JobsHost(Protocol):
    """What jobs use of the hub (`orchestrator.hub.Hub` is one)."""

    agents: AgentManager | None
    turns: TurnLedger

    async def call(self, name: str, arguments: dict[str, Any], *, caller: Caller) -> dict[str, Any]: ...


def _taint_of(caller: Caller) -> list[str]:
    """Why the queuing caller's work was tainted (its turn's reasons); the job's own turn starts with them."""
    if caller.turn is not None:
        return list(caller.turn.tainted_by)
    return ["queued by an agent outside a turn"] if caller.tainted else []


def _utc_now() -> datetime:
    return datetime.now(UTC)


class JobRunner:
    def __init__(
        self,
        host: JobsHost,
        path: Path,
        *,
        concurrency: int = 2,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        self.host = host
        self.path = path
        self.clock = clock
        self.store = JobStore(path, clock)
        self.key = str(path.resolve())
        self.scheduler: AsyncIOScheduler | None = None
        """APScheduler, once `start` has loaded it."""
        self._limiter = anyio.CapacityLimiter(concurrency)
        self._running: dict[str, anyio.CancelScope] = {}
        self.started = False
        """Jobs are taken (`accept`); they run once `scheduler` is set too."""

    # -- life -------------------------------------------------------------------------------------------------

    def accept(self) -> None:
        """Take over the job store and take jobs: the ones cut off by the last stop are marked interrupted, new ones
        wait as `queued` until `start`. Idempotent."""
        if self.started:
            return
        _RUNNERS[self.key] = self
        for record in self.store.with_status("running"):
            self._finish(record, "interrupted", "The hub stopped while this job ran; its steps were not repeated.")
        pruned = self.store.prune()
        self.started = True
        log.info("jobs accepted", extra={"pruned": pruned})

    async def start(self) -> None:
        """`accept`, then run the jobs: start APScheduler on its SQLite store and give it the queued jobs it lacks."""
        self.accept()
        # The import is most of the cost (SQLAlchemy); on a worker thread the event loop keeps answering meanwhile.
        await anyio.to_thread.run_sync(importlib.import_module, "apscheduler.jobstores.sqlalchemy")
        from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        if not self.started:
            return  # stopped while APScheduler loaded
        scheduler = AsyncIOScheduler(
            jobstores={"default": SQLAlchemyJobStore(url=f"sqlite:///{self.path}")},
            # A job found late (the hub was down when it was due) still runs, once.
            job_defaults={"misfire_grace_time": None, "coalesce": True, "max_instances": 1},
            timezone=UTC,
        )
        scheduler.start()
        self.scheduler = scheduler
        # Queued without a scheduler (taken before `start`, or the hub stopped between writing the record and
        # scheduling it): schedule now. No await from here on, so no job is queued in between.
        queued = self.store.with_status("queued")
        for record in queued:
            if scheduler.get_job(record["taskId"]) is None:
                self._schedule(record["taskId"])
        log.info("jobs ready", extra={"queued": len(queued)})

    async def stop(self) -> None:
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None
        self.started = False
        for scope in list(self._running.values()):
            scope.cancel()
        # Let the cancelled jobs record that they were interrupted.
        for _ in range(50):
            if not self._running:
                break
            await anyio.sleep(0.01)
        if _RUNNERS.get(self.key) is self:
            del _RUNNERS[self.key]
        self.store.close()

    # -- queueing ---------------------------------------------------------------------------------------------

    def submit(
        self,
        *,
        name: str,
        kind: str,
        steps: list[dict[str, Any]],
        caller: Caller,
        extra: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Record a job and schedule it to run now; returns its record."""
        if not self.started:
            raise ToolFailure("Background jobs are not running yet; retry in a moment.", code=ErrorCode.MCP_UNAVAILABLE)
        if self.store.count_active() >= MAX_ACTIVE_JOBS:
            raise ToolFailure(
                f"{MAX_ACTIVE_JOBS} jobs are queued or running already; wait for some to finish (get_job_status)."
            )
        record: dict[str, Any] = {
            "taskId": "job_" + uuid.uuid4().hex[:12],
            "name": name,
            "type": kind,
            "status": "queued",
            "createdAt": self.clock().isoformat(timespec="seconds"),
            "startedAt": None,
            "finishedAt": None,
            "caller": "agent" if caller.agent is not None else "owner",
            "agentId": caller.agent.agentId if caller.agent is not None else None,
            "taintedBy": _taint_of(caller),
            # The queuing request's words: the job may change the owner's records they name (turns.py `said`).
            "said": list(caller.turn.said) if caller.turn is not None else [],
            "steps": steps,
            "error": None,
            **(extra or {}),
        }
        self.store.save(record)
        self._schedule(record["taskId"])
        log.info("job queued", extra={"job": record["taskId"], "type": kind, "steps": len(steps)})
        return record

    def _schedule(self, job_id: str) -> None:
        if self.scheduler is None:
            return  # `start` schedules it: the record is queued
        self.scheduler.add_job(
            run_stored_job,
            "date",
            run_date=self.clock(),
            args=[job_id, self.key],
            id=job_id,
            name=job_id,
            replace_existing=True,
        )

    # -- reading ----------------------------------------------------------------------------------------------

    def status_of(self, job_id: str, caller: Caller) -> dict[str, Any] | None:
        """A job's record with its progress, for its owner: an agent sees only the jobs it queued."""
        record = self.store.get(job_id)
        if record is None:
            return None
        if caller.agent is not None and record.get("agentId") != caller.agent.agentId:
            return None
        # The queuing request's words are for the hub's own checks: a model reading the status would only pay
        # for them in tokens.
        shown = {key: value for key, value in record.items() if key != "said"}
        return {**shown, "progress": progress(record)}

    def summary(self) -> dict[str, Any]:
        """For /status: counts by state and the running jobs' progress."""
        running = [
            {"taskId": r["taskId"], "name": r["name"], "type": r["type"], "progress": progress(r)["text"]}
            for r in self.store.with_status("running")
        ]
        return {"counts": self.store.counts(), "running": running}

    # -- running ----------------------------------------------------------------------------------------------

    async def run(self, job_id: str) -> None:
        record = self.store.get(job_id)
        if record is None or record["status"] != "queued":
            return
        async with self._limiter:
            with traced(), anyio.CancelScope() as scope:
                self._running[job_id] = scope
                started = time.perf_counter()
                record.update(status="running", startedAt=self.clock().isoformat(timespec="seconds"))
                self.store.save(record)
                try:
                    await self._execute(record)
                except BaseException:
                    # Cancelled (the hub is stopping) or broken: either way the record says it did not finish.
                    self._finish(
                        record, "interrupted", "The hub stopped while this job ran; its steps were not repeated."
                    )
                    raise
                finally:
                    self._running.pop(job_id, None)
                trace_event("job_run", job=job_id, type=record["type"], status=record["status"], ms=elapsed_ms(started))

    async def _execute(self, record: dict[str, Any]) -> None:
        try:
            caller = self._caller(record)
        except ToolFailure as exc:
            self._finish(record, "failed", str(exc))
            return
        try:
            if record["type"] == "backfill":
                await self._backfill(record, caller)
            else:
                await self._workflow(record, caller)
        except Exception as exc:  # a bug in a step's handling must not leave the job running forever
            log.exception("job failed unexpectedly", extra={"job": record["taskId"]})
            self._finish(record, "failed", f"The job crashed ({type(exc).__name__}); the hub log has details.")

    def _caller(self, record: Mapping[str, Any]) -> Caller:
        if record.get("caller") != "agent":
            return OWNER
        agent_id = str(record.get("agentId"))
        agents = self.host.agents
        runtime = agents.agents.get(agent_id) if agents is not None else None
        if runtime is None:
            raise ToolFailure(f"The agent '{agent_id}' that queued this job is no longer in agents.json.")
        turn = self.host.turns.mint(agent_id, said=[str(text) for text in record.get("said") or []])
        for reason in record.get("taintedBy") or []:
            turn.taint(str(reason))
        return agent_caller(runtime.definition, turn)

    def _finish(self, record: dict[str, Any], status: str, error: str | None = None) -> None:
        record["status"] = status
        record["finishedAt"] = self.clock().isoformat(timespec="seconds")
        if error is not None:
            record["error"] = clip(error, _ERROR_CHARS)
        for step in record.get("steps") or []:
            if step["status"] in ("pending", "running") and status == "interrupted":
                step["status"] = "skipped" if step["status"] == "pending" else "failed"
                step.setdefault("error", "interrupted")
        self.store.save(record)
        log.info("job finished", extra={"job": record["taskId"], "status": status})

    async def _workflow(self, record: dict[str, Any], caller: Caller) -> None:
        steps: list[dict[str, Any]] = record["steps"]
        by_id = {step["id"]: step for step in steps}
        while True:
            ready, doomed = ready_steps(steps)
            for step_id in doomed:
                failed = [d for d in by_id[step_id].get("dependsOn") or [] if by_id[d]["status"] != "succeeded"]
                by_id[step_id].update(status="skipped", error=f"not run: {', '.join(failed)} did not succeed")
            if doomed:
                self.store.save(record)
            if not ready:
                if doomed:
                    continue
                break
            async with anyio.create_task_group() as wave:
                for step_id in ready:
                    wave.start_soon(self._step, record, by_id[step_id], caller)
        status = job_status(steps)
        failed = [step["id"] for step in steps if step["status"] == "failed"]
        self._finish(record, status, f"step(s) failed: {', '.join(failed)}" if failed else None)

    async def _step(self, record: dict[str, Any], step: dict[str, Any], caller: Caller) -> None:
        step.update(status="running", startedAt=self.clock().isoformat(timespec="seconds"))
        self.store.save(record)
        envelope = await self.host.call(step["toolName"], dict(step.get("parameters") or {}), caller=caller)
        step["finishedAt"] = self.clock().isoformat(timespec="seconds")
        if envelope.get("untrusted"):
            step["untrusted"] = True  # get_job_status passes the mark on: reading this result taints the reader
        if envelope.get("success"):
            step.update(status="succeeded", result=clip_result(mask_sealed(envelope.get("data"))))
        else:
            step.update(
                status="failed",
                error=clip(envelope.get("error") or "", _ERROR_CHARS),
                errorCode=envelope.get("errorCode"),
            )
        self.store.save(record)

    async def _backfill(self, record: dict[str, Any], caller: Caller) -> None:
        """Embeddings for facts that lack them, per agent, a batch at a time; progress in facts."""
        batch = int(record.get("batchSize") or 50)
        counted = record.setdefault("counted", {"done": 0, "total": 0, "unit": "facts"})
        for step in record["steps"]:
            step.update(status="running", startedAt=self.clock().isoformat(timespec="seconds"))
            self.store.save(record)
            first = True
            while True:
                arguments = {"agent_id": step["id"], "batch_size": batch}
                envelope = await self.host.call(BACKFILL_TOOL, arguments, caller=caller)
                if not envelope.get("success"):
                    step.update(status="failed", error=clip(envelope.get("error") or "", _ERROR_CHARS))
                    break
                data = envelope.get("data") or {}
                embedded, remaining = int(data.get("embedded") or 0), int(data.get("remaining") or 0)
                if first:
                    counted["total"] += embedded + remaining
                    first = False
                counted["done"] += embedded
                step["result"] = {"embedded": counted["done"], "remaining": remaining, "embedder": data.get("embedder")}
                self.store.save(record)
                if remaining <= 0 or int(data.get("processed") or 0) == 0:
                    step["status"] = "succeeded"
                    break
                if embedded == 0:
                    step.update(status="failed", error="the embedder added no vector in a whole batch")
                    break
            step["finishedAt"] = self.clock().isoformat(timespec="seconds")
            self.store.save(record)
        failed = [step["id"] for step in record["steps"] if step["status"] == "failed"]
        self._finish(record, job_status(record["steps"]), f"agent(s) failed: {', '.join(failed)}" if failed else None)

    def finished(self, job_id: str) -> bool:
        record = self.store.get(job_id)
        return record is not None and record["status"] in FINISHED
