"""The Memorizer MCP server (mcpName `memory`): the original's 31 tools, thin over the service layer.

The lifespan builds everything from the environment of the moment (so every in-process test and every restart
sees its own settings): the database (migrated on open), the embedders and the utility model. Three seams let
tests and embedders swap parts without patching internals: `seams.embedder_factory(settings)`,
`seams.value_embedder_factory(settings, embedder)` and `seams.completion`. A configuration or database problem does not stop the server: every tool then answers
with the sentence that says what to fix.

Every tool takes `agent_id` (default `annabelle`) and touches only that agent's records.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import BaseModel, ConfigDict, Field

from memorizer_mcp import naming
from memorizer_mcp.exchange import Exchange
from memorizer_mcp.learning import Learning
from memorizer_mcp.llm import CompletionFn, config_from_settings, litellm_complete
from memorizer_mcp.params import (
    DEFAULT_AGENT_ID,
    AgentId,
    ContactType,
    ExportFormat,
    ProjectPriority,
    ProjectStatus,
    ProjectType,
    RecordId,
    SourceStatus,
    SourceType,
    TimelineSource,
    TriggerType,
)
from memorizer_mcp.provenance import (
    DEFAULT_PROVENANCE,
    DEFAULT_SOURCE_TYPE,
    FactSource,
    Provenance,
    holds_untrusted,
)
from memorizer_mcp.records import Records
from memorizer_mcp.service import Memory
from memorizer_mcp.settings import MemorizerSettings
from shared.contracts.hub_api import advanced
from shared.contracts.memory import TIMING_DAYS, FactCategory
from shared.contracts.thinker_api import MAX_SKILL_TOKENS
from shared.embeddings.base import Embedder
from shared.mcp_tools import (
    LOCAL_OVERWRITE,
    LOCAL_WRITE,
    READ_ONLY,
    EnvelopeServer,
    ServerState,
    Untrusted,
    background_task,
    envelope_tool,
)
from shared.settings import ConfigError, load_settings

log = logging.getLogger(__name__)

EmbedderFactory = Callable[[MemorizerSettings], "Embedder | None"]


def default_embedder(settings: MemorizerSettings) -> Embedder | None:
    """The configured provider, or None (`EMBEDDING_PROVIDER=none`, or a provider that cannot be built).

    Without an embedder search runs on full-text and keywords, so a provider problem is logged, not fatal.
    """
    if settings.embedding_provider == "none":
        return None
    try:
        from shared.embeddings import create_embedder

        return create_embedder(settings)
    except Exception as exc:
        log.error(
            "embedder unavailable; searching with full-text only",
            extra={"provider": settings.embedding_provider, "error": f"{type(exc).__name__}: {exc}"},
        )
        return None


def default_value_embedder(settings: MemorizerSettings, embedder: Embedder | None) -> Embedder | None:
    """The multilingual encoder the update rules compare values with (decisions.py), when embeddings are on: the
    configured embedder itself when it is that encoder (the default: one model in memory), else its own
    instance. Constructing it reads nothing; if its files are missing, the first comparison logs it and the rules
    decide without it."""
    if embedder is None:
        return None
    from shared.embeddings.multilingual import MultilingualEmbedder

    return embedder if embedder.provider == MultilingualEmbedder.provider else MultilingualEmbedder()


ValueEmbedderFactory = Callable[[MemorizerSettings, "Embedder | None"], "Embedder | None"]


@dataclass
class Seams:
    embedder_factory: EmbedderFactory = default_embedder
    value_embedder_factory: ValueEmbedderFactory = default_value_embedder
    completion: CompletionFn = litellm_complete


seams = Seams()


@dataclass(frozen=True)
class Parts:
    memory: Memory
    learning: Learning
    records: Records
    exchange: Exchange


MemorizerState = ServerState[Parts]


def build_parts(settings: MemorizerSettings) -> Parts:
    embedder = seams.embedder_factory(settings)
    memory = Memory.open(settings, embedder, values=seams.value_embedder_factory(settings, embedder))
    config = config_from_settings(settings)
    learning = Learning(memory, config, seams.completion)
    if settings.memory_model_decisions and config is not None:
        memory.decider = learning.decide_with_model
    return Parts(memory, learning, Records(memory), Exchange(memory))


async def _reembed(memory: Memory) -> None:
    """Facts whose vectors came from the embedder configured before get vectors from the current one (see
    Memory.reembed); a failure here must not end the server."""
    try:
        await memory.reembed()
    except Exception:
        log.exception("re-embedding facts failed; backfill_embeddings adds the missing vectors")


@asynccontextmanager
async def lifespan(_server: MCPServer[MemorizerState]) -> AsyncIterator[MemorizerState]:
    parts = None
    try:
        settings = load_settings(MemorizerSettings)
    except ConfigError as exc:
        log.error("memorizer cannot start: %s", exc)
        state = MemorizerState(None, f"The Memorizer cannot work until its configuration is fixed: {exc}")
    else:
        try:
            parts = await anyio.to_thread.run_sync(build_parts, settings)
        except Exception as exc:
            log.exception("memory database cannot be opened")
            state = MemorizerState(
                None,
                f"The memory database {settings.db_path} cannot be opened ({type(exc).__name__}: {exc}). "
                "Check MEMORY_DB_PATH and the file's permissions.",
            )
        else:
            embedder = parts.memory.embedder
            log.info(
                "memorizer ready",
                extra={"db": str(settings.db_path), "embedder": embedder.key if embedder else None},
            )
            state = MemorizerState(parts)
    try:
        if parts is None:
            yield state
        else:
            async with background_task(_reembed(parts.memory), "memorizer-reembed"):
                yield state
    finally:
        if parts is not None:
            if parts.memory.embedder is not None:
                await parts.memory.embedder.aclose()
            if parts.memory.values is not None and parts.memory.values is not parts.memory.embedder:
                await parts.memory.values.aclose()
            parts.memory.close()


server: EnvelopeServer[MemorizerState] = EnvelopeServer(
    "memory",
    instructions=(
        "Long-term memory about the user: facts, past conversations, the profile, skills (scheduled behaviours), "
        "contacts and projects. Use retrieve_memories first when you need context."
    ),
    lifespan=lifespan,
)

MemorizerContext = Context[MemorizerState, Any]


def _given(**values: Any) -> dict[str, Any]:
    """The optional arguments the caller actually set (None means "leave as is")."""
    return {key: value for key, value in values.items() if value is not None}


Agent = Annotated[AgentId, Field(description="Which agent's memory to use. Each agent sees only its own records.")]
Category = Annotated[
    FactCategory,
    Field(
        description="preference (likes, settings), background (who the user is), pattern (habits), "
        "project (things being worked on), contact (people), decision (choices made)"
    ),
]
Limit50 = Annotated[int, Field(ge=1, le=1000, description="Most results to return.")]
ProvenanceParam = Annotated[
    Provenance,
    Field(
        description="Who vouches for this: owner (the owner said it), system (the owner's configuration), "
        "untrusted (derived from mail, pages, files, tools or other people). Default untrusted: it can never "
        "supersede a more trusted fact."
    ),
]
SourceTypeParam = Annotated[
    FactSource,
    Field(description="What the fact was taken from: owner, conversation, email, web, file, tool, import, unknown."),
]
IncludeHistory = Annotated[
    bool,
    Field(
        description="Also return facts that are no longer current (with valid_until and superseded_by), after current ones."
    ),
]
Text = Annotated[str, Field(description="Text (up to 1 MB).")]
OptionalText = Annotated[str | None, Field(description="Optional text (up to 1 MB).")]
FactId = Annotated[RecordId, Field(description="Id of the fact (see list_facts).")]
# update_contact and update_project change these the same way
NewName = Annotated[str | None, Field(max_length=500, description="New name.")]
NewCompany = Annotated[str | None, Field(max_length=500, description="New company.")]


def _marked(result: dict[str, Any]) -> dict[str, Any] | Untrusted:
    """Facts written from untrusted content stay untrusted when read back: never the owner's word in a later turn."""
    return Untrusted(result) if holds_untrusted(result.get("facts")) else result


# -- facts -----------------------------------------------------------------------------------------------------


@envelope_tool(server, annotations=LOCAL_WRITE)
async def store_fact(
    ctx: MemorizerContext,
    fact: Annotated[
        str,
        Field(
            min_length=1,
            description='A short, self-contained statement, e.g. "Prefers dark mode", "Lives in Lisbon" (≤ 1 MB).',
        ),
    ],
    category: Category,
    agent_id: Agent = DEFAULT_AGENT_ID,
    source: Annotated[
        str | None, Field(description="Optional reference to where it came from: a conversation id, URL, file path.")
    ] = None,
    source_type: SourceTypeParam = DEFAULT_SOURCE_TYPE,
    provenance: ProvenanceParam = DEFAULT_PROVENANCE,
) -> dict[str, Any]:
    """Store one fact about the user; a fact that updates a stored one replaces it (the old one is kept as history).

    decision says what happened: added, merged (the same fact was already known), superseded (it replaces the
    facts listed), or kept_as_history (a more trusted fact says otherwise). Secrets are refused.

    For requests like: remember that..., keep in mind..., note that my sister's birthday is in March.
    """
    return await server.service(ctx).memory.store_fact(agent_id, fact, category, source, source_type, provenance)


@envelope_tool(server, annotations=READ_ONLY)
def list_facts(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    category: Annotated[FactCategory | None, Field(description="Only this category.")] = None,
    limit: Limit50 = 50,
    include_history: IncludeHistory = False,
) -> dict[str, Any] | Untrusted:
    """List current facts, newest first, with total_count; use retrieve_memories to search by meaning.

    For requests like: list everything you've saved about me, what facts do you have.
    """
    return _marked(server.service(ctx).memory.list_facts(agent_id, category, limit, include_history))


@envelope_tool(server, annotations=READ_ONLY)
def get_fact(ctx: MemorizerContext, fact_id: FactId, agent_id: Agent = DEFAULT_AGENT_ID) -> dict[str, Any] | Untrusted:
    """Get one fact by id (the hub's own use: it shows the owner what a change would touch)."""
    found = server.service(ctx).memory.get_fact(agent_id, fact_id)
    return Untrusted(found) if holds_untrusted([found["fact"]]) else found


@envelope_tool(server, annotations=READ_ONLY)
async def compare_request(
    ctx: MemorizerContext,
    request: Annotated[
        list[Annotated[str, Field(max_length=4_000)]],
        Field(min_length=1, max_length=8, description="What the owner asked, one text per message."),
    ],
    record: Annotated[str, Field(min_length=1, max_length=4_000, description="What the record says it is.")],
    agent_id: Agent = DEFAULT_AGENT_ID,
) -> dict[str, Any]:
    """Whether a request is about a record, by meaning (the hub's own use, for a change its words did not name).

    It reads no records: `agent_id` is here for the shape every tool of this server shares."""
    return await naming.about(server.service(ctx).memory.values, request, record)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
async def delete_fact(
    ctx: MemorizerContext,
    fact_id: FactId,
    agent_id: Agent = DEFAULT_AGENT_ID,
) -> dict[str, Any]:
    """Delete one fact by id for good, with its history (the older versions it replaced).

    For requests like: forget that, stop remembering where I work, that's no longer true.
    """
    return await server.service(ctx).memory.delete_fact(agent_id, fact_id)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
async def update_fact(
    ctx: MemorizerContext,
    fact_id: FactId,
    fact: Annotated[str, Field(min_length=1, description="The new text that replaces the old one.")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    category: Annotated[FactCategory | None, Field(description="New category (unchanged if omitted).")] = None,
    provenance: ProvenanceParam = DEFAULT_PROVENANCE,
) -> dict[str, Any]:
    """Correct a fact's wording in place (no history kept); to record a change, store the new fact instead.

    For requests like: correct what you know about me, that's spelled differently, fix that fact.
    """
    return await server.service(ctx).memory.update_fact(agent_id, fact_id, fact, category, provenance)


# -- conversations -----------------------------------------------------------------------------------------------


@envelope_tool(server, annotations=LOCAL_WRITE)
async def store_conversation(
    ctx: MemorizerContext,
    user_message: Annotated[str, Field(min_length=1, description="What the user said.")],
    agent_response: Annotated[str, Field(min_length=1, description="What the assistant answered.")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    session_id: Annotated[str | None, Field(description="Optional session or chat id.")] = None,
    tags: Annotated[list[str] | None, Field(max_length=50, description="Optional labels.")] = None,
    provenance: Annotated[
        Provenance,
        Field(description="Provenance of the facts extracted from this exchange (default untrusted)."),
    ] = DEFAULT_PROVENANCE,
) -> dict[str, Any]:
    """Log one exchange and extract facts about the user from it with the utility model.

    The exchange is always stored (secrets redacted); `extraction` says whether facts were extracted or why not.
    """
    return await server.service(ctx).learning.store_conversation(
        agent_id, user_message, agent_response, session_id, tags, provenance
    )


@envelope_tool(server, annotations=READ_ONLY)
def search_conversations(
    ctx: MemorizerContext,
    query: Annotated[str, Field(min_length=1, description="Text to find in past exchanges (substring).")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    limit: Annotated[int, Field(ge=1, le=500, description="Most results to return.")] = 10,
    date_from: Annotated[str | None, Field(description="Only from this date (YYYY-MM-DD or ISO date-time).")] = None,
    date_to: Annotated[str | None, Field(description="Only up to this date, inclusive (YYYY-MM-DD).")] = None,
) -> dict[str, Any]:
    """Search past conversations by text, optionally between dates, newest first.

    For requests like: what did we talk about last week, when did I mention the kitchen.
    """
    return server.service(ctx).records.search_conversations(agent_id, query, limit, date_from, date_to)


# -- profile -------------------------------------------------------------------------------------------------------


@envelope_tool(server, annotations=READ_ONLY)
def get_profile(ctx: MemorizerContext, agent_id: Agent = DEFAULT_AGENT_ID) -> dict[str, Any]:
    """Get the structured profile of the user (an empty skeleton until something is set)."""
    return server.service(ctx).records.get_profile(agent_id)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def update_profile(
    ctx: MemorizerContext,
    updates: Annotated[
        dict[str, Any],
        Field(description='Fields to set, in dot notation: {"user_info.name": "Ana", "preferences.tools[0]": "vim"}.'),
    ],
    agent_id: Agent = DEFAULT_AGENT_ID,
    reason: Annotated[str | None, Field(description="Why it changed (kept with the previous version).")] = None,
) -> dict[str, Any]:
    """Update profile fields by dot-notation path; the previous version is kept in the profile history."""
    return server.service(ctx).records.update_profile(agent_id, updates, reason)


# -- search and stats ----------------------------------------------------------------------------------------------


@envelope_tool(server, annotations=READ_ONLY)
async def retrieve_memories(
    ctx: MemorizerContext,
    query: Annotated[str, Field(min_length=1, description="What to look for, in words.")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    limit: Annotated[int, Field(ge=1, le=100, description="Most facts and most conversations to return.")] = 5,
    include_conversations: Annotated[bool, Field(description="Also search past conversations.")] = True,
    include_history: IncludeHistory = False,
) -> dict[str, Any] | Untrusted:
    """Search current facts (by meaning and keywords) and past conversations: the main memory lookup.

    Use it when the user asks "do you remember..." or before answering something that depends on them.

    For requests like: what do you know about my car, do you remember what I said about...
    """
    return _marked(
        await server.service(ctx).memory.retrieve(agent_id, query, limit, include_conversations, include_history)
    )


@envelope_tool(server, annotations=READ_ONLY)
def get_memory_stats(ctx: MemorizerContext, agent_id: Agent = DEFAULT_AGENT_ID) -> dict[str, Any]:
    """Show counts of facts and conversations, categories, database size and search capabilities."""
    return server.service(ctx).memory.stats(agent_id)


# -- export and import ---------------------------------------------------------------------------------------------


@envelope_tool(server, annotations=LOCAL_WRITE)
async def export_memory(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    format: Annotated[ExportFormat, Field(description="markdown (readable) or json (re-importable).")] = "markdown",
    include_conversations: Annotated[bool, Field(description="Also export recent conversations.")] = True,
    output_dir: Annotated[
        str | None,
        Field(
            description="Folder below the export folder (relative) or an absolute folder in the export folder or "
            "the workspace; default '<agent_id>' in the export folder."
        ),
    ] = None,
) -> dict[str, Any]:
    """Export the profile, facts and recent conversations to readable files.

    For requests like: export everything you remember to a file.
    """
    return await server.service(ctx).exchange.export(agent_id, format, include_conversations, output_dir)


@envelope_tool(server, annotations=LOCAL_WRITE)
async def import_memory(
    ctx: MemorizerContext,
    file_path: Annotated[
        str,
        Field(
            min_length=1,
            description="A profile.json, a facts JSON array (e.g. annabelle/facts/all-facts.json) or a "
            "facts/<category>.md file: relative to the export folder, or absolute within it or the workspace.",
        ),
    ],
    agent_id: Agent = DEFAULT_AGENT_ID,
    provenance: Annotated[
        Provenance,
        Field(description="Provenance of the imported facts (default untrusted); a file cannot claim more."),
    ] = DEFAULT_PROVENANCE,
) -> dict[str, Any]:
    """Import a user-edited memory file: the profile (replaced, old version kept) or facts (added)."""
    return await server.service(ctx).exchange.import_file(agent_id, file_path, provenance)


# -- skills --------------------------------------------------------------------------------------------------------


class ExecutionStep(BaseModel):
    """One tool call of a direct (no-LLM) skill."""

    model_config = ConfigDict(extra="ignore")

    id: Annotated[str, Field(min_length=1, max_length=200, description="Step id, e.g. 'step1'.")]
    toolName: Annotated[str, Field(min_length=1, max_length=200, description="Exact routed tool name.")]
    parameters: Annotated[dict[str, Any] | None, Field(description="Static arguments for the tool.")] = None
    dependsOn: Annotated[list[str] | None, Field(description="Ids of steps that must run first.")] = None


# One sentence (the model sees only the first): the one-time forms first, because the 1.5B model turned "remind
# me in 3 hours" into a daily cron schedule when the cron form led the list; the plain fields (every, time, day,
# in_days; the hub turns them into cron or a date-time, orchestrator/skills/plain_timing.py) instead of cron, which
# is still accepted but not shown: the same model wrote "0 8:15 * * 1-5" for weekdays at 8.15 and "0 9 * * 1" for
# the first of the month. Placeholders (N, HH:MM, DAYS), not sample values: the same model copied the sample
# "weekday" for "every Saturday" and for "in an hour and a half", and a copied sample is a valid, wrong reminder,
# where a copied placeholder is refused with a sentence saying what to send.
TriggerConfig = Annotated[
    dict[str, Any] | None,
    Field(
        description='When it runs, once: {"in_minutes": N}, {"in_days": N, "time": "HH:MM"} or {"at": '
        '"YYYY-MM-DDTHH:MM"}; repeating: {"every": DAYS, "time": "HH:MM"} '
        f'({TIMING_DAYS}) or {{"interval_minutes": N}}.'
    ),
]
# The first sentence is what a model is shown: it says when to leave the list out, because a model that fills it
# by guess names tools that do not exist, or locks a reminder out of the tools its run needs.
RequiredTools = Annotated[
    list[str] | None,
    advanced(
        max_length=100,
        description="Only to restrict the skill to some tools (usually left out: it may then use any tool). "
        "Exact tool names, from get_tool_catalog.",
    ),
]
ExecutionPlan = Annotated[
    list[ExecutionStep] | None,
    Field(max_length=50, description="For simple skills: tool calls run directly, with no LLM."),
]
SkillId = Annotated[RecordId, Field(description="Id of the skill (see list_skills).")]
SkillTokens = Annotated[
    int | None,
    advanced(
        ge=0, le=MAX_SKILL_TOKENS, description="Most tokens one run may spend (its model calls stop before; 0 = none)."
    ),
]
SkillDailyTokens = Annotated[
    int | None,
    advanced(ge=0, le=MAX_SKILL_TOKENS, description="Most tokens all its runs may spend per day (0 = no limit)."),
]


def _plan(plan: list[ExecutionStep] | None) -> list[dict[str, Any]] | None:
    return None if plan is None else [step.model_dump(exclude_none=True) for step in plan]


@envelope_tool(server, annotations=LOCAL_WRITE)
def store_skill(
    ctx: MemorizerContext,
    name: Annotated[str, Field(min_length=1, max_length=200, description="A short name of its own, from the request.")],
    trigger_type: Annotated[TriggerType, Field(description="cron (timed: once or repeating), manual or event.")],
    instructions: Annotated[str, Field(min_length=1, description="What to do, step by step, in plain language.")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    description: Annotated[str | None, Field(description="One sentence on what it does.")] = None,
    trigger_config: TriggerConfig = None,
    required_tools: RequiredTools = None,
    execution_plan: ExecutionPlan = None,
    max_steps: Annotated[int, advanced(ge=1, le=100, description="Most LLM steps per run.")] = 10,
    notify_on_completion: Annotated[bool, Field(description="Send a notification when it finishes.")] = True,
    notify_interval_minutes: Annotated[
        int,
        advanced(ge=0, le=525_600, description="Least minutes between notifications (0 = global default)."),
    ] = 0,
    enabled: Annotated[bool, Field(description="Whether it runs.")] = True,
    max_tokens_per_run: SkillTokens = None,
    daily_tokens: SkillDailyTokens = None,
) -> dict[str, Any]:
    """Create a skill: a reminder, a recurring task or a routine the assistant runs by itself.

    It runs on a schedule (trigger_type cron with trigger_config) or on demand. A skill name is unique per agent:
    storing the same skill again returns its id with already_existed; another skill under a taken name is refused.

    For requests like: remind me every Monday at 9 to send the report, remind me tomorrow at noon, send me a
    briefing every morning.
    """
    fields = {
        "name": name,
        "description": description,
        "trigger_type": trigger_type,
        "trigger_config": trigger_config,
        "instructions": instructions,
        "required_tools": required_tools,
        "execution_plan": _plan(execution_plan),
        "max_steps": max_steps,
        "notify_on_completion": notify_on_completion,
        "notify_interval_minutes": notify_interval_minutes,
        "enabled": enabled,
        "max_tokens_per_run": max_tokens_per_run,
        "daily_tokens": daily_tokens,
    }
    return server.service(ctx).records.store_skill(agent_id, fields)


@envelope_tool(server, annotations=READ_ONLY)
def list_skills(
    ctx: MemorizerContext,
    agent_id: Annotated[
        str,
        Field(
            pattern=r"^(\*|[A-Za-z0-9][A-Za-z0-9_-]{0,63})$",
            description="Which agent's skills; '*' lists every agent's (for the scheduler).",
        ),
    ] = DEFAULT_AGENT_ID,
    enabled: Annotated[bool | None, Field(description="Only enabled (true) or disabled (false) skills.")] = None,
    trigger_type: Annotated[TriggerType | None, Field(description="Only this trigger type.")] = None,
    detail: Annotated[
        Literal["summary", "full"],
        Field(description="'summary': id, name, description, schedule, enabled, last run; 'full': every field."),
    ] = "summary",
) -> dict[str, Any]:
    """List skills (reminders, scheduled tasks, routines) with their schedules and last run, newest first.

    For requests like: what reminders do I have, what do you run for me on a schedule. get_skill shows one
    skill's instructions and plan.
    """
    return server.service(ctx).records.list_skills(agent_id, enabled, trigger_type, full=detail == "full")


@envelope_tool(server, annotations=READ_ONLY)
def get_skill(ctx: MemorizerContext, skill_id: SkillId, agent_id: Agent = DEFAULT_AGENT_ID) -> dict[str, Any]:
    """Get one skill by id."""
    return server.service(ctx).records.get_skill(agent_id, skill_id)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def update_skill(
    ctx: MemorizerContext,
    skill_id: SkillId,
    agent_id: Agent = DEFAULT_AGENT_ID,
    name: Annotated[str | None, Field(max_length=200, description="New name.")] = None,
    description: Annotated[str | None, Field(description="New description.")] = None,
    enabled: Annotated[bool | None, Field(description="Enable or disable.")] = None,
    trigger_type: Annotated[TriggerType | None, Field(description="New trigger type.")] = None,
    trigger_config: TriggerConfig = None,
    instructions: Annotated[str | None, Field(description="New instructions.")] = None,
    required_tools: RequiredTools = None,
    execution_plan: ExecutionPlan = None,
    max_steps: Annotated[int | None, advanced(ge=1, le=100, description="New most LLM steps per run.")] = None,
    notify_on_completion: Annotated[bool | None, Field(description="New notification setting.")] = None,
    notify_interval_minutes: Annotated[
        int | None,
        advanced(ge=0, le=525_600, description="Least minutes between notifications (0 = global default)."),
    ] = None,
    last_run_at: Annotated[str | None, advanced(description="When it last ran (ISO date-time).")] = None,
    last_run_status: Annotated[str | None, advanced(max_length=100, description="e.g. success, error.")] = None,
    last_run_summary: Annotated[str | None, advanced(description="What the last run did.")] = None,
    last_notified_at: Annotated[str | None, advanced(description="When a notification was last sent (ISO).")] = None,
    consecutive_failures: Annotated[
        int | None,
        advanced(ge=0, le=1000, description="Failed runs in a row (the scheduler's backoff)."),
    ] = None,
    backoff_until: Annotated[str | None, advanced(description="No run before this moment (ISO date-time).")] = None,
    last_error: Annotated[str | None, advanced(description="The last failure's error message.")] = None,
    max_tokens_per_run: SkillTokens = None,
    daily_tokens: SkillDailyTokens = None,
) -> dict[str, Any]:
    """Change a skill (a reminder, scheduled task or routine): on/off, schedule, instructions, or a run's record.

    Omitted fields stay as they are.

    For requests like: move my reminder to 8, pause the morning briefing, run it on Fridays instead.
    """
    changes = _given(
        name=name,
        description=description,
        enabled=enabled,
        trigger_type=trigger_type,
        trigger_config=trigger_config,
        instructions=instructions,
        required_tools=required_tools,
        execution_plan=_plan(execution_plan),
        max_steps=max_steps,
        notify_on_completion=notify_on_completion,
        notify_interval_minutes=notify_interval_minutes,
        last_run_at=last_run_at,
        last_run_status=last_run_status,
        last_run_summary=last_run_summary,
        last_notified_at=last_notified_at,
        consecutive_failures=consecutive_failures,
        backoff_until=backoff_until,
        last_error=last_error,
        max_tokens_per_run=max_tokens_per_run,
        daily_tokens=daily_tokens,
    )
    return server.service(ctx).records.update_skill(agent_id, skill_id, changes)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def delete_skill(ctx: MemorizerContext, skill_id: SkillId, agent_id: Agent = DEFAULT_AGENT_ID) -> dict[str, Any]:
    """Delete a skill (a reminder, scheduled task or routine) by id.

    For requests like: cancel that reminder, stop the daily digest.
    """
    return server.service(ctx).records.delete_skill(agent_id, skill_id)


# -- maintenance (LLM and embeddings) ------------------------------------------------------------------------------


@envelope_tool(server, annotations=LOCAL_WRITE)
async def backfill_extract_facts(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    batch_size: Annotated[int, Field(ge=1, le=50, description="Conversations to process in this call.")] = 10,
) -> dict[str, Any]:
    """Extract facts from stored conversations never processed yet; call again until remaining is 0."""
    return await server.service(ctx).learning.backfill_extract_facts(agent_id, batch_size)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
async def synthesize_facts(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    category: Annotated[FactCategory | None, Field(description="Only this category (default: all).")] = None,
    max_facts_per_category: Annotated[
        int, Field(ge=1, le=200, description="Oldest facts per category to review.")
    ] = 100,
) -> dict[str, Any]:
    """Tidy facts with the utility model: merge duplicates, fix contradictions, drop stale entries."""
    return await server.service(ctx).learning.synthesize_facts(agent_id, category, max_facts_per_category)


@envelope_tool(server, annotations=LOCAL_WRITE)
async def backfill_embeddings(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    batch_size: Annotated[int, Field(ge=1, le=200, description="Facts to embed in this call.")] = 50,
) -> dict[str, Any]:
    """Add vectors to facts that lack one for the current embedder; call again until remaining is 0."""
    return await server.service(ctx).memory.backfill_embeddings(agent_id, batch_size)


# -- contacts ------------------------------------------------------------------------------------------------------

ContactId = Annotated[RecordId, Field(description="Id of the contact (see list_contacts).")]


@envelope_tool(server, annotations=LOCAL_WRITE)
def create_contact(
    ctx: MemorizerContext,
    name: Annotated[str, Field(min_length=1, max_length=500, description="Full name.")],
    email: Annotated[str, Field(min_length=3, max_length=320, description="E-mail address (unique per agent).")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    company: Annotated[str | None, Field(max_length=500, description="Company or organisation.")] = None,
    role: Annotated[str | None, Field(max_length=500, description="Role or title.")] = None,
    type: Annotated[ContactType, Field(description="work, personal or ignored.")] = "work",
    notes: OptionalText = None,
) -> dict[str, Any]:
    """Add a person the user deals with. Fails if a contact with that e-mail already exists.

    For requests like: add Rui to my contacts, save my plumber's number.
    """
    fields = {"name": name, "email": email, "company": company, "role": role, "type": type, "notes": notes}
    return server.service(ctx).records.create_contact(agent_id, fields)


@envelope_tool(server, annotations=READ_ONLY)
def list_contacts(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    email: Annotated[str | None, Field(description="Exact e-mail address (case-insensitive).")] = None,
    company: Annotated[str | None, Field(description="Exact company.")] = None,
    type: Annotated[ContactType | None, Field(description="Only this type.")] = None,
    name: Annotated[str | None, Field(description="Part of the name.")] = None,
    limit: Limit50 = 50,
) -> dict[str, Any]:
    """List contacts, optionally filtered by e-mail, company, type or part of the name.

    For requests like: what's Jonas's email address, who do I know at Siemens; look a person up before mailing them.
    """
    filters = {"email": email, "company": company, "type": type, "name": name}
    return server.service(ctx).records.list_contacts(agent_id, filters, limit)


@envelope_tool(server, annotations=READ_ONLY)
def get_contact(ctx: MemorizerContext, contact_id: ContactId, agent_id: Agent = DEFAULT_AGENT_ID) -> dict[str, Any]:
    """Get one contact by id (the hub's own use: it shows the owner what a change would touch)."""
    return server.service(ctx).records.get_contact(agent_id, contact_id)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def update_contact(
    ctx: MemorizerContext,
    contact_id: ContactId,
    agent_id: Agent = DEFAULT_AGENT_ID,
    name: NewName = None,
    email: Annotated[str | None, Field(max_length=320, description="New e-mail address.")] = None,
    company: NewCompany = None,
    role: Annotated[str | None, Field(max_length=500, description="New role.")] = None,
    type: Annotated[ContactType | None, Field(description="New type.")] = None,
    notes: OptionalText = None,
) -> dict[str, Any]:
    """Change a contact's details. Omitted fields stay as they are.

    For requests like: Anna has a new phone number, change Tom's e-mail.
    """
    changes = _given(name=name, email=email, company=company, role=role, type=type, notes=notes)
    return server.service(ctx).records.update_contact(agent_id, contact_id, changes)


# -- projects ------------------------------------------------------------------------------------------------------

ProjectId = Annotated[RecordId, Field(description="Id of the project (see list_projects).")]
Participants = Annotated[
    list[RecordId] | None, Field(max_length=200, description="Contact ids of the people involved.")
]


@envelope_tool(server, annotations=LOCAL_WRITE)
def create_project(
    ctx: MemorizerContext,
    name: Annotated[str, Field(min_length=1, max_length=500, description="Project name (unique per agent).")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    status: Annotated[ProjectStatus, Field(description="active, paused or completed.")] = "active",
    type: Annotated[ProjectType, Field(description="work or personal.")] = "work",
    description: OptionalText = None,
    primary_contact_id: Annotated[RecordId | None, Field(description="Contact id of the main person.")] = None,
    participants: Participants = None,
    company: Annotated[str | None, Field(max_length=500, description="Company it is for.")] = None,
    priority: Annotated[ProjectPriority | None, Field(description="high, medium or low.")] = None,
) -> dict[str, Any]:
    """Record a project the user works on. Fails if the agent already has a project of that name.

    For requests like: start a project for the garden shed, track my thesis as a project.
    """
    fields = {
        "name": name,
        "status": status,
        "type": type,
        "description": description,
        "primary_contact_id": primary_contact_id,
        "participants": participants,
        "company": company,
        "priority": priority,
    }
    return server.service(ctx).records.create_project(agent_id, fields)


@envelope_tool(server, annotations=READ_ONLY)
def list_projects(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    status: Annotated[ProjectStatus | None, Field(description="Only this status.")] = None,
    type: Annotated[ProjectType | None, Field(description="Only this type.")] = None,
    company: Annotated[str | None, Field(description="Only this company.")] = None,
    contact_id: Annotated[RecordId | None, Field(description="Only projects this contact leads or joins.")] = None,
    priority: Annotated[ProjectPriority | None, Field(description="Only this priority.")] = None,
    limit: Limit50 = 50,
) -> dict[str, Any]:
    """List projects, optionally filtered, most recently updated first.

    For requests like: which projects am I working on.
    """
    filters = {"status": status, "type": type, "company": company, "contact_id": contact_id, "priority": priority}
    return server.service(ctx).records.list_projects(agent_id, filters, limit)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def update_project(
    ctx: MemorizerContext,
    project_id: ProjectId,
    agent_id: Agent = DEFAULT_AGENT_ID,
    name: NewName = None,
    status: Annotated[ProjectStatus | None, Field(description="New status.")] = None,
    type: Annotated[ProjectType | None, Field(description="New type.")] = None,
    description: OptionalText = None,
    primary_contact_id: Annotated[
        int | None, Field(ge=0, le=2**62, description="New main contact's id; 0 removes the main contact.")
    ] = None,
    participants: Participants = None,
    company: NewCompany = None,
    priority: Annotated[
        ProjectPriority | Literal["none"] | None,
        Field(description="New priority; 'none' removes it."),
    ] = None,
) -> dict[str, Any]:
    """Change a project. Omitted fields stay as they are."""
    changes = _given(
        name=name,
        status=status,
        type=type,
        description=description,
        primary_contact_id=primary_contact_id,
        participants=participants,
        company=company,
        priority=priority,
    )
    return server.service(ctx).records.update_project(agent_id, project_id, changes)


@envelope_tool(server, annotations=LOCAL_WRITE)
def link_project_source(
    ctx: MemorizerContext,
    project_id: ProjectId,
    mcp_name: Annotated[str, Field(min_length=1, max_length=100, description='The external MCP, e.g. "github".')],
    agent_id: Agent = DEFAULT_AGENT_ID,
    external_project_id: Annotated[str | None, Field(description="The project's id in that service.")] = None,
    external_project_name: Annotated[str | None, Field(description="The project's name in that service.")] = None,
    source_type: Annotated[SourceType, Field(description="manual or auto (found by discovery).")] = "manual",
) -> dict[str, Any]:
    """Link a project to its counterpart in an external MCP (updates the link if it exists)."""
    fields = {
        "mcp_name": mcp_name,
        "external_project_id": external_project_id,
        "external_project_name": external_project_name,
        "source_type": source_type,
    }
    return server.service(ctx).records.link_project_source(agent_id, project_id, fields)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def unlink_project_source(
    ctx: MemorizerContext,
    project_id: ProjectId,
    mcp_name: Annotated[str, Field(min_length=1, max_length=100, description="The external MCP to unlink.")],
    agent_id: Agent = DEFAULT_AGENT_ID,
) -> dict[str, Any]:
    """Remove the link between a project and an external MCP."""
    return server.service(ctx).records.unlink_project_source(agent_id, project_id, mcp_name)


@envelope_tool(server, annotations=READ_ONLY)
def list_project_sources(
    ctx: MemorizerContext,
    agent_id: Agent = DEFAULT_AGENT_ID,
    project_id: Annotated[RecordId | None, Field(description="Only this project's links.")] = None,
    mcp_name: Annotated[str | None, Field(description="Only links to this MCP.")] = None,
    limit: Limit50 = 50,
) -> dict[str, Any]:
    """List project links to external MCPs, with the project names."""
    return server.service(ctx).records.list_project_sources(agent_id, project_id, mcp_name, limit)


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
def update_project_source_status(
    ctx: MemorizerContext,
    project_source_id: Annotated[RecordId, Field(description="Id of the link (see list_project_sources).")],
    last_status: Annotated[SourceStatus, Field(description="ok, warning, error or unknown.")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    last_checked_at: Annotated[str | None, Field(description="When it was checked (ISO; default now).")] = None,
) -> dict[str, Any]:
    """Record the health of a project's external source after checking it."""
    return server.service(ctx).records.update_project_source_status(
        agent_id, project_source_id, last_status, last_checked_at
    )


# -- timeline ------------------------------------------------------------------------------------------------------


@envelope_tool(server, annotations=READ_ONLY)
def query_timeline(
    ctx: MemorizerContext,
    date_from: Annotated[str, Field(min_length=1, description="Start (YYYY-MM-DD or ISO date-time).")],
    agent_id: Agent = DEFAULT_AGENT_ID,
    date_to: Annotated[str | None, Field(description="End, inclusive (YYYY-MM-DD or ISO); default now.")] = None,
    categories: Annotated[list[TimelineSource] | None, Field(description="Only these sources (default: all).")] = None,
    query: Annotated[str | None, Field(description="Only events mentioning this text.")] = None,
    limit: Annotated[int, Field(ge=1, le=500, description="Most events to return.")] = 50,
) -> dict[str, Any]:
    """What happened in a time range: facts learned, conversations, profile changes, skills, contacts, projects.

    Resolve phrases like "last week" into dates before calling.

    For requests like: what happened last week, what changed on the project since Monday.
    """
    return server.service(ctx).records.query_timeline(agent_id, date_from, date_to, categories, query, limit)
