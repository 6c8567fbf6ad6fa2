"""The agent loop: explicit steps over typed chat messages, in the manner of pydantic-ai's agent graph.

    ModelRequest ──▶ CallTools ──▶ ModelRequest ──▶ ... ──▶ FinishText ──▶ End
         │                                                     │
         └──▶ End (model error, limits)        leaked call ◀───┤───▶ hallucination: ModelRequest(required)

- `ModelRequest` calls the model with the tools offered now (a `load_tools` call widens them mid-turn), within
  what is left of the turn's time (`TurnDeadline`: the agent's `turnTimeoutSeconds`, which the hub waits for
  plus a grace, so the hub never gives up on a turn that still works). A turn whose time ran out before or
  during a model call ends with one sentence saying the model is too slow for the configured limits; a call
  a budget refuses (`BudgetExceeded`) ends the turn with the guard's sentence as the answer. Its
  usage is added to the turn's, then the limits are checked: a response that wants more tools after the turn
  passed its token budget, or while the cost monitor has paused the agent, ends the turn. The last allowed
  step asks for an answer (`tool_choice="none"`) so the step limit ends in words, not in silence.
- `CallTools` runs each call: the name must be callable in this turn and the arguments a JSON object, else the
  mistake goes back to the model as that call's result so it can correct itself (a bounded number of times).
  Arguments are normalised (`normalize.py`), then the call goes to a meta-tool (`tiers.py`), an essential
  (`essentials.py`) or the hub, within the turn's remaining time (a `spawn_subagent` call moves the deadline
  by the subagent's own limit, as the hub does). A call that may change state and names a record by an id no
  user message or tool result holds is refused before it runs (`known_ids.py`: look the id up first). Results
  longer than the cap are cut. A call the turn already
  made (same tool, same normalised arguments), with no call since that worked and may change state (its MCP
  annotations do not say read-only), is not run again: its result is already in the conversation, and a small
  model that repeats a call tends to repeat it until the step limit (seen: one failing fetch, four times; two
  searches taking turns, eight steps); after such a call worked (an update between two reads), the same call
  runs again. The model is told so and asked for its answer (`tool_choice="none"`) on the next step. When one
  call of a reply fails, the reply's later calls are not run (they often depend on it: a draft, then sending
  "your-draft-id-here"); their results say so. Exact copies of a call in one reply are left out of it (the first
  runs; copies are not a repeat to stop for), and its calls beyond `MAX_CALLS_PER_REPLY` are dropped.
- `FinishText` looks at a text answer: a tool call written as text (for an offered tool) is run for real, unless
  the request asked for words only (the last step, a repeated call: a small model then writes the call it was
  refused as text, and running it would undo the stop); a
  claimed action with no tool called in the whole turn gets ONE retry with `tool_choice="required"` at a lower
  temperature, then an honest failure; a claim of having no real-time access while a search tool is offered
  (the original's TOOL_REFUSAL) gets ONE forced tool call at temperature ≤ 0.2, after which the turn goes on
  as usual; words instead of the lookup a refusal named (an id nobody gave: "look it up first with
  memory_list_skills") get ONE forced tool call too; an answer that repeats the loop's own "You already made this
  exact call" is no answer (the owner is told what the turn did instead); anything else is sanitised and returned.

The loop returns a `TurnResult` with the messages it added (for the session), the tools used, steps and usage.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from shared.contracts.thinker_api import BudgetStop
from shared.envelope import ErrorCode, fail
from shared.secrets import SecretVault
from shared.text import clip
from shared.traces import elapsed_ms, trace_event
from thinker.guards import (
    EMPTY_ANSWER,
    HONEST_FAILURE,
    as_data,
    find_leaked_call,
    is_hallucinated_action,
    is_tool_refusal,
    offers_search,
    refusal_temperature,
    retry_temperature,
    sanitize,
)
from thinker.hub_tools import SUBAGENT_TOOL, HubTools, call_timeout
from thinker.known_ids import listed_records, optional_holders, unseen_addresses, unseen_ids
from thinker.llm import BudgetExceeded, LlmError, ModelClient, ModelReply, ModelTimedOut, ToolCall, Usage
from thinker.normalize import normalize_arguments
from thinker.refusals import (
    REPEATED_CALL,
    address_from_nowhere,
    already_looked_up,
    echoes_refusal,
    id_from_nowhere,
    not_run_after,
)
from thinker.selection import named_values
from thinker.sessions.messages import (
    ChatMessage,
    assistant_message,
    text_of,
    tool_call,
    tool_message,
)
from thinker.tiers import BROWSE_TOOLS, ToolKind, ToolSet
from thinker.unread import read_first, unread_values

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoopLimits:
    max_steps: int = 8
    """Model calls per turn (the hallucination retry included)."""
    max_tokens: int = 200_000
    """Prompt + completion tokens per turn; checked after every model response."""
    max_tool_retries: int = 3
    """Malformed tool calls (unknown tool, arguments that are not a JSON object) sent back to the model."""
    max_result_chars: int = 20_000
    """A tool result is cut to this many characters before the model sees it."""
    max_output_tokens: int | None = None
    """The most tokens one model answer may have (the agent's `maxOutputTokens`); None: the model's own limit."""


class StopReason(StrEnum):
    ANSWERED = "answered"
    STEP_LIMIT = "step_limit"
    TOKEN_LIMIT = "token_limit"
    PAUSED = "paused"
    MODEL_ERROR = "model_error"
    BUDGET = "budget"
    """A budget refused the next model call (`TurnResult.budget` says which)."""
    MALFORMED_CALLS = "malformed_calls"
    HALLUCINATION = "hallucination"
    TIME_LIMIT = "time_limit"


@dataclass
class TurnDeadline:
    """When a turn must be over (on the loop's monotonic clock) and the budget that set it, for the message."""

    at: float
    seconds: float

    @classmethod
    def starting(cls, now: float, seconds: float) -> TurnDeadline:
        return cls(now + seconds, seconds)


MAX_FAILURES_SHOWN = 3
"""Failed tools a turn's outcome names, with their reasons; a long run of failures is not the owner's to read."""
FAILURE_CHARS = 160
"""Of each failure's reason in that sentence."""


def tools_outcome(used: Sequence[str], failed: Mapping[str, str]) -> str:
    """One sentence of what a turn's tools did: which worked, which failed and why (each reason clipped)."""
    worked = [name for name in used if name not in failed]
    parts = [f"Worked: {', '.join(worked)}." if worked else ""]
    for name, error in list(failed.items())[:MAX_FAILURES_SHOWN]:
        reason = clip(error, FAILURE_CHARS)
        parts.append(f"Failed: {name}" + (f" ({reason})." if reason else "."))
    return " ".join(part for part in parts if part)


def too_slow(where: str, calls: int, model_seconds: float, budget: float, tools_used: Sequence[str] = ()) -> str:
    """The one sentence a turn ends with when the model could not finish it in the agent's time. Pure."""
    took = (
        f"its {calls} call{'s' if calls != 1 else ''} in this turn took {model_seconds:.0f} s"
        if calls
        else "the turn's time was gone before it could be asked"
    )
    done = f" (before that it used {', '.join(tools_used)})" if tools_used else ""
    return (
        f"The model {where} is too slow for this agent's limits: {took}, and a turn may take {budget:g} s "
        f"(turnTimeoutSeconds in agents.json); raise that limit, lower maxSteps, or use a faster model{done}."
    )


def cut_off(limit: int | None) -> str:
    """The sentence after an answer the model ended at its length limit. Pure."""
    where = f"its limit of {limit:,} tokens (maxOutputTokens in agents.json)" if limit else "the model's length limit"
    return f"(This answer was cut off at {where}.)"


@dataclass(frozen=True)
class TurnResult:
    success: bool
    response: str
    stop: StopReason
    tools_used: tuple[str, ...] = ()
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    messages: tuple[ChatMessage, ...] = ()
    """What the turn added after its input: assistant tool calls, tool results and the final answer."""
    error: str | None = None
    secrets: SecretVault = field(default_factory=SecretVault)
    """Sealed secrets the turn's tools returned: the messages and `response` hold only their placeholders."""
    budget: BudgetStop | None = None

    @property
    def paused(self) -> bool:
        return self.stop is StopReason.PAUSED


# -- nodes -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelRequest:
    tool_choice: str | None = None
    temperature: float | None = None
    guard_retry: bool = False
    """This request is the hallucination guard's retry: a text answer to it is not accepted."""


@dataclass(frozen=True)
class CallTools:
    reply: ModelReply
    calls: tuple[ToolCall, ...]
    text: str | None = None


@dataclass(frozen=True)
class FinishText:
    reply: ModelReply
    guard_retry: bool = False
    answer_only: bool = False
    """The request asked for words (`tool_choice="none"`): a call written into them is not run."""


@dataclass(frozen=True)
class End:
    result: TurnResult


Node = ModelRequest | CallTools | FinishText | End


@dataclass(frozen=True)
class _PendingLookup:
    """A lookup the loop runs for the model once the reply's calls are done, and the refused call it serves."""

    lookup: str
    call_id: str
    tool: str
    unseen: list[tuple[str, str]]


@dataclass
class _Run:
    """The mutable state of one turn."""

    messages: list[ChatMessage]
    toolset: ToolSet
    chat_id: str | None
    temperature: float
    start: int
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    tools_used: list[str] = field(default_factory=list)
    failed_tools: dict[str, str] = field(default_factory=dict)
    """Tools whose last call failed, with what the hub said (nothing when the result was untrusted)."""
    retries_left: int = 0
    guard_used: bool = False
    refusal_guard_used: bool = False
    lookup_due: str | None = None
    """The tool a refusal told the model to call first (an id nobody gave), until a call of it works."""
    lookup_guard_used: bool = False
    lookups_run: dict[str, str] = field(default_factory=dict)
    """Lookups the loop ran for the model after refusing an id nobody gave (each once a turn), with the kind of
    record they were run for (`skill` for a refused `skill_id`)."""
    lookup_now: _PendingLookup | None = None
    """The lookup to run for the model once the current reply's calls are done."""
    request: str = ""
    """The user's message (a skill's instructions) this turn answers."""
    named: list[tuple[str, str]] = field(default_factory=list)
    """The file names and web addresses of the user's message (a skill's instructions) this turn answers."""
    read_guard_used: bool = False
    """A call was refused for acting before what the request names was read (once a turn: `thinker.unread`)."""
    call_ids: set[str] = field(default_factory=set)
    refused: set[str] = field(default_factory=set)
    """Calls refused for an id nobody gave: the same call, still naming an unseen id, is a repeat."""
    looked_up: set[str] = field(default_factory=set)
    """The lookups (`call_key`) the loop ran for the model, until a call that may change state works."""
    calls_made: set[str] = field(default_factory=set)
    """The calls (tool name + normalised arguments, `call_key`) run since the last call that worked and may
    change state, that one included: a repeat with nothing changed in between is not run again."""
    deadline: TurnDeadline | None = None
    model_calls: int = 0
    model_seconds: float = 0.0
    """Model calls tried in this turn and the time they took (a call cut by the deadline included)."""
    secrets: SecretVault = field(default_factory=SecretVault)

    def added(self) -> tuple[ChatMessage, ...]:
        return tuple(self.messages[self.start :])

    def used(self, name: str) -> None:
        if name not in self.tools_used:
            self.tools_used.append(name)


MAX_CALLS_PER_REPLY = 8
"""Tool calls run from one model reply; the rest are dropped from it. The 1.5B model once wrote 47 calls in one
reply (invented message ids, one after another): each result went into the conversation and the next prompt
was 10,000 tokens. A real plan of more steps goes on in the next reply, and the bulk limit holds a run of
changes long before this."""


def _json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict) if text.strip() else True
    except json.JSONDecodeError:
        return False


def _without_copies(calls: Sequence[ToolCall]) -> list[ToolCall]:
    """A reply's calls with exact copies left out (same tool, same arguments), the first of each kept. A small
    model writes one call twice or more in a reply (the same create_file five times; two identical searches, then
    the same e-mail twice). Answered "already made", the copies read as the model repeating itself, and the loop
    asked it for words after the first step: the 1.5B model then told the owner the loop's own sentence."""
    seen: set[tuple[str, str]] = set()
    out: list[ToolCall] = []
    for call in calls:
        try:
            arguments = json.dumps(json.loads(call.arguments), sort_keys=True)
        except (TypeError, ValueError):
            arguments = call.arguments
        if (call.name, arguments) not in seen:
            seen.add((call.name, arguments))
            out.append(call)
    return out


def call_key(name: str, arguments: dict[str, Any]) -> str:
    """A call's identity within a turn: the tool and its normalised arguments, key order ignored. Pure."""
    return f"{name}:{json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)}"


PauseCheck = Callable[[], bool]
Clock = Callable[[], float]


def _never_paused() -> bool:
    return False


class AgentLoop:
    """Runs turns for one agent: a model client, the hub, and the limits."""

    def __init__(
        self,
        model: ModelClient,
        hub: HubTools,
        *,
        agent_id: str,
        limits: LoopLimits | None = None,
        paused: PauseCheck = _never_paused,
        clock: Clock = time.monotonic,
    ) -> None:
        self.model = model
        self.hub = hub
        self.agent_id = agent_id
        self.limits = limits or LoopLimits()
        self.paused = paused
        self.clock = clock

    async def run(
        self,
        messages: Sequence[ChatMessage],
        toolset: ToolSet,
        *,
        chat_id: str | None = None,
        max_steps: int | None = None,
        temperature: float | None = None,
        deadline: TurnDeadline | None = None,
    ) -> TurnResult:
        """One turn from `messages` (system prompt, history, the user's message) to an answer, by `deadline`."""
        run = _Run(
            messages=list(messages),
            toolset=toolset,
            chat_id=chat_id,
            temperature=self.model.temperature if temperature is None else temperature,
            start=len(messages),
            request=(request := next((text_of(m) for m in reversed(messages) if m["role"] == "user"), "")),
            named=named_values(request),
            retries_left=self.limits.max_tool_retries,
            # A copy: a subagent call moves this turn's deadline, never the caller's object.
            deadline=TurnDeadline(deadline.at, deadline.seconds) if deadline is not None else None,
        )
        steps = max_steps or self.limits.max_steps
        started = time.perf_counter()
        node: Node = ModelRequest()
        while True:
            match node:
                case ModelRequest():
                    node = await self._request(run, node, steps)
                case CallTools():
                    node = await self._call_tools(run, node, steps)
                case FinishText():
                    node = await self._finish(run, node, steps)
                case End(result=result):
                    log.info(
                        "turn finished",
                        extra={
                            "stop": result.stop.value,
                            "steps": result.steps,
                            "tools": list(result.tools_used),
                            "tokens": result.usage.total,
                        },
                    )
                    trace_event(
                        "turn_finished",
                        stop=result.stop.value,
                        steps=result.steps,
                        tools=list(result.tools_used),
                        prompt_tokens=result.usage.prompt_tokens,
                        completion_tokens=result.usage.completion_tokens,
                        ms=elapsed_ms(started),
                    )
                    return result

    # -- ModelRequest --------------------------------------------------------------------------------------

    async def _request(self, run: _Run, node: ModelRequest, max_steps: int) -> Node:
        definitions = run.toolset.definitions()
        tool_choice = node.tool_choice
        if definitions and tool_choice is None and max_steps > 1 and run.steps + 1 >= max_steps:
            # Last allowed call: ask for the answer, so the turn ends with words rather than a dangling call.
            tool_choice = "none"
        remaining = self._remaining(run)
        if remaining is not None and remaining <= 0:
            return self._too_slow(run)
        run.steps += 1
        run.model_calls += 1
        started = self.clock()
        try:
            reply = await self.model.complete(
                run.messages,
                tools=definitions or None,
                tool_choice=tool_choice,
                temperature=node.temperature if node.temperature is not None else run.temperature,
                max_tokens=self.limits.max_output_tokens,
                step=run.steps,
                time_limit=remaining,
            )
        except BudgetExceeded as exc:
            return self._end(run, StopReason.BUDGET, str(exc), error=str(exc), budget=exc.stop)
        except LlmError as exc:
            run.model_seconds += self.clock() - started
            if isinstance(exc, ModelTimedOut) and remaining is not None and remaining < self.model.settings.timeout:
                return self._too_slow(run)
            log.warning("model call failed", extra={"error": str(exc)})
            return self._end(run, StopReason.MODEL_ERROR, "", error=str(exc))
        run.model_seconds += self.clock() - started
        run.usage = run.usage + reply.usage
        wants_tools = bool(reply.tool_calls)
        # Limits, checked after every response: a final answer is kept (its cost is already spent), more work
        # is not started.
        if wants_tools and run.usage.total > self.limits.max_tokens:
            error = (
                f"This turn used {run.usage.total:,} tokens, over its limit of {self.limits.max_tokens:,} "
                "(THINKER_MAX_TURN_TOKENS), so it was stopped."
            )
            return self._end(run, StopReason.TOKEN_LIMIT, sanitize(reply.text) or error, error=error)
        if wants_tools and self.paused():
            error = "The agent was paused by its cost controls during this turn; it stopped before calling tools."
            return self._end(run, StopReason.PAUSED, sanitize(reply.text) or error, error=error)
        if wants_tools:
            return CallTools(reply, reply.tool_calls, reply.text)
        return FinishText(reply, guard_retry=node.guard_retry, answer_only=tool_choice == "none")

    # -- CallTools -----------------------------------------------------------------------------------------

    def _unique_id(self, run: _Run, call_id: str) -> str:
        # Some servers number calls from 0 in every response; ids must stay unique within the conversation.
        candidate, suffix = call_id or "call", 1
        while candidate in run.call_ids:
            suffix += 1
            candidate = f"{call_id or 'call'}_{suffix}"
        run.call_ids.add(candidate)
        return candidate

    async def _call_tools(self, run: _Run, node: CallTools, max_steps: int) -> Node:
        distinct = _without_copies(node.calls)
        if len(distinct) < len(node.calls):
            log.info("copies of a call in one reply dropped", extra={"copies": len(node.calls) - len(distinct)})
        if len(distinct) > MAX_CALLS_PER_REPLY:
            log.warning(
                "model reply had too many tool calls; the first ones run, the rest are dropped",
                extra={"calls": len(distinct), "kept": MAX_CALLS_PER_REPLY},
            )
        kept = distinct[:MAX_CALLS_PER_REPLY]
        calls = [ToolCall(self._unique_id(run, c.id), c.name, c.arguments) for c in kept]
        content = sanitize(node.text) or None
        # Arguments that are not a JSON object stay out of the history (its result says what was wrong): llama.cpp's
        # server refuses a whole request whose history holds a call it cannot parse, so one reply cut at the length
        # limit failed the turn's next model call ("Failed to parse tool call arguments as JSON").
        recorded = [tool_call(c.id, c.name, c.arguments if _json_object(c.arguments) else "{}") for c in calls]
        run.messages.append(assistant_message(content, recorded))
        malformed = 0
        repeated = False
        failed: str | None = None
        for call in calls:
            if failed is not None:
                # Calls of one reply often depend on each other (create a draft, then send "your-draft-id-here"):
                # after a failure the rest wait for the model to see it.
                run.messages.append(tool_message(call.id, json.dumps(not_run_after(failed)), call.name))
                continue
            envelope, counted = await self._run_call(run, call, cut=node.reply.finish_reason == "length")
            if not counted:
                malformed += 1
            repeated = repeated or envelope is REPEATED_CALL
            # A repeat was not run, so nothing failed: the reply's other calls still run (the 1.5B model wrote
            # the same create_file five times in one reply; the copies after the second were told it "failed").
            if not envelope.get("success") and envelope is not REPEATED_CALL:
                failed = call.name
            # A sealed secret never reaches the model: it reads a placeholder it can only pass on.
            run.messages.append(
                tool_message(call.id, self._result_text(run.secrets.mask(envelope), call.name), call.name)
            )
        if run.lookup_now is not None:
            await self._look_up(run, run.lookup_now)
            run.lookup_now = None
        if malformed:
            run.retries_left -= malformed
            if run.retries_left < 0:
                error = "The model kept making malformed tool calls (unknown tools or unreadable arguments)."
                return self._end(run, StopReason.MALFORMED_CALLS, content or error, error=error)
        if run.steps >= max_steps:
            return self._step_limit(run, content)
        if repeated:
            return ModelRequest(tool_choice="none")
        return ModelRequest()

    def _may_look_up(self, run: _Run, name: str) -> bool:
        """Whether the loop may run the lookup `name` for the model: it needs no arguments, and neither the loop
        nor the model has called it so this turn (its result would be in the conversation already)."""
        if name in run.lookups_run or run.toolset.required(name):
            return False
        return self._bare_key(run, name) not in run.calls_made

    def _bare_key(self, run: _Run, name: str) -> str:
        """The `call_key` of calling `name` with no arguments."""
        bare = normalize_arguments(name, {}, run.toolset.schema(name), chat_id=run.chat_id, agent_id=self.agent_id)
        return call_key(name, bare.arguments)

    async def _look_up(self, run: _Run, pending: _PendingLookup) -> None:
        """Call the lookup with no arguments, as if the model had; then the refusal it serves names the records it
        returned that are nearest the request (told only "an id from its result", the 1.5B model took the first
        skill of the list, a seeded one, and overwrote its instructions)."""
        name = pending.lookup
        call = ToolCall(self._unique_id(run, f"lookup_{run.steps}"), name, "{}")
        log.info("lookup run for the model", extra={"tool": name})
        run.messages.append(assistant_message(None, [tool_call(call.id, call.name, call.arguments)]))
        envelope, _ = await self._run_call(run, call)
        run.looked_up.add(self._bare_key(run, name))
        run.messages.append(tool_message(call.id, self._result_text(run.secrets.mask(envelope), name), name))
        records = listed_records(run.messages, name, run.lookups_run[name], run.request)
        if not records:
            return
        text = id_from_nowhere(pending.tool, pending.unseen, name, looked_up=True, records=records)
        for index, message in enumerate(run.messages):
            if message["role"] == "tool" and message.get("tool_call_id") == pending.call_id:
                refusal = fail(ErrorCode.INVALID_ARGUMENTS, text)
                run.messages[index] = tool_message(
                    pending.call_id, self._result_text(refusal, pending.tool), pending.tool
                )

    async def _run_call(self, run: _Run, call: ToolCall, *, cut: bool = False) -> tuple[dict[str, Any], bool]:
        """(envelope, well-formed). A malformed call's envelope explains the mistake to the model; `cut`: the reply
        ended at its length limit, so unreadable arguments are most likely cut short."""
        kind = run.toolset.kind(call.name)
        if kind is None:
            offered = ", ".join(run.toolset.offered) or "none"
            hint = f" Call {BROWSE_TOOLS} to find more." if run.toolset.meta else ""
            return fail(
                ErrorCode.UNKNOWN_TOOL, f"There is no tool {call.name!r} here. Your tools: {offered}.{hint}"
            ), False
        try:
            parsed = json.loads(call.arguments) if call.arguments.strip() else {}
        except json.JSONDecodeError as exc:
            message = f"The arguments for {call.name} are not valid JSON ({exc.msg} at position {exc.pos}); send a JSON object."
            if cut:
                message = (
                    f"The arguments for {call.name} were cut off at the length limit of one answer; send less at once."
                )
            return fail(ErrorCode.INVALID_ARGUMENTS, message), False
        if not isinstance(parsed, dict):
            message = f"The arguments for {call.name} must be a JSON object, not {type(parsed).__name__}."
            return fail(ErrorCode.INVALID_ARGUMENTS, message), False
        schema = run.toolset.schema(call.name)
        normalized = normalize_arguments(call.name, parsed, schema, chat_id=run.chat_id, agent_id=self.agent_id)
        if normalized.dropped or normalized.notes:
            log.info(
                "tool arguments normalised",
                extra={"tool": call.name, "dropped": list(normalized.dropped), "notes": list(normalized.notes)},
            )
        key = call_key(call.name, normalized.arguments)
        if run.toolset.may_change_state(call.name):
            unseen = unseen_ids(normalized.arguments, schema, run.messages)
            if unseen and key in run.refused:
                # Refused, the 1.5B model sent the same made-up id six times over, a minute of the owner's wait each.
                log.info("refused tool call repeated", extra={"tool": call.name})
                return REPEATED_CALL, True
            if unseen:
                run.refused.add(key)
                lookup = run.toolset.offer_lookup(call.name)
                run.lookup_due = lookup or run.lookup_due
                # Told to look the id up, the 1.5B model called the lookup with a filter that hid the record, or
                # the change again with another made-up id: a lookup that needs no arguments is run for it.
                kind = unseen[0][0].removesuffix("_id")
                if lookup and self._may_look_up(run, lookup):
                    run.lookups_run[lookup] = kind
                    run.lookup_now = _PendingLookup(lookup, call.id, call.name, unseen)
                log.info(
                    "call with an id from nowhere refused",
                    extra={
                        "tool": call.name,
                        "ids": [(name, value[:60]) for name, value in unseen],
                        "lookup_offered": lookup,
                    },
                )
                looked_up = run.lookup_now is not None and run.lookup_now.lookup == lookup
                listed = lookup is not None and lookup in run.tools_used
                records = listed_records(run.messages, lookup, kind, run.request) if listed and lookup else []
                text = id_from_nowhere(call.name, unseen, lookup, looked_up=looked_up, listed=listed, records=records)
                return fail(ErrorCode.INVALID_ARGUMENTS, text), True
            addresses = unseen_addresses(normalized.arguments, run.messages)
            if addresses:
                log.info(
                    "call with an address from nowhere refused",
                    extra={"tool": call.name, "addresses": [address[:80] for address in addresses[:3]]},
                )
                optional = optional_holders(normalized.arguments, addresses, schema)
                return fail(ErrorCode.INVALID_ARGUMENTS, address_from_nowhere(call.name, addresses, optional)), True
            unread = [] if run.read_guard_used else unread_values(run.named, normalized.arguments, run.messages)
            reader = run.toolset.offer_reader(unread[0][0]) if unread else None
            if reader is not None and reader != call.name:
                run.read_guard_used = True
                run.lookup_due = reader
                log.info(
                    "call before reading what the request names refused",
                    extra={"tool": call.name, "unread": [value[:80] for _, value in unread], "reader": reader},
                )
                return fail(ErrorCode.INVALID_ARGUMENTS, read_first(call.name, unread, reader)), True
        if key in run.looked_up:
            # The model made the lookup a refusal told it to make, which the loop had made for it: its result is
            # what the model asked for, not a repeat to stop ("Look it up first with memory_list_skills", then
            # "You already made this exact call ... Answer the user now" ended turns of the 1.5B model). Only
            # until a change works: after one, the same listing again is a repeat like any other (shown the
            # list once more after deleting the right reminder, the same model went on to delete two others).
            log.info("lookup already run for the model", extra={"tool": call.name})
            records = listed_records(run.messages, call.name, run.lookups_run[call.name], run.request)
            return already_looked_up(call.name, run.lookups_run[call.name], records), True
        if key in run.calls_made:
            log.info("repeated tool call not run again", extra={"tool": call.name})
            return REPEATED_CALL, True
        run.calls_made.add(key)
        run.used(call.name)
        started = time.perf_counter()
        envelope = await self._dispatch(run, kind, call.name, normalized.arguments)
        trace_event(
            "tool_call",
            name=call.name,
            kind=kind.value,
            success=bool(envelope.get("success")),
            errorCode=envelope.get("errorCode"),
            ms=elapsed_ms(started),
        )
        if envelope.get("success"):
            run.failed_tools.pop(call.name, None)
            if call.name == run.lookup_due:
                run.lookup_due = None
            # A call that worked and may change state may have changed what others return (read, update, read
            # again to check): only this call counts as made. Reads change nothing, so the calls before them stay
            # made (the 1.5B model alternated two searches until the step limit); a failed call stays made
            # until one that may change state works. Such a call also means the model found its id: no lookup
            # is due any more.
            if run.toolset.may_change_state(call.name):
                run.calls_made = {key}
                run.looked_up = set()
                run.lookup_due = None
        else:
            error = "" if envelope.get("untrusted") else str(envelope.get("error") or "")
            run.failed_tools[call.name] = error
            # An error that says which tool to use instead ("change that one with update_skill") offers it: the
            # 1.5B model, offered only store_skill, was told to update the skill it had stored and could not.
            named = run.toolset.offer_named(error, call.name)
            if named:
                log.info("tools an error named are offered", extra={"tool": call.name, "offered": named})
        return envelope, True

    def _remaining(self, run: _Run) -> float | None:
        return None if run.deadline is None else run.deadline.at - self.clock()

    async def _dispatch(self, run: _Run, kind: ToolKind, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if run.deadline is not None and name == SUBAGENT_TOOL:
            # A subagent works within its own time limit; the hub waits that much longer for this turn too.
            run.deadline.at += call_timeout(name, arguments, 0.0)
        remaining = self._remaining(run)
        if kind is not ToolKind.META and remaining is not None and remaining <= 0:
            return fail(ErrorCode.TIMEOUT, f"This turn's time ran out before {name} could run.")
        if kind is ToolKind.META:
            if name == BROWSE_TOOLS:
                return {"success": True, "data": run.toolset.browse()}
            try:
                return {"success": True, "data": run.toolset.load(str(arguments.get("category", "")))}
            except ValueError as exc:
                return fail(ErrorCode.INVALID_ARGUMENTS, str(exc))
        if kind is ToolKind.ESSENTIAL:
            essential = run.toolset.essentials[name]
            try:
                hub_arguments = essential.hub_arguments(arguments, self.agent_id)
            except ValueError as exc:
                return fail(ErrorCode.INVALID_ARGUMENTS, str(exc))
            return await self._hub_call(run, essential.hub_tool, hub_arguments, remaining)
        return await self._hub_call(run, name, arguments, remaining)

    async def _hub_call(
        self, run: _Run, name: str, arguments: dict[str, Any], remaining: float | None
    ) -> dict[str, Any]:
        started = self.clock()
        envelope = await self.hub.call(name, arguments, within=remaining)
        if run.deadline is not None and self.hub.may_be_held(name):
            # A call the hub held for the owner's approval: the wait was the owner's time, not the turn's (the hub
            # waits that much longer for the turn too).
            run.deadline.at += min(self.clock() - started, self.hub.approval_timeout)
        return envelope

    def _result_text(self, envelope: dict[str, Any], tool: str) -> str:
        text = json.dumps(envelope, ensure_ascii=False, default=str)
        cap = self.limits.max_result_chars
        if len(text) > cap:
            text = text[:cap] + f"\n[result truncated: {len(text) - cap:,} more characters not shown]"
        if not envelope.get("untrusted"):
            return text
        # The hub's envelope passed the contract's check, so these are Guardian's threat-type names, not content.
        return as_data(text, tool, envelope.get("suspicious") or ())

    # -- FinishText ----------------------------------------------------------------------------------------

    async def _finish(self, run: _Run, node: FinishText, max_steps: int) -> Node:
        text = node.reply.text or ""
        leaked = None if node.answer_only else find_leaked_call(text, frozenset(run.toolset.offered))
        if leaked is not None:
            log.info("leaked tool call recovered", extra={"tool": leaked.name})
            call = ToolCall(f"leaked_{run.steps}", leaked.name, json.dumps(leaked.arguments, ensure_ascii=False))
            return CallTools(node.reply, (call,), leaked.preamble(text))
        hallucinated = is_hallucinated_action(text, tools_called=bool(run.tools_used), offered=run.toolset.offered)
        if node.guard_retry:
            # The retry was told to call a tool and answered in words again: say so instead of pretending.
            log.warning("hallucination guard: the retry called no tool either")
            return self._end(run, StopReason.HALLUCINATION, HONEST_FAILURE, error=HONEST_FAILURE)
        if hallucinated and not run.guard_used:
            run.guard_used = True
            log.warning("hallucination guard: action claimed without a tool call, retrying with tool_choice=required")
            if run.steps >= max_steps:
                return self._end(run, StopReason.HALLUCINATION, HONEST_FAILURE, error=HONEST_FAILURE)
            return ModelRequest(
                tool_choice="required", temperature=retry_temperature(run.temperature), guard_retry=True
            )
        if run.lookup_due and not run.lookup_guard_used and run.steps < max_steps:
            # Told which tool finds the id, the 1.5B model answered "I'll need to look up my emails" and stopped.
            run.lookup_guard_used = True
            log.warning("lookup guard: words instead of the lookup it was told to make", extra={"tool": run.lookup_due})
            return ModelRequest(tool_choice="required", temperature=retry_temperature(run.temperature))
        if (
            not run.refusal_guard_used
            and run.steps < max_steps
            and is_tool_refusal(text, search_offered=offers_search(run.toolset.offered))
        ):
            run.refusal_guard_used = True
            log.warning("refusal guard: no real-time access claimed with search tools offered, forcing a tool call")
            return ModelRequest(tool_choice="required", temperature=refusal_temperature(run.temperature))
        answer = sanitize(text)
        if not answer or echoes_refusal(answer):
            return self._empty_answer(run)
        if node.reply.finish_reason == "length":
            answer = f"{answer}\n\n{cut_off(self.limits.max_output_tokens)}"
        return self._end(run, StopReason.ANSWERED, answer)

    def _empty_answer(self, run: _Run) -> End:
        if run.tools_used and not run.failed_tools:
            return self._end(run, StopReason.ANSWERED, f"Done (used {', '.join(run.tools_used)}).")
        # The owner is told what the turn did and what failed, not only that the model said nothing: the 1.5B model
        # ended a turn of six calls by writing a seventh as text, and the reply was "could not produce an answer".
        error = "The model returned an empty answer."
        if run.tools_used:
            error = f"The model gave no answer after using its tools. {tools_outcome(run.tools_used, run.failed_tools)}"
        return self._end(run, StopReason.ANSWERED, EMPTY_ANSWER, error=error)

    def _too_slow(self, run: _Run) -> End:
        budget = run.deadline.seconds if run.deadline is not None else 0.0
        message = too_slow(self.model.settings.where(), run.model_calls, run.model_seconds, budget, run.tools_used)
        log.warning("turn out of time", extra={"calls": run.model_calls, "model_seconds": round(run.model_seconds, 1)})
        # No answer is added to the chat: the sentence is an error for the user, not something the agent said.
        return self._end(run, StopReason.TIME_LIMIT, "", error=message)

    def _step_limit(self, run: _Run, text: str | None) -> End:
        note = f"I stopped after {run.steps} steps, the most this task may take"
        used = f" (tools used: {', '.join(run.tools_used)})" if run.tools_used else ""
        return self._end(run, StopReason.STEP_LIMIT, text or f"{note}{used}; please ask again to continue.")

    # -- End -----------------------------------------------------------------------------------------------

    def _end(
        self, run: _Run, stop: StopReason, response: str, *, error: str | None = None, budget: BudgetStop | None = None
    ) -> End:
        if response:
            run.messages.append(assistant_message(response))
        success = stop in (StopReason.ANSWERED, StopReason.STEP_LIMIT) and error is None
        return End(
            TurnResult(
                success=success,
                response=response,
                stop=stop,
                tools_used=tuple(run.tools_used),
                steps=run.steps,
                usage=run.usage,
                messages=run.added(),
                error=error,
                secrets=run.secrets,
                budget=budget,
            )
        )
