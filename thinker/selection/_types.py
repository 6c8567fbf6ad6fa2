"""The values tool selection takes and returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

CORE_TOOLS: tuple[str, ...] = ("browse_tools", "load_tools")
"""Sent with every message when they exist: the meta-tools, the model's way to any tool the selection missed
(`browse_tools` lists the categories, `load_tools` adds one for the rest of the turn). Everything else earns its
place on evidence, the memory essentials and the hub's status included: the memories relevant to a message are
already in the system prompt, facts are also extracted after a conversation goes quiet, and a message asks for
a memory search, a fact to keep or the status in words ("what do you know about...", "remember that...")."""

Method = Literal["hybrid", "regex", "embedding", "required"]


@dataclass(frozen=True)
class ToolInfo:
    """One tool the agent could be offered, as the hub lists it.

    `mcp` is the prefix of a routed tool (`gmail` for `gmail_send_email`), None for the hub's own tools and the
    Thinker's local ones. A description may start with the hub's `[Label | Group]` tag; it is read without it.
    `stands_for` names the tool this one calls (an essential's hub tool: `store_fact` → `memory_store_fact`):
    the two do the same thing, so the selection ranks them as one choice and offers this one.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    mcp: str | None = None
    stands_for: str | None = None


@dataclass(frozen=True)
class McpInfo:
    """What the hub knows about one MCP (its manifest's label, toolGroup and keywords)."""

    name: str
    label: str = ""
    tool_group: str = ""
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Playbook:
    """Workflow guidance matched by keyword; its `required_tools` join the selection when it matches."""

    name: str
    keywords: tuple[str, ...]
    priority: int = 10
    required_tools: tuple[str, ...] = ()
    instructions: str = ""


@dataclass(frozen=True)
class SelectionConfig:
    """Every knob of tool selection. The defaults are the shipped pipeline (see docs/tool-selection.md).

    Scores are sums: `embedding_weight` × cosine(message, tool) + `mcp_weight` × cosine(message, the tool's MCP)
    + `family_weight` × the mean of the best `family_top` cosines of the tool's MCP's tools + `lexical_weight` × BM25 over words + `route_weight` × the strongest manifest-keyword route to the tool's
    MCP. Without embeddings the English fallback also reads the built-in routes and the concept lexicon.
    """

    core_tools: tuple[str, ...] = CORE_TOOLS
    max_tools: int = 10
    """Hard cap on everything sent, core included (`TOOL_SELECTOR_MAX_TOOLS`)."""
    top_k: int = 8
    """At most this many tools from the message's ranking (`TOOL_SELECTOR_TOP_K`)."""
    min_tools: int = 7
    """At least this many from the ranking when any tool clears `threshold` (`TOOL_SELECTOR_MIN_TOOLS`)."""
    threshold: float = 0.05
    """A tool scoring below this is never picked from the ranking (`TOOL_SELECTOR_THRESHOLD`)."""
    score_gap: float = 0.05
    """Beyond `min_tools`, keep tools scoring within this distance of the best one."""
    per_server: int = 5
    """At most this many tools of one MCP from the ranking (0: no limit), so a wrong first guess at the MCP
    cannot fill every slot with its siblings; clauses, follow-ups and lookup companions may add more."""
    family_weight: float = 0.3
    """Weight of the family evidence: the mean of the best `family_top` cosines among the tool's MCP's tools."""
    family_top: int = 3
    embedding_weight: float = 1.0
    lexical_weight: float = 0.1
    route_weight: float = 1.0
    typed_weight: float = 0.3
    """Added to the tools that take a typed value the text contains: a file name → a required path, a web address
    → a required URL, an e-mail address → a recipient (`_typed`; no language read)."""
    clause_top: int = 2
    """Each clause of a multi-part message ("delete X and add Y") adds up to this many of its own best tools."""
    clause_gap: float = 0.05
    assistant_context_weight: float = 0.2
    """The last assistant turn's words join the message's score with this weight (answers to its questions)."""
    context_top: int = 1
    """Tools the previous exchange points at (its user turn, half its assistant turn) added to a follow-up."""
    context_gap: float = 0.1
    context_weight: float = 0.9
    """A follow-up's cosine is the larger of its own and this times that of (previous user turn + message)."""
    mcp_weight: float = 0.3
    """Weight of the cosine between the message and each tool's MCP (its label, group, keywords and tool names)."""
    second_weight: float = 0.75
    """Weight of the second encoder's opinion (`ToolSelector(second=...)`: multilingual-e5-small beside USE), added
    to each text's cosine after it is put on the first encoder's scale: per message, its cosines centred on their
    mean over the tool texts and scaled to the first's spread (e5's cosines crowd into 0.7-0.9). 0: off."""
    unread_second_weight: float = 1.5
    """The second opinion's weight for a message in a language the first encoder was not trained on (its
    `languages`; Czech, Greek, Vietnamese for USE), where the first encoder's cosines say little. A message
    gets the two weights mixed by the chance that it is in one of those languages (`shared.language`)."""
    lookup_companions: bool = True
    """A tool that needs an id (`event_id`) brings the tool that finds such ids (`list_events`)."""
    typed_readers: bool = True
    """A file name or a web address in the message brings the tool that reads it (`read_file`, `web_fetch`)."""
    sticky_lookback: int = 3
    """Tools called in this many recent turns stay offered (`THINKER_STICKY_TOOLS_LOOKBACK`)."""
    sticky_max: int = 4
    """At most this many sticky tools (`THINKER_STICKY_TOOLS_MAX`)."""
    schema_budget: int = 3500
    """Most characters of tool definitions (as the model is sent them) for everything but the core tools, the
    `reserved_picks` included: they always stay and count toward it; beyond it a tool is dropped, a smaller one
    after it may still fit (0: no budget)."""
    reserved_picks: int = 2
    """The message's own best tools kept before pinned ones: two playbooks matching "Send an email to ann@…"
    pinned seven tools, and the cap then dropped the one the message asked for (`gmail_send_email`)."""


@dataclass(frozen=True)
class Selection:
    """The tools to offer for one message, best first after the core ones.

    `scores` holds the combined score of every tool picked on evidence (core, sticky and playbook tools have
    none); `top_score` is the best cosine similarity between the message and any tool (None without
    embeddings), a measure of how clearly the message asks for a tool. `dropped` lists what the cap cut.
    """

    names: tuple[str, ...]
    method: Method
    scores: Mapping[str, float] = field(default_factory=dict)
    top_score: float | None = None
    dropped: tuple[str, ...] = ()
