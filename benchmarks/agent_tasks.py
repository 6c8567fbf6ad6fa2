"""Benchmark: how often the agent gets a user's task done, on the whole stack, with a real model.

The stack is the product, unchanged: the real hub (`python -m orchestrator`) with its real MCP children
(Guardian, Filer, Memorizer, Gmail, Searcher), the Thinker it starts, Google's Gmail and Calendar APIs faked by
`tests/fakes/google_server.py` and Brave Search by `tests/fakes/brave_server.py` on 127.0.0.1. The model is
reached through a small recording proxy (same OpenAI API), which is how the figures below are measured without
touching the product. The tasks and their end-state checks are in `agent_taskset.py` (45 tasks, 11 of them
not in English); one stack serves them all, each in its own chat.

    python benchmarks/agent_tasks.py --model openai/qwen2.5-coder-1.5b --api-base http://127.0.0.1:8088/v1
    python benchmarks/agent_tasks.py --perfect        # a scripted perfect model: must reach 100 %

A call the hub holds for the owner's approval (a side effect in a turn that read untrusted data: mail, web, files)
is approved, as the owner who asked for it would; the count is printed ("approvals").

`--set` picks a group of tasks: `first` (the default: the 45 tasks of `agent_taskset.py`, every one of them
read while fixing the product), `fresh-2026-11-27` (`agent_taskset_fresh.py`: written later by another author,
never used to fix anything; measure before reading its failures), `fresh-2026-11-27b` (`agent_taskset_fresh_b.py`:
a second such batch by a third author, for after the first one is fitted), `fresh-2026-11-28`
(`agent_taskset_fresh_c.py`: a third, by a fourth author, to measure the product after the fixes made from reading
the first two), `fresh-2026-11-28b` (`agent_taskset_fresh_d.py`: a fourth, by a fifth author, to measure the
product after the fixes made from reading the first three), `fresh-2026-11-28c` (`agent_taskset_fresh_e.py`: a
fifth, by a sixth author, for after the fourth is fitted), `fresh-2026-11-28d` (`agent_taskset_fresh_f.py`: a
sixth, by a seventh author, for a later session after the fifth is fitted), `fresh-2026-11-28e`
(`agent_taskset_fresh_g.py`: a seventh, by an eighth author, likewise for a later session), `fresh-2026-11-28f`
(`agent_taskset_fresh_h.py`: an eighth, by a ninth author, likewise for a later session), `fresh-2026-11-28g`
(`agent_taskset_fresh_i.py`: a ninth, by a tenth author, likewise for a later session), `fresh-2026-11-28h`
(`agent_taskset_fresh_j.py`: a tenth, by an eleventh author, likewise for a later session), or `all`.

`--perfect` answers every model request from the task's script (`Task.script`), loading a tool category with
`load_tools` first when the selection did not offer the tool it needs: it checks the tasks and their checks,
not a model. `--tasks id,id` runs some tasks only (of any set); `--turn-timeout` sets the agent's turnTimeoutSeconds,
`--max-output-tokens` and `--temperature` its maxOutputTokens and temperature (the summary's `agent_fields`);
`--max-minutes` starts no task after that time (a slow model on a busy CPU: the figures are then those of the
tasks run, and `not_run` names the others). With `--workdir` the run's files stay: the hub's and the Thinker's
logs and traces under `home/logs`, the sessions, and every model call as it went over the wire
(`model-exchanges.jsonl`: request, answer, seconds), which is where a failure is read.

Printed: a line per task (PASS/FAIL, model calls, prompt tokens, seconds, what was wrong), task success per
category, per language group and overall; the schema-valid tool-call rate (tool calls naming an offered tool
with arguments that are a JSON object valid against the schema the model was given); prompt tokens per model
call (p50 and max, as the model server counted them); model calls per task; wall time, and the share of it spent
waiting for the model (the baseline of the run: what the rest of the stack costs on top). The last line is the
JSON summary: `{"success", "passed", "tasks", "per_category", "per_language", "schema_valid_rate", "tool_calls",
"prompt_tokens_p50", "prompt_tokens_max", "model_calls_per_task", "wall_seconds", "model_seconds",
"model_share", "approvals", "failures", "agent_fields", "not_run", ...}`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "benchmarks"))

import httpx  # noqa: E402
from agent_taskset import CATEGORIES, TASKS, Call, Task  # noqa: E402
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
from jsonschema import Draft202012Validator  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.requests import Request  # noqa: E402
from starlette.responses import JSONResponse, Response  # noqa: E402
from starlette.routing import Route  # noqa: E402

from tests.fakes.brave_server import FakeBrave  # noqa: E402
from tests.fakes.google_server import FakeGoogle  # noqa: E402
from tests.fakes.loopback import LoopbackServer  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI, Reply, ToolCall  # noqa: E402
from tests.hub_process import RunningHub, free_port, start_hub  # noqa: E402

PACKAGES = ["guardian_mcp", "filer_mcp", "memorizer_mcp", "gmail_mcp", "searcher_mcp"]
META_TOOLS = {"browse_tools", "load_tools"}
ESSENTIALS = {"store_fact": "memory_store_fact", "search_memories": "memory_retrieve_memories"}
"""The Thinker's short aliases and the hub tool each calls (same arguments here)."""
PERFECT_MODEL = "openai/perfect"
TASK_SETS: dict[str, tuple[Task, ...]] = {
    "first": TASKS,
    SET_NAME: FRESH_TASKS,
    SET_NAME_B: FRESH_B_TASKS,
    SET_NAME_C: FRESH_C_TASKS,
    SET_NAME_D: FRESH_D_TASKS,
    SET_NAME_E: FRESH_E_TASKS,
    SET_NAME_F: FRESH_F_TASKS,
    SET_NAME_G: FRESH_G_TASKS,
    SET_NAME_H: FRESH_H_TASKS,
    SET_NAME_I: FRESH_I_TASKS,
    SET_NAME_J: FRESH_J_TASKS,
    "all": (
        TASKS
        + FRESH_TASKS
        + FRESH_B_TASKS
        + FRESH_C_TASKS
        + FRESH_D_TASKS
        + FRESH_E_TASKS
        + FRESH_F_TASKS
        + FRESH_G_TASKS
        + FRESH_H_TASKS
        + FRESH_I_TASKS
        + FRESH_J_TASKS
    ),
}
"""Groups `--set` picks: the first 45 tasks (all of them read while fixing the product) and batches written
later, which are measured before anyone may fit the product to them."""

# -- the recording proxy -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    """One model call as it went over the wire."""

    request: dict[str, Any]
    response: dict[str, Any] | None
    seconds: float

    @property
    def prompt_tokens(self) -> int | None:
        usage = (self.response or {}).get("usage") or {}
        value = usage.get("prompt_tokens")
        return value if isinstance(value, int) else None

    def tool_calls(self) -> list[dict[str, Any]]:
        choices = (self.response or {}).get("choices") or [{}]
        return list((choices[0].get("message") or {}).get("tool_calls") or [])


class RecordingProxy(LoopbackServer):
    """Forwards `POST /v1/chat/completions` to the model's server and records request, answer and time."""

    name = "model-proxy"

    def __init__(self, upstream: str, journal: Path | None = None) -> None:
        super().__init__()
        self.upstream = upstream.rstrip("/")
        self.journal = journal
        """Where each exchange is also written as a JSON line (request, answer, seconds), to read failures by."""
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        self.app = Starlette(routes=[Route("/v1/chat/completions", self.forward, methods=["POST"])])

    async def forward(self, request: Request) -> Response:
        body = await request.body()
        started = time.monotonic()
        headers = {"content-type": "application/json", "authorization": request.headers.get("authorization", "")}
        async with httpx.AsyncClient(timeout=None) as client:
            try:
                answer = await client.post(f"{self.upstream}/chat/completions", content=body, headers=headers)
            except httpx.HTTPError as exc:
                self.record(json.loads(body), None, time.monotonic() - started)
                return JSONResponse({"error": {"message": f"proxy: {exc!r}"}}, status_code=502)
        try:
            parsed = answer.json()
        except ValueError:
            parsed = None
        self.record(json.loads(body), parsed if answer.status_code == 200 else None, time.monotonic() - started)
        return Response(answer.content, status_code=answer.status_code, media_type="application/json")

    def record(self, request: dict[str, Any], response: dict[str, Any] | None, seconds: float) -> None:
        with self.lock:
            self.exchanges.append(Exchange(request, response, seconds))
            if self.journal is not None:
                line = {"request": request, "response": response, "seconds": round(seconds, 2)}
                with self.journal.open("a", encoding="utf-8") as journal:
                    journal.write(json.dumps(line, ensure_ascii=False) + "\n")

    def since(self, index: int) -> list[Exchange]:
        with self.lock:
            return self.exchanges[index:]


# -- the stack, as tasks see it ----------------------------------------------------------------------------------


@dataclass
class Marks:
    """Where each record stood when a task started: a task's checks see only what it caused."""

    google: int = 0
    brave: int = 0
    audit: int = 0
    exchanges: int = 0


class Stack:
    """Fakes, proxy and the real hub; implements `agent_taskset.World` for the task that is running."""

    def __init__(
        self,
        workdir: Path,
        *,
        model: str,
        api_base: str,
        turn_timeout: float,
        embeddings: str,
        agent_fields: Mapping[str, Any] | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.extra_env = dict(extra_env or {})
        self.model = model
        self.api_base = api_base
        self.turn_timeout = turn_timeout
        self.agent_fields = dict(agent_fields or {})
        """agents.json fields set for the run's agent (maxOutputTokens, temperature), over the defaults."""
        self.embeddings = embeddings
        self.home = workdir / "home"
        self.workspace = self.home / "workspace"
        self.google = FakeGoogle()
        self.brave = FakeBrave(api_key="bench-key")
        self.proxy = RecordingProxy(api_base, workdir / "model-exchanges.jsonl")
        self.hub: RunningHub | None = None
        self.now = datetime.now(UTC)
        self.marks = Marks()
        self.answers: list[dict[str, Any]] = []
        self.approved: list[str] = []
        """Tools whose held calls the owner approved during the run."""
        self._exit = ExitStack()

    # -- lifecycle ------------------------------------------------------------------------------------------

    def start(self) -> Stack:
        for server in (self.google, self.brave, self.proxy):
            self._exit.enter_context(server)
        self.home.mkdir(parents=True)
        gmail = self.home / "gmail"
        gmail.mkdir()
        (gmail / "credentials.json").write_text(json.dumps(self.google.client_file()))
        token = {"access_token": "access-1", "refresh_token": "refresh-1", "expires_at": time.time() + 86_400}
        (gmail / "token.json").write_text(json.dumps(token))
        agents = self.workdir / "agents.json"
        agent = {
            "agentId": "annabelle",
            "port": free_port(),
            "model": self.model,
            "apiBase": f"{self.proxy.url}/v1",
            "turnTimeoutSeconds": self.turn_timeout,
            # The run is a burst of turns by design, each task right after the last: the cost monitor would rightly
            # pause the agent half-way (its hourly cap, or a spike against its own baseline). The run measures
            # what gets done, and its cost is time, not money.
            "costControls": {"enabled": False},
        }
        agent |= self.agent_fields
        agents.write_text(json.dumps({"agents": [agent], "bindings": [{"channel": "*", "agentId": "annabelle"}]}))
        env = {
            "AGENTS_CONFIG": str(agents),
            "ANNABELLE_TIMEZONE": "UTC",
            "GOOGLE_API_BASE": self.google.url,
            "BRAVE_API_KEY": self.brave.api_key,
            "BRAVE_API_BASE": self.brave.url,
            "BRAVE_RATE_LIMIT_MS": "0",
            "EMBEDDING_PROVIDER": self.embeddings,
            # Background model work would queue behind the benchmark's turns on a one-slot local server.
            "UTILITY_MODEL": "off",
            "FACT_EXTRACTION_ENABLED": "false",
            "THINKER_FACT_EXTRACTION_ENABLED": "false",
            "THINKER_LLM_TIMEOUT_SECONDS": str(self.turn_timeout),
            **self.extra_env,
        }
        self.hub = start_hub(self.workdir, self.home, PACKAGES, env=env, timeout=180)
        self._exit.callback(self.hub.stop)
        return self

    def stop(self) -> None:
        self._exit.close()

    def __enter__(self) -> Stack:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    # -- running a task -------------------------------------------------------------------------------------

    def begin(self) -> None:
        self.now = datetime.now(UTC)
        self.answers = []
        audit = self.audit_path()
        self.marks = Marks(
            google=len(self.google.requests),
            brave=len(self.brave.requests),
            audit=len(audit.read_text().splitlines()) if audit.exists() else 0,
            exchanges=len(self.proxy.exchanges),
        )

    def say(self, text: str, chat_id: str) -> dict[str, Any]:
        """One message of the owner's; a call the hub holds for approval (a side effect after untrusted input)
        is approved, as the owner who asked for it would, and counted."""
        assert self.hub is not None
        hub = self.hub
        answer: dict[str, Any] = {}

        def send() -> None:
            try:
                with hub.client(timeout=self.turn_timeout + 120) as client:
                    response = client.post("/message", json={"message": text, "chatId": chat_id})
                ok = response.status_code == 200
                answer.update(response.json() if ok else {"success": False, "error": response.text})
            except httpx.HTTPError as exc:
                answer.update({"success": False, "error": repr(exc)})

        turn = threading.Thread(target=send, daemon=True)
        turn.start()
        with hub.client() as client:
            while turn.is_alive():
                turn.join(0.25)
                for request in client.get("/approvals").json().get("approvals") or []:
                    if request.get("status") == "pending":
                        client.post(f"/approvals/{request['id']}", json={"decision": "approve"})
                        self.approved.append(str(request.get("tool") or "?"))
        self.answers.append(answer)
        return answer

    # -- World --------------------------------------------------------------------------------------------------

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        assert self.hub is not None
        return self.hub.call(name, arguments)

    def file(self, path: str) -> str | None:
        target = self.workspace / path
        return target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None

    def write_file(self, path: str, content: str) -> None:
        target = self.workspace / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")

    def facts(self) -> list[dict[str, Any]]:
        data = self.call("memory_list_facts", {"limit": 1000}).get("data") or {}
        return list(data.get("facts") or [])

    def skills(self) -> list[dict[str, Any]]:
        data = self.call("memory_list_skills", {"detail": "full"}).get("data") or {}
        return list(data.get("skills") or [])

    def sent_mail(self) -> list[Message]:
        with self.google.lock:
            return [m.mime for m in self.google.messages.values() if "SENT" in m.label_ids]

    def drafts(self) -> list[Message]:
        with self.google.lock:
            return [self.google.messages[mid].mime for mid in self.google.drafts.values()]

    def add_mail(self, sender: str, subject: str, body: str) -> str:
        return self.google.add_message(sender=sender, subject=subject, body=body)

    def add_event(self, summary: str, start: datetime, minutes: int = 60) -> str:
        end = start.timestamp() + minutes * 60
        return self.google.add_event(
            summary=summary,
            start={"dateTime": start.strftime("%Y-%m-%dT%H:%M:%SZ")},
            end={"dateTime": datetime.fromtimestamp(end, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")},
        )

    def events(self) -> list[dict[str, Any]]:
        with self.google.lock:
            return [dict(event) for event in self.google.events.get("primary", {}).values()]

    def google_calls(self) -> list[tuple[str, str, dict[str, list[str]], Any]]:
        calls = []
        for recorded in self.google.requests[self.marks.google :]:
            if recorded.path == "/token":
                continue
            try:
                body = recorded.json() if recorded.body else None
            except ValueError:
                body = None
            calls.append((recorded.method, recorded.path, recorded.query, body))
        return calls

    def searches(self) -> list[tuple[str, str]]:
        return [(r.kind, r.params.get("q", "")) for r in self.brave.requests[self.marks.brave :]]

    def audit_path(self) -> Path:
        return self.home / "logs" / "fileops-audit.jsonl"

    def file_operations(self) -> list[dict[str, Any]]:
        audit = self.audit_path()
        if not audit.exists():
            return []
        return [json.loads(line) for line in audit.read_text().splitlines()[self.marks.audit :] if line.strip()]

    def tools_used(self) -> list[str]:
        return [name for answer in self.answers for name in answer.get("toolsUsed") or []]


# -- the perfect model -------------------------------------------------------------------------------------------


def resolve(call: Call, world: Stack) -> dict[str, Any]:
    arguments = call.arguments
    return arguments(world) if callable(arguments) else dict(arguments)


def perfect_reply(body: dict[str, Any], turns: dict[str, tuple[Task, int]], world: Stack) -> Reply:
    """The next move of a model that knows each task's script: the next scripted call (after loading its tool's
    category when it was not offered), or a final answer."""
    messages = body.get("messages") or []
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    text = str(messages[last_user].get("content", "")) if last_user >= 0 else ""
    if text not in turns:
        return Reply.text("I have no script for this.")
    task, turn = turns[text]
    script = task.script[turn]
    made = [
        call["function"]["name"]
        for message in messages[last_user + 1 :]
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or []
        if call["function"]["name"] not in META_TOOLS
    ]
    if len(made) >= len(script):
        return Reply.text("Done.")
    step = script[len(made)]
    offered = {tool["function"]["name"] for tool in body.get("tools") or []}
    name = step.name
    if name not in offered and ESSENTIALS.get(name) in offered:
        name = ESSENTIALS[name]
    if name not in offered:
        return Reply.tool("load_tools", {"category": ESSENTIALS.get(name, name).split("_", 1)[0]})
    return Reply.tools(ToolCall(name, resolve(step, world)))


@contextmanager
def perfect_model(world_ref: list[Stack], tasks: Sequence[Task]) -> Iterator[str]:
    turns = {text: (task, index) for task in tasks for index, text in enumerate(task.turns)}
    with FakeOpenAI() as fake:
        fake.set_handler(lambda body: perfect_reply(body, turns, world_ref[0]))
        yield fake.api_base


# -- figures -----------------------------------------------------------------------------------------------------


@dataclass
class TaskResult:
    task: Task
    passed: bool
    problem: str | None
    seconds: float
    exchanges: list[Exchange] = field(default_factory=list)
    approvals: list[str] = field(default_factory=list)
    """Tools whose calls the hub held and the owner (the benchmark) approved."""

    @property
    def prompt_tokens(self) -> list[int]:
        return [e.prompt_tokens for e in self.exchanges if e.prompt_tokens is not None]


def tool_call_validity(exchange: Exchange) -> list[bool]:
    """For each tool call of the answer: does it name an offered tool with arguments valid for its schema?"""
    schemas = {
        tool["function"]["name"]: tool["function"].get("parameters") or {"type": "object"}
        for tool in exchange.request.get("tools") or []
    }
    verdicts = []
    for call in exchange.tool_calls():
        function = call.get("function") or {}
        schema = schemas.get(function.get("name"))
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except (TypeError, ValueError):
            arguments = None
        valid = (
            schema is not None
            and isinstance(arguments, dict)
            and not list(Draft202012Validator(schema).iter_errors(arguments))
        )
        verdicts.append(valid)
    return verdicts


def rate(results: Sequence[TaskResult]) -> dict[str, Any]:
    passed = sum(r.passed for r in results)
    return {"tasks": len(results), "passed": passed, "success": round(passed / len(results), 3) if results else None}


def percentile(values: Sequence[int], q: float) -> int | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(results: Sequence[TaskResult], wall: float, model: str) -> dict[str, Any]:
    exchanges = [e for r in results for e in r.exchanges]
    verdicts = [v for e in exchanges for v in tool_call_validity(e)]
    tokens = [t for r in results for t in r.prompt_tokens]
    model_seconds = sum(e.seconds for e in exchanges)
    english = [r for r in results if r.task.lang == "en"]
    other = [r for r in results if r.task.lang != "en"]
    return {
        "model": model,
        **rate(results),
        "per_category": {c: rate([r for r in results if r.task.category == c]) for c in CATEGORIES},
        "per_language": {"english": rate(english), "non_english": rate(other)},
        "schema_valid_rate": round(sum(verdicts) / len(verdicts), 3) if verdicts else None,
        "tool_calls": len(verdicts),
        "model_calls": len(exchanges),
        "model_calls_per_task": round(len(exchanges) / len(results), 2) if results else None,
        "prompt_tokens_p50": int(statistics.median(tokens)) if tokens else None,
        "prompt_tokens_max": max(tokens) if tokens else None,
        "prompt_tokens_p90": percentile(tokens, 0.9),
        "wall_seconds": round(wall, 1),
        "task_seconds_p50": round(statistics.median(r.seconds for r in results), 1) if results else None,
        "model_seconds": round(model_seconds, 1),
        "model_share": round(model_seconds / wall, 3) if wall else None,
        "approvals": sum(len(r.approvals) for r in results),
        "failures": [{"task": r.task.id, "problem": r.problem} for r in results if not r.passed],
    }


# -- running -----------------------------------------------------------------------------------------------------


def run_task(stack: Stack, task: Task, nonce: str, log: Callable[[str], None]) -> TaskResult:
    stack.begin()
    approved = len(stack.approved)
    started = time.monotonic()
    problem: str | None = None
    try:
        if task.setup is not None:
            task.setup(stack)
        for text in task.turns:
            answer = stack.say(text, f"bench-{task.id}-{nonce}")
            if answer.get("error") and not answer.get("success"):
                log(f"    [{task.id}] the turn failed: {str(answer['error'])[:200]}")
        problem = task.check(stack)
    except Exception as exc:  # a task must not stop the run: its failure is a result
        problem = f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    exchanges = stack.proxy.since(stack.marks.exchanges)
    return TaskResult(task, problem is None, problem, seconds, exchanges, stack.approved[approved:])


def run(
    tasks: Sequence[Task],
    *,
    model: str,
    api_base: str | None,
    perfect: bool,
    turn_timeout: float,
    embeddings: str,
    agent_fields: Mapping[str, Any] | None = None,
    workdir: Path | None = None,
    max_minutes: float | None = None,
    extra_env: Mapping[str, str] | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run `tasks` on one stack; past `max_minutes` no further task starts (the summary names those not run)."""
    world_ref: list[Stack] = []
    with ExitStack() as scope:
        scratch = workdir or Path(scope.enter_context(tempfile.TemporaryDirectory(prefix="agent-tasks-")))
        if perfect:
            api_base = scope.enter_context(perfect_model(world_ref, tasks))
            model = PERFECT_MODEL
        if api_base is None:
            raise SystemExit("give --api-base (the model's OpenAI-compatible server), or --perfect")
        log(f"starting the stack (model {model})...")
        stack = scope.enter_context(
            Stack(
                scratch,
                model=model,
                api_base=api_base,
                turn_timeout=turn_timeout,
                embeddings=embeddings,
                agent_fields=agent_fields,
                extra_env=extra_env,
            )
        )
        world_ref.append(stack)
        nonce = f"{int(time.time()) % 100_000}"
        results: list[TaskResult] = []
        started = time.monotonic()
        for task in tasks:
            if max_minutes is not None and time.monotonic() - started > max_minutes * 60:
                log(f"SKIP {task.id:<22} {task.lang}  the run's {max_minutes:g} minutes are over")
                continue
            result = run_task(stack, task, nonce, log)
            results.append(result)
            tokens = result.prompt_tokens
            log(
                f"{'PASS' if result.passed else 'FAIL'} {task.id:<22} {task.lang}  calls {len(result.exchanges):>2}  "
                f"prompt {max(tokens) if tokens else 0:>5}  {result.seconds:6.1f} s"
                + (f"  approved {','.join(result.approvals)}" if result.approvals else "")
                + (f"  {result.problem}" if result.problem else "")
            )
        wall = time.monotonic() - started
    ran = {result.task.id for result in results}
    return {
        **summary(results, wall, model),
        "agent_fields": dict(agent_fields or {}),
        "not_run": [task.id for task in tasks if task.id not in ran],
    }


def share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def report(result: dict[str, Any], log: Callable[[str], None] = print) -> None:
    log("")
    log(f"{'category':<12} {'passed':>6} {'tasks':>5} {'success':>8}")
    for name, figures in [*result["per_category"].items(), *result["per_language"].items()]:
        if figures["tasks"]:
            log(f"{name:<12} {figures['passed']:>6} {figures['tasks']:>5} {share(figures['success']):>8}")
    log(f"{'overall':<12} {result['passed']:>6} {result['tasks']:>5} {share(result['success']):>8}")
    if result.get("not_run"):
        log(f"not run (time budget): {len(result['not_run'])} tasks: {', '.join(result['not_run'])}")
    log(
        f"schema-valid tool calls {result['schema_valid_rate']} of {result['tool_calls']}; prompt tokens per model "
        f"call p50 {result['prompt_tokens_p50']}, max {result['prompt_tokens_max']}; model calls per task "
        f"{result['model_calls_per_task']}; wall {result['wall_seconds']} s, {share(result['model_share'])} of it "
        "waiting for the model"
    )
    print(json.dumps(result, ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="openai/qwen2.5-coder-1.5b", help="litellm model string")
    parser.add_argument("--api-base", help="the model server's OpenAI base URL, e.g. http://127.0.0.1:8088/v1")
    parser.add_argument("--perfect", action="store_true", help="a scripted perfect model instead")
    parser.add_argument(
        "--set", choices=sorted(TASK_SETS), default="first", help="which group of tasks to run (default: first)"
    )
    parser.add_argument("--tasks", help="comma-separated task ids, of any set (default: the whole --set)")
    parser.add_argument("--turn-timeout", type=float, default=240.0, help="the agent's turnTimeoutSeconds")
    parser.add_argument(
        "--max-output-tokens", type=int, help="the agent's maxOutputTokens (default: agents.json's default, 4,096)"
    )
    parser.add_argument(
        "--temperature", type=float, help="the agent's sampling temperature (default: agents.json's default, 0.6)"
    )
    parser.add_argument("--embeddings", default="local", help="EMBEDDING_PROVIDER for the stack (default local)")
    parser.add_argument("--max-minutes", type=float, help="start no task after this many minutes (default: no limit)")
    parser.add_argument("--workdir", type=Path, help="an empty folder to run in and keep (logs, traces, sessions)")
    args = parser.parse_args(argv)
    tasks = list(TASK_SETS[args.set])
    if args.tasks:
        known = {task.id: task for task in TASK_SETS["all"]}
        wanted = [name.strip() for name in args.tasks.split(",") if name.strip()]
        unknown = sorted(set(wanted) - set(known))
        if unknown:
            parser.error(f"unknown task ids: {', '.join(unknown)}")
        tasks = [known[task_id] for task_id in dict.fromkeys(wanted)]  # in the order given
    result = run(
        tasks,
        model=args.model,
        api_base=args.api_base,
        perfect=args.perfect,
        turn_timeout=args.turn_timeout,
        embeddings=args.embeddings,
        agent_fields={
            field: value
            for field, value in (("maxOutputTokens", args.max_output_tokens), ("temperature", args.temperature))
            if value is not None
        },
        workdir=args.workdir,
        max_minutes=args.max_minutes,
        log=lambda line: print(line, flush=True),
    )
    report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
