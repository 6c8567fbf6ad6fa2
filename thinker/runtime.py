"""One agent's runtime: everything a turn needs, wired together, and the two kinds of turn.

`ThinkerRuntime` owns the seams (model clients, hub client, session store, embedder, tool selector, cost
monitor, fact-extraction scheduler) and runs:

- `process_message`: a chat turn. Paused by cost controls → answered at once, no model call. Otherwise: the
  hub's tool list (cached) → session history → profile, memories and playbooks → tool selection (with sticky
  tools from recent turns and the matched playbooks' tools) → the layered system prompt → the agent loop →
  the turn saved, compaction considered, fact extraction re-armed.
- both kinds of model call are admitted by the budget guard first (`thinker.budget_guard`); a turn a budget
  stops answers with its sentence and `errorCode: BUDGET_EXCEEDED`, and a skill run counts against the skill's
  own limits (`maxTokensPerRun`, `dailyTokens`) too.
- `execute_skill`: a skill run. No history; the instructions are the user message; `requiredTools` is a strict
  sandbox (exactly those tools, nothing else), `noTools` offers none, otherwise tools are selected as for a
  message, without `send_telegram` (the hub notifies about skill results itself).

Start-up (`start`) prepares the persona file and is `ready` at once; importing and warming litellm and listing
the hub's tools continue in the background, and the first turn waits for them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from shared.agents import AgentDefinition
from shared.contracts.thinker_api import CostStatus, SkillAnswer, TurnAnswer, paused_reason
from shared.embeddings import Embedder, EmbeddingError, EmbeddingSettings, create_embedder
from shared.timeutil import utc_now
from shared.traces import elapsed_ms, trace_event
from thinker.budget_guard import open_guard, skill_run
from thinker.budgets import SkillLimits
from thinker.catalog import ToolCatalog
from thinker.context import (
    VOUCHED,
    ContextSource,
    PromptLayers,
    ensure_persona,
    persona_text,
    render_system_prompt,
)
from thinker.cost import CostMonitor
from thinker.essentials import Essential, available_essentials
from thinker.extraction import (
    ExtractedFact,
    ExtractionConfig,
    FactExtractionScheduler,
    derived_turn,
    extract_and_store,
)
from thinker.hub_tools import HubTools, HubUnavailable
from thinker.llm import ModelClient, load_litellm, warm_up
from thinker.loop import AgentLoop, LoopLimits, TurnDeadline, TurnResult
from thinker.selection import McpInfo, Selection, ToolInfo, ToolSelector, match_playbooks, required_selection
from thinker.sessions import (
    CompactionConfig,
    InvalidChatId,
    SessionError,
    SessionStore,
    Turn,
    build_history,
    compact,
    make_turn,
    should_compact,
)
from thinker.sessions.compaction import SUMMARY_PROMPT
from thinker.sessions.messages import ChatMessage, system_message, user_message
from thinker.settings import ThinkerSettings, agent_model, utility_model
from thinker.tiers import META_TOOLS, ToolSet, meta_tool_descriptions

log = logging.getLogger(__name__)

MAINTENANCE_SECONDS = 300.0
SKILL_SUMMARY_CHARS = 300
SKILL_TASK = (
    "You are running a skill{name}. Do the task in the user message now, with the tools you have, then reply with "
    "a short summary of what you did and what you found."
)


class BadRequest(Exception):
    """The request is well-formed but cannot be served (an unusable chat id, the wrong agent); HTTP 400."""


WallClock = Callable[[], datetime]


@dataclass
class MessageIn:
    chat_id: str
    text: str
    tainted: bool = False
    turn_id: str | None = None
    """The hub's turn for this message (kept with the exchange, see `Turn.hub_turn`)."""
    owner: bool = False
    """The owner wrote it: secrets the turn read may be shown in the reply (see `shared.secrets`)."""


@dataclass
class SkillIn:
    instructions: str
    max_steps: int = 10
    no_tools: bool = False
    required_tools: list[str] | None = None
    chat_id: str | None = None
    skill_name: str | None = None
    skill_id: int | str | None = None
    max_tokens_per_run: int | None = None
    daily_tokens: int | None = None


@dataclass
class RuntimeState:
    started_at: float = field(default_factory=time.monotonic)
    ready: bool = False
    last_selection: dict[str, Any] | None = None
    catalog_fingerprint: str = ""


def _tool_infos(catalog: ToolCatalog, essentials: list[Essential]) -> tuple[list[ToolInfo], list[McpInfo]]:
    """What the selector chooses from: the hub's tools, this agent's essentials and the meta-tools."""
    tools = [ToolInfo(t.name, t.description, t.input_schema, t.mcp) for t in catalog.tools.values()]
    tools += [ToolInfo(e.name, e.description, e.input_schema, None, e.hub_tool) for e in essentials]
    tools += [ToolInfo(name, description, {}, None) for name, description in meta_tool_descriptions().items()]
    mcps = [McpInfo(m.name, m.label, m.tool_group, m.keywords) for m in catalog.mcps.values()]
    return tools, mcps


def configured_embedder(settings: ThinkerSettings) -> Embedder | None:
    """The embedder EMBEDDING_PROVIDER names (None for `none`, or when it is misconfigured: that is logged)."""
    try:
        return create_embedder(EmbeddingSettings.model_validate(settings.model_dump()))
    except EmbeddingError as exc:
        log.warning("tool selection and history run without embeddings", extra={"reason": str(exc)})
        return None


def _budget_fields(result: TurnResult) -> dict[str, Any]:
    """A budget stop's machine-readable fields for the answer (none when no budget stopped the turn)."""
    if result.budget is None:
        return {}
    return {"errorCode": "BUDGET_EXCEEDED", "budget": result.budget}


class ThinkerRuntime:
    def __init__(
        self,
        settings: ThinkerSettings,
        agent: AgentDefinition,
        *,
        wall_clock: WallClock = utc_now,
        monotonic: Callable[[], float] = time.monotonic,
        embedder: Embedder | None = None,
        selection_embedder: Embedder | None = None,
        selection_second: Embedder | None = None,
        hub: HubTools | None = None,
    ) -> None:
        self.settings = settings
        self.agent = agent
        self.agent_id = agent.agentId
        self.wall_clock = wall_clock
        self.state = RuntimeState()
        self.monotonic = monotonic
        self.cost = CostMonitor(agent.costControls, clock=wall_clock)
        # A subagent's (or an agent sharing an account's) spend counts on the account's ledger and budgets.
        account = agent.budgets.account or agent.agentId
        self.budget = open_guard(
            settings.data_dir, agent.budgets, agent_id=account, zone=settings.timezone, clock=wall_clock
        )
        self.model = ModelClient(
            agent_model(settings, agent),
            usage=self.cost,
            clock=monotonic,
            temperature=agent.temperature,
            budget=self.budget,
        )
        self.utility = ModelClient(
            utility_model(settings, agent), usage=self.cost, clock=monotonic, temperature=0.2, budget=self.budget
        )
        self.hub = hub or HubTools(
            settings.hub_url,
            settings.hub_token,
            agent_id=agent.agentId,
            ttl=settings.thinker_tool_cache_seconds,
            timeout=settings.thinker_hub_timeout_seconds,
            approval_timeout=settings.approval_timeout_s,
            clock=monotonic,
        )
        self.embedder = embedder
        # Tool selection has its own embedder (multilingual, see thinker.selection.selection_embedder); without
        # one it shares the memory embedder. The second encoder's opinion joins once `prepare` has loaded it.
        self.selector = ToolSelector(settings.selection_config(), selection_embedder or self.embedder, selection_second)
        self.sessions = SessionStore(settings.annabelle_home / "sessions", agent.agentId, clock=wall_clock)
        self.compaction = CompactionConfig(enabled=settings.thinker_compaction_enabled)
        self.context = ContextSource(
            self.hub, agent_id=agent.agentId, skills_dir=settings.annabelle_home / "skills", clock=monotonic
        )
        self.loop = AgentLoop(
            self.model,
            self.hub,
            agent_id=agent.agentId,
            limits=LoopLimits(
                max_steps=agent.maxSteps,
                max_tokens=settings.thinker_max_turn_tokens,
                max_tool_retries=settings.thinker_max_tool_retries,
                max_result_chars=settings.thinker_max_tool_result_chars,
                max_output_tokens=agent.maxOutputTokens,
            ),
            paused=lambda: self.cost.paused,
            clock=monotonic,
        )
        self.extraction_config = ExtractionConfig(
            enabled=settings.thinker_fact_extraction_enabled,
            idle=timedelta(seconds=settings.thinker_fact_extraction_idle_seconds),
        )
        self.extraction = FactExtractionScheduler(self.extraction_config.idle, clock=wall_clock)
        self._chat_locks: dict[str, asyncio.Lock] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.compactions: set[asyncio.Task[Any]] = set()
        """Compactions running in the background (a turn does not wait for its chat's summary)."""
        self._warming: asyncio.Task[Any] | None = None

    # -- lifecycle -----------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Create the persona file, then `ready`: the model client and the tool list load in the background."""
        if not self.agent.systemPrompt.strip():
            ensure_persona(self.settings.annabelle_home, self.agent_id)
        self._warming = self._spawn(self._warm_up())
        self.state.ready = True
        self._spawn(self._maintenance())
        if self.extraction_config.enabled:
            self._spawn(self.extraction.run_forever(self.extract_facts))
        log.info("thinker ready", extra={"agent": self.agent_id, "model": self.agent.model})

    async def _warm_up(self) -> None:
        """Import and warm litellm, then list the hub's tools (which starts preparing the tool selection)."""
        started = time.perf_counter()
        await asyncio.to_thread(load_litellm)
        try:
            await warm_up(self.agent.model)
        except Exception as exc:  # a warm-up is an optimisation: its failure must not stop the agent
            log.warning("litellm warm-up failed", extra={"error": repr(exc)})
        try:
            await self._catalog()
        except HubUnavailable as exc:
            log.warning("hub not reachable at start-up; will retry on the first message", extra={"reason": str(exc)})
        except Exception:  # the first turn lists the tools again and reports what fails
            log.exception("listing the hub's tools at start-up failed")
        log.info(
            "thinker warmed up", extra={"agent": self.agent_id, "seconds": round(time.perf_counter() - started, 2)}
        )

    async def until_warm(self) -> None:
        """A turn that arrives while start-up still loads the model client or the tool list waits for it."""
        warming = self._warming
        if warming is None or warming.done():
            return
        log.info(
            "message waits for start-up: loading the model client and listing the hub's tools",
            extra={"agent": self.agent_id},
        )
        await asyncio.wait({warming})

    async def aclose(self) -> None:
        if self.compactions:
            # A summary in flight has been paid for: let it land (each is bounded by its own timeout).
            await asyncio.wait(self.compactions, timeout=self.compaction.timeout_seconds + 5)
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self.hub.aclose()
        if self.embedder is not None:
            await self.embedder.aclose()
        self.budget.ledger.close()

    def _spawn(self, coroutine: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _maintenance(self) -> None:
        while True:
            await asyncio.sleep(MAINTENANCE_SECONDS)
            try:
                removed = self.sessions.cleanup(self.wall_clock(), self.settings.thinker_session_max_age_days)
            except OSError as exc:
                log.warning("session cleanup failed", extra={"error": str(exc)})
                continue
            for chat_id in removed:
                self._chat_locks.pop(chat_id, None)
                self.extraction.cancel(chat_id)

    async def extract_facts(self, chat_id: str) -> list[ExtractedFact]:
        """Facts from a chat that went quiet, stored through the hub (the idle scheduler calls this)."""
        catalog = self.hub.cached
        if self.cost.paused or catalog is None or not catalog.has("memory_store_fact"):
            return []
        session = self.sessions.load(chat_id)
        with HubTools.turn(derived_turn(session.turns, self.extraction_config.max_turns)):
            return await self._extract_and_store(chat_id, session.turns, catalog)

    async def _extract_and_store(
        self, chat_id: str, turns: Sequence[Turn], catalog: ToolCatalog
    ) -> list[ExtractedFact]:
        known: list[str] = []
        if catalog.has("memory_list_facts"):
            listed = await self.hub.call("memory_list_facts", {"agent_id": self.agent_id, "limit": 100})
            data = listed.get("data") if listed.get("success") else None
            facts = data.get("facts") if isinstance(data, dict) else None
            # Only facts someone vouches for: the extraction model must read nothing untrusted beyond the chat
            # itself, whose taint the hub judges from its turns.
            known = [
                str(f["fact"])
                for f in facts or []
                if isinstance(f, dict) and f.get("fact") and f.get("provenance") in VOUCHED
            ]

        async def store(fact: ExtractedFact) -> None:
            arguments = {"fact": fact.fact, "category": fact.category, "agent_id": self.agent_id}
            envelope = await self.hub.call("memory_store_fact", arguments)
            if not envelope.get("success"):
                raise RuntimeError(envelope.get("error") or "memory_store_fact failed")

        llm = self.utility.text_completion(json_mode=True, temperature=0.1, max_tokens=800)
        stored = await extract_and_store(turns, known, llm, store, config=self.extraction_config)
        if stored:
            log.info("facts extracted", extra={"chat_id": chat_id, "facts": len(stored)})
        return stored

    # -- shared steps --------------------------------------------------------------------------------------

    async def _catalog(self) -> ToolCatalog:
        catalog = await self.hub.catalog()
        if catalog.fingerprint != self.state.catalog_fingerprint:
            tools, mcps = _tool_infos(catalog, available_essentials(frozenset(catalog.tools)))
            # The selector re-embeds only the tools whose text changed, in the background (a model load on the
            # first refresh must not hold up start-up; a message before it is done waits for it).
            await self.selector.refresh(tools, mcps)
            self._spawn(self.selector.prepare())
            self.state.catalog_fingerprint = catalog.fingerprint
        return catalog

    async def _catalog_or_empty(self) -> ToolCatalog:
        try:
            return await self._catalog()
        except HubUnavailable as exc:
            log.warning("answering without tools: the hub is not reachable", extra={"reason": str(exc)})
            return ToolCatalog()

    def _paused_reason(self) -> str:
        return paused_reason(self.agent_id, self.cost.pause_reason)

    def _lock(self, chat_id: str) -> asyncio.Lock:
        lock = self._chat_locks.get(chat_id)
        if lock is None:
            lock = self._chat_locks[chat_id] = asyncio.Lock()
        return lock

    # -- a chat turn ---------------------------------------------------------------------------------------

    async def _deadline(self) -> TurnDeadline:
        """A turn's time starts when the Thinker is warm (a first request waits for litellm and the tool index:
        start-up, not the model's slowness; the hub's grace of 30 s over `turnTimeoutSeconds` covers it). Waiting
        for the chat's previous turn counts."""
        await self.until_warm()
        return TurnDeadline.starting(self.monotonic(), self.agent.turnTimeoutSeconds)

    async def process_message(self, message: MessageIn) -> TurnAnswer:
        deadline = await self._deadline()
        if self.cost.paused:
            return TurnAnswer.paused_refusal(self._paused_reason())
        try:
            self.sessions.path_for(message.chat_id)
        except InvalidChatId as exc:
            raise BadRequest(str(exc)) from None
        async with self._lock(message.chat_id):
            result = await self._chat_turn(message, deadline)
        # The reply, and only the reply, shows a secret the model placed in it; the session keeps the placeholder.
        reveal = message.owner and not message.tainted
        response = result.secrets.reveal(result.response) if reveal else result.secrets.withhold(result.response)
        return TurnAnswer(
            success=result.success,
            response=response,
            toolsUsed=list(result.tools_used),
            totalSteps=result.steps,
            error=result.error or None,
            paused=result.paused or self.cost.paused or None,
            **_budget_fields(result),
        )

    async def _chat_turn(self, message: MessageIn, deadline: TurnDeadline) -> TurnResult:
        catalog = await self._catalog_or_empty()
        session = self.sessions.load(message.chat_id)
        profile, memories, library = await asyncio.gather(
            self.context.profile(catalog),
            self.context.memories(catalog, message.text),
            self.context.library(catalog),
        )
        matched = match_playbooks(message.text, library.playbooks)
        past = session.messages()
        history = await build_history(
            past, message.text, self.embedder, threshold=self.settings.history_relevance_threshold
        )
        recent = session.turns[-self.selector.config.sticky_lookback :] if self.selector.config.sticky_lookback else ()
        essentials = available_essentials(frozenset(catalog.tools))
        callable_names = {*catalog.tools, *(e.name for e in essentials), *META_TOOLS}
        selecting = time.perf_counter()
        selection = await self.selector.select(
            message.text,
            recent_user_messages=tuple(turn.user for turn in recent),
            recent_assistant_messages=tuple(turn.assistant for turn in recent),
            recent_tools_used=tuple(turn.tools_used for turn in recent),
            playbook_tools=tuple(name for p in matched for name in p.required_tools),
            # Core tools this agent cannot call (no Telegram MCP: no send_telegram) must not take cap slots.
            allowed=callable_names.__contains__,
        )
        self._remember_selection(selection, catalog, elapsed_ms(selecting))
        toolset = ToolSet(
            catalog,
            selection.names,
            essentials=essentials,
            lookup_of=self.selector.lookup_of,
            reader_of=self.selector.reader_of,
        )
        system = render_system_prompt(
            PromptLayers(
                persona=persona_text(self.agent, self.settings.annabelle_home),
                now=self.wall_clock().astimezone(self.settings.timezone),
                profile=profile,
                chat_id=message.chat_id,
                compaction_summary=session.summary,
                playbooks=matched,
                skills=library.skills,
                memories=memories.facts,
                untrusted_memories=memories.untrusted,
                tainted=message.tainted,
            )
        )
        messages: list[ChatMessage] = [system_message(system), *history, user_message(message.text)]
        result = await self.loop.run(
            messages, toolset, chat_id=message.chat_id, temperature=self.agent.temperature, deadline=deadline
        )
        if result.response:
            self._save_turn(message, result)
        self.extraction.schedule(message.chat_id)
        return result

    def _remember_selection(self, selection: Selection, catalog: ToolCatalog, ms: float | None = None) -> None:
        self.state.last_selection = {
            "method": selection.method,
            "selectedCount": len(selection.names),
            "totalTools": len(catalog.tools),
            "topScore": selection.top_score,
        }
        self._trace_selection(selection, catalog, ms)

    @staticmethod
    def _trace_selection(selection: Selection, catalog: ToolCatalog, ms: float | None = None) -> None:
        trace_event(
            "tools_selected",
            names=list(selection.names),
            count=len(selection.names),
            method=selection.method,
            total=len(catalog.tools),
            top_score=selection.top_score,
            ms=ms,
        )

    def _save_turn(self, message: MessageIn, result: TurnResult) -> None:
        turn = make_turn(
            message.text,
            result.response,
            now=self.wall_clock(),
            tools_used=result.tools_used,
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            messages=result.messages,
            hub_turn=message.turn_id,
        )
        try:
            session = self.sessions.append_turn(message.chat_id, turn)
        except SessionError as exc:
            log.error("turn not saved", extra={"chat_id": message.chat_id, "error": str(exc)})
            return
        if not self.cost.paused and should_compact(session, self.wall_clock(), self.compaction):
            summarize = self.utility.text_completion(SUMMARY_PROMPT)
            task = self._spawn(compact(session, summarize, self.sessions, self.wall_clock(), self.compaction))
            self.compactions.add(task)
            task.add_done_callback(self.compactions.discard)

    def clear_session(self, chat_id: str) -> bool:
        try:
            existed = self.sessions.clear(chat_id)
        except InvalidChatId as exc:
            raise BadRequest(str(exc)) from None
        self.extraction.cancel(chat_id)
        self._chat_locks.pop(chat_id, None)
        return existed

    # -- a skill run ---------------------------------------------------------------------------------------

    async def execute_skill(self, skill: SkillIn) -> SkillAnswer:
        deadline = await self._deadline()
        if self.cost.paused:
            return SkillAnswer.paused_refusal(self._paused_reason())
        catalog = await self._catalog_or_empty()
        toolset = await self._skill_tools(skill, catalog)
        memories = await self.context.memories(catalog, skill.instructions)
        name = f" ({skill.skill_name})" if skill.skill_name else ""
        system = render_system_prompt(
            PromptLayers(
                persona=persona_text(self.agent, self.settings.annabelle_home),
                now=self.wall_clock().astimezone(self.settings.timezone),
                chat_id=skill.chat_id,
                task=SKILL_TASK.format(name=name),
                memories=memories.facts,
                untrusted_memories=memories.untrusted,
            )
        )
        messages: list[ChatMessage] = [system_message(system), user_message(skill.instructions)]
        limits = SkillLimits.of(
            skill.skill_id, skill.skill_name, skill.max_tokens_per_run, skill.daily_tokens, skill.instructions
        )
        with skill_run(limits):
            result = await self.loop.run(
                messages,
                toolset,
                chat_id=skill.chat_id,
                max_steps=skill.max_steps,
                temperature=self.agent.temperature,
                deadline=deadline,
            )
        summary = " ".join(result.response.split())
        return SkillAnswer(
            success=result.success,
            response=result.response,
            summary=summary[:SKILL_SUMMARY_CHARS] + ("…" if len(summary) > SKILL_SUMMARY_CHARS else ""),
            toolsUsed=list(result.tools_used),
            totalSteps=result.steps,
            error=result.error or None,
            paused=result.paused or self.cost.paused or None,
            **_budget_fields(result),
        )

    async def _skill_tools(self, skill: SkillIn, catalog: ToolCatalog) -> ToolSet:
        essentials = available_essentials(frozenset(catalog.tools))
        if skill.no_tools:
            return ToolSet(catalog, [], sandbox=True)
        if skill.required_tools:
            available = [*catalog.tools, *(e.name for e in essentials)]
            selection = required_selection(skill.required_tools, available)
            names = set(selection.names)
            missing = [name for name in skill.required_tools if name not in names]
            if missing:
                log.warning("skill tools not available to this agent", extra={"missing": missing})
            chosen = [e for e in essentials if e.name in names]
            self._trace_selection(selection, catalog)
            return ToolSet(catalog, selection.names, essentials=chosen, sandbox=True)
        # No send_telegram in a skill run: the hub reports the run's result to the user itself.
        usable = [e for e in essentials if e.name != "send_telegram"]
        callable_names = {*catalog.tools, *(e.name for e in usable), *META_TOOLS}
        selecting = time.perf_counter()
        selection = await self.selector.select(skill.instructions, allowed=callable_names.__contains__)
        self._remember_selection(selection, catalog, elapsed_ms(selecting))
        return ToolSet(
            catalog,
            selection.names,
            essentials=usable,
            lookup_of=self.selector.lookup_of,
            reader_of=self.selector.reader_of,
        )

    # -- status --------------------------------------------------------------------------------------------

    def cost_status(self) -> CostStatus:
        """The cost monitor's hour, and spend against each budget (the agent's, and today's skills')."""
        lines, note = self.budget.status(self.agent.model)
        return self.cost.status().model_copy(update={"budgets": lines, "budgetNote": note})

    def health(self) -> dict[str, Any]:
        catalog = self.hub.cached
        return {
            "status": "ok",
            "service": "thinker",
            "agentId": self.agent_id,
            "uptime": round(time.monotonic() - self.state.started_at, 1),
            "model": self.agent.model,
            "orchestratorUrl": self.settings.hub_url,
            "orchestratorConnected": self.hub.connected,
            "toolCount": len(catalog.tools) if catalog else 0,
            "embeddings": self.embedder.key if self.embedder is not None else None,
            "costPaused": self.cost.paused,
            "lastSelection": self.state.last_selection,
        }


__all__ = ["BadRequest", "MessageIn", "SkillIn", "ThinkerRuntime", "configured_embedder"]
