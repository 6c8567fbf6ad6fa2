"""The system prompt, built in layers, and where each layer comes from.

Layers, in this order (later layers get the model's freshest attention, so the most specific go last):

1. tool preamble        how to call tools (shipped, `prompts/tool_preamble.md`)
2. persona              the agent's `systemPrompt`, else `$ANNABELLE_HOME/agents/<id>/instructions.md`
                        (created from the shipped default persona on the agent's first start)
3. profile              Memorizer's profile of the user (`memory_get_profile`), when it holds anything
4. date and time        now, in `ANNABELLE_TIMEZONE` (default: the system's zone)
5. current chat         `chat_id`, so tools can answer in the right chat
6. current task         a skill's header (skill runs only)
7. compaction summary   what older, summarised turns of this chat said
8. playbooks            workflow guidance whose keywords match the message
9. available skills     SKILL.md files without keywords: name and description only
10. memories            the top facts for this message (`memory_retrieve_memories`); facts written from
                        untrusted content (in a tainted turn) are shown apart, delimited as data
11. caution             only when the inbound message is flagged as tainted

`render_system_prompt` is pure; `ContextSource` does the I/O (hub calls, skill files) for it.
Playbooks come from Memorizer's `event` skills and from `$ANNABELLE_HOME/skills/*/SKILL.md` files with
keywords; those files are read by `shared.skill_files` (the Orchestrator reads the scheduled ones too).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from shared.agents import AgentDefinition
from shared.skill_files import SkillFile, load_skill_files
from shared.text import shorten
from thinker.catalog import ToolCatalog
from thinker.guards import as_data
from thinker.hub_tools import HubTools
from thinker.known_ids import shown_id
from thinker.prompts import prompt
from thinker.selection import Playbook

log = logging.getLogger(__name__)

Clock = Callable[[], float]

PLAYBOOK_TTL_SECONDS = 300.0
MEMORY_LIMIT = 5
_PROFILE_MAX_CHARS = 2_000
_FACT_MAX_CHARS = 500


# -- persona ---------------------------------------------------------------------------------------------------


def persona_path(home: Path, agent_id: str) -> Path:
    return home / "agents" / agent_id / "instructions.md"


def ensure_persona(home: Path, agent_id: str) -> Path:
    """Create the agent's instructions.md from the shipped default persona unless it exists."""
    path = persona_path(home, agent_id)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(prompt("default_persona") + "\n", encoding="utf-8")
        log.info("persona created from the default", extra={"path": str(path)})
    return path


_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def without_comments(text: str) -> str:
    """Markdown with its `<!-- -->` comments removed: notes for the person editing the file, not the model."""
    return _COMMENT.sub("", text).strip()


def persona_text(agent: AgentDefinition, home: Path) -> str:
    """The agent's `systemPrompt`, else its instructions.md (read every time: the user may edit it)."""
    if agent.systemPrompt.strip():
        return agent.systemPrompt.strip()
    path = persona_path(home, agent.agentId)
    try:
        return without_comments(path.read_text(encoding="utf-8"))
    except OSError:
        # Deleted while running: the default still gives the model a persona.
        return without_comments(prompt("default_persona"))


# -- SKILL.md files and stored playbooks ------------------------------------------------------------------------


def skill_file_playbook(skill: SkillFile) -> Playbook:
    """A SKILL.md file with keywords as a playbook."""
    return Playbook(
        name=skill.name,
        keywords=skill.keywords,
        priority=skill.priority,
        required_tools=skill.required_tools,
        instructions=skill.instructions,
    )


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        # Memorizer and hand-written files both carry "a, b" strings now and then.
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list):
        return tuple(str(item).strip() for item in value if item is not None and str(item).strip())
    return ()


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def playbooks_from_memorizer(skills: Iterable[Mapping[str, Any]]) -> list[Playbook]:
    """Memorizer `event` skills as playbooks; keywords and priority live in their trigger_config."""
    playbooks = []
    for skill in skills:
        if not skill.get("enabled", True):
            continue
        raw_config = skill.get("trigger_config")
        config: Mapping[str, Any] = raw_config if isinstance(raw_config, dict) else {}
        keywords = _strings(config.get("keywords") or skill.get("keywords"))
        instructions = str(skill.get("instructions") or "").strip()
        if not keywords or not instructions:
            continue
        playbooks.append(
            Playbook(
                name=str(skill.get("name") or "playbook"),
                keywords=keywords,
                priority=_int(config.get("priority", skill.get("priority")), 10),
                required_tools=_strings(skill.get("required_tools")),
                instructions=instructions,
            )
        )
    return playbooks


# -- rendering -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkillSummary:
    name: str
    description: str


@dataclass(frozen=True)
class PromptLayers:
    persona: str
    now: datetime
    preamble: str = field(default_factory=lambda: prompt("tool_preamble"))
    profile: Mapping[str, Any] | None = None
    chat_id: str | None = None
    task: str | None = None
    compaction_summary: str | None = None
    playbooks: Sequence[Playbook] = ()
    skills: Sequence[SkillSummary] = ()
    memories: Sequence[str] = ()
    untrusted_memories: Sequence[str] = ()
    """Facts written from content nobody vouches for: shown as data, never as what the user said."""
    tainted: bool = False


def _has_content(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(_has_content(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_content(v) for v in value)
    return value not in (None, "")


def _prune(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _prune(v) for k, v in value.items() if _has_content(v)}
    if isinstance(value, list):
        return [_prune(v) for v in value if _has_content(v)]
    return value


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


COMING_DAYS = 7


def coming_days(now: datetime) -> str:
    """The next week's dates by weekday name, as month-day. Pure.

    "On Saturday": the 1.5B model booked "el sábado" on the Friday it was asked; with the list it booked the
    Saturday, and in a later run the 6th (the list then said `Sat 28 Nov`, a form no tool takes). `Sat 11-28`
    is the date-time's own digits next to today's ISO date for the year: 47 tokens, where full ISO dates cost 68.
    """
    days = [now + timedelta(days=offset) for offset in range(1, COMING_DAYS + 1)]
    listed = ", ".join(f"{day:%a %m-%d}" + (" (tomorrow)" if i == 0 else "") for i, day in enumerate(days))
    return f"Next days: {listed}"


def render_system_prompt(layers: PromptLayers) -> str:
    """The system prompt: the non-empty layers in the documented order, separated by blank lines."""
    parts = [layers.preamble, layers.persona]
    if layers.profile is not None and _has_content(layers.profile):
        profile = json.dumps(_prune(layers.profile), ensure_ascii=False)
        parts.append("## What you know about the user\n" + shorten(profile, _PROFILE_MAX_CHARS))
    zone = layers.now.tzname() or "local time"
    parts.append(
        f"## Current date and time\n{layers.now.strftime('%A %Y-%m-%d %H:%M')} ({zone})\n{coming_days(layers.now)}"
    )
    if layers.chat_id:
        parts.append(f"## Current chat\nchat_id: {layers.chat_id}")
    if layers.task:
        parts.append(f"## Current task\n{layers.task}")
    if layers.compaction_summary:
        parts.append(f"## Previous conversation context\n{layers.compaction_summary.strip()}")
    if layers.playbooks:
        guidance = "\n\n".join(f"### {p.name}\n{p.instructions.strip()}" for p in layers.playbooks)
        parts.append(f"## Workflow guidance\n{guidance}")
    if layers.skills:
        items = "\n".join(f'  <skill name="{_escape(s.name)}">{_escape(s.description)}</skill>' for s in layers.skills)
        parts.append(f"<available_skills>\n{items}\n</available_skills>")
    if layers.memories:
        facts = "\n".join(f"- {shorten(m.strip(), _FACT_MAX_CHARS)}" for m in layers.memories if m.strip())
        if facts:
            parts.append(f"## Relevant memories about the user\n{facts}")
    if layers.untrusted_memories:
        facts = "\n".join(f"- {shorten(m.strip(), _FACT_MAX_CHARS)}" for m in layers.untrusted_memories if m.strip())
        if facts:
            parts.append(f"## Memories written from untrusted content\n{as_data(facts, 'memory')}")
    if layers.tainted:
        parts.append(prompt("tainted_caution"))
    return "\n\n".join(part.strip() for part in parts if part and part.strip())


VOUCHED = ("owner", "system")
"""Provenance classes whose facts are the user's (or their configuration's) word."""


def shown_fact(fact: Mapping[str, Any]) -> str:
    """A retrieved fact as the prompt shows it, its id first ("(fact 12) Lives in Lisbon"): a fact the model was shown
    can be corrected or deleted without a lookup. Without it the 1.5B model, told to correct a birthday it could
    see, guessed fact ids 0, 1, 2 … 7 (each refused as an id from nowhere) and never found it."""
    fact_id = fact.get("id")
    text = str(fact["fact"])
    return f"{shown_id('fact', fact_id)} {text}" if isinstance(fact_id, int) and not isinstance(fact_id, bool) else text


@dataclass(frozen=True)
class Memories:
    facts: tuple[str, ...] = ()
    untrusted: tuple[str, ...] = ()


# -- the I/O side ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlaybookLibrary:
    playbooks: tuple[Playbook, ...] = ()
    """Keyword-triggered guidance: Memorizer event skills and SKILL.md files with keywords."""
    skills: tuple[SkillSummary, ...] = ()
    """SKILL.md files without keywords, shown by name and description only."""


def _data(envelope: Mapping[str, Any]) -> Any:
    return envelope.get("data") if envelope.get("success") else None


class ContextSource:
    """Fetches what the prompt layers need: profile and memories per message, playbooks every 5 minutes."""

    def __init__(
        self,
        hub: HubTools,
        *,
        agent_id: str,
        skills_dir: Path,
        clock: Clock = time.monotonic,
        playbook_ttl: float = PLAYBOOK_TTL_SECONDS,
    ) -> None:
        self.hub = hub
        self.agent_id = agent_id
        self.skills_dir = skills_dir
        self.clock = clock
        self.playbook_ttl = playbook_ttl
        self._library: PlaybookLibrary | None = None
        self._library_at = 0.0

    async def profile(self, catalog: ToolCatalog) -> dict[str, Any] | None:
        if not catalog.has("memory_get_profile"):
            return None
        data = _data(await self.hub.call("memory_get_profile", {"agent_id": self.agent_id}))
        profile = data.get("profile") if isinstance(data, dict) else None
        return profile if isinstance(profile, dict) else None

    async def memories(self, catalog: ToolCatalog, query: str, limit: int = MEMORY_LIMIT) -> Memories:
        """The top facts for `query`, split by who vouches for them (a fact without a provenance the owner or the
        system vouches for is untrusted). Reading an untrusted one taints the turn at the hub."""
        if not query.strip() or not catalog.has("memory_retrieve_memories"):
            return Memories()
        arguments = {"query": query[:1_000], "agent_id": self.agent_id, "limit": limit, "include_conversations": False}
        data = _data(await self.hub.call("memory_retrieve_memories", arguments))
        facts = data.get("facts") if isinstance(data, dict) else None
        if not isinstance(facts, list):
            return Memories()
        found = [f for f in facts[:limit] if isinstance(f, dict) and f.get("fact")]
        return Memories(
            tuple(shown_fact(f) for f in found if f.get("provenance") in VOUCHED),
            tuple(shown_fact(f) for f in found if f.get("provenance") not in VOUCHED),
        )

    def invalidate_playbooks(self) -> None:
        self._library = None

    async def library(self, catalog: ToolCatalog) -> PlaybookLibrary:
        if self._library is not None and self.clock() - self._library_at < self.playbook_ttl:
            return self._library
        stored: list[Playbook] = []
        if catalog.has("memory_list_skills"):
            arguments = {"agent_id": self.agent_id, "trigger_type": "event", "enabled": True, "detail": "full"}
            data = _data(await self.hub.call("memory_list_skills", arguments))
            skills = data.get("skills") if isinstance(data, dict) else None
            stored = playbooks_from_memorizer(s for s in skills or [] if isinstance(s, dict))
        files = await asyncio.to_thread(load_skill_files, self.skills_dir)
        from_files = [skill_file_playbook(f) for f in files if f.keywords]
        summaries = tuple(SkillSummary(f.name, f.description) for f in files if not f.keywords)
        # A file overrides a stored playbook of the same name: the file is what the user edits.
        names = {p.name for p in from_files}
        merged = tuple([p for p in stored if p.name not in names] + from_files)
        self._library = PlaybookLibrary(merged, summaries)
        self._library_at = self.clock()
        return self._library
