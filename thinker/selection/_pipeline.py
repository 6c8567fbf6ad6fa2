"""The selection pipeline as pure functions: scores in, tool names out. No I/O, no embedder.

`build_catalog` prepares the tool list once per refresh (lexical index, groups, routes, lookup companions).
`select_tools` then turns one message, its recent turns and an optional cosine vector (computed by the caller
from the embedder) into a `Selection`:

1. score every candidate tool: embedding + lexical + route + typed-value evidence from the message, plus the
   words of the last assistant turn (a short answer like "at 5pm" gets its meaning from the question it answers);
2. keep the message's best tools: at least `min_tools`, then those within `score_gap` of the best, at most
   `top_k`, none below `threshold`;
3. add each clause's best tools when the message has several parts ("cancel X and book Y");
4. for a follow-up, add the tools the previous exchange points at;
5. add the lookup tool each picked tool needs for its ids (`update_event` needs `list_events`), and the reader
   of each typed value the message names (`read_file` for `stairlift-letter.txt`);
   (throughout, a tool and the one it stands for - an essential and its hub tool - rank as one choice);
6. pin sticky tools (called in recent turns) and playbook tools;
7. cap: core first, then the first `reserved_picks` picks, then pinned, then the other picks; picks in the
   order the message's best (followed by its lookup companion and the readers), each clause's best (followed by
   its lookup companion), then by score.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from thinker.compact import function_definition
from thinker.selection._lexical import LexicalIndex, plain_description, tool_terms
from thinker.selection._routes import BUILTIN_ROUTES, Route, auto_routes, group_members, route_scores
from thinker.selection._text import name_words, stem, words
from thinker.selection._typed import acceptance, readers, typed_evidence, typed_values
from thinker.selection._types import McpInfo, Method, Selection, SelectionConfig, ToolInfo

LOOKUP_TIERS: tuple[tuple[str, ...], ...] = (("search", "find"), ("list",))
"""Verbs of tools that produce ids, most useful first: a search can also list, a listing cannot search."""

PREVIOUS_ASSISTANT_SHARE = 0.5
"""In a follow-up, the previous assistant turn counts half as much as the previous user turn: the request was
the user's, the assistant's question only narrows it."""

_ID_PARAMETER = re.compile(r"(^|_)(id|ids|number)$")
# Words that join two requests in one message (longest first, so that "and then" wins over "and"), in the
# encoders' languages. Splitting too often costs a pick, never a tool: clauses only add. Words that also mean
# "to" or "at" in a language near by (Czech "a" is Italian "a") are left out.
_CONNECTIVES = (
    r"(?:and then|and also|after that|then|also|plus|and"  # English
    r"|und dann|danach|außerdem|und|dann"  # German
    r"|et puis|ensuite|puis|et"  # French
    r"|y luego|después|luego|también|y"  # Spanish
    r"|e depois|depois|também|e poi|poi|anche|e"  # Portuguese, Italian
    r"|en dan|daarna|en"  # Dutch
    r"|a potem|potem|oraz|i"  # Polish
    r"|ve sonra|sonra|ve"  # Turkish
    r"|а потом|и потом|а также|потом|затем|и|а|також|потім|і|та"  # Russian, Ukrainian
    r"|och sedan|och sen|sedan|och|og så|og|ja sitten|sitten|ja"  # Swedish, Danish, Norwegian, Finnish
    r"|a pak|a potom|a také|pak|potom|și apoi|apoi|și|és aztán|aztán|majd|és"  # Czech, Slovak, Romanian, Hungarian
    r"|και μετά|μετά|και|rồi|sau đó|và|kemudian|lalu|terus|dan"  # Greek, Vietnamese, Indonesian, Malay
    r"|और फिर|फिर|और|ثم|و|ואז|aur phir|phir|aur)"  # Hindi, Arabic, Persian, Hebrew
)
_CLAUSE_BREAK = re.compile(
    rf"(?:[.;!?]+\s+|[。！？；]+\s*)(?:{_CONNECTIVES}\s+)?|,?\s+(?<!\w){_CONNECTIVES}(?!\w)\s+"
    r"|[，、]?(?:然后|并且|而且|再|そして|それから)"  # Chinese, Japanese
    r"|(?<=[てで])、"  # Japanese: a verb's -te form then a comma ("確認して、保存して")
    r"|(?<=[\uac00-\ud7af]고)\s+",  # Korean: a verb's -go form ("보고 알려줘": look and tell)
    re.IGNORECASE,
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_REFERENCE_WORDS = frozenset(
    str.split(
        "it its that this them those these him her his their there one ones same too also again instead else "
        "yes yeah yep no nope ok okay sure please thanks"
    )
)
FOLLOWUP_MAX_WORDS = 8
"""A message this short leans on the conversation before it."""


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'`])")
MAX_TOOL_SENTENCES = 6
"""Sentences of a description embedded one by one; the rest count only through the whole description."""


def tool_texts(tool: ToolInfo) -> list[str]:
    """What is embedded for a tool; its cosine to a message is the best of these texts'.

    The name as words with the whole description (the hub's tag removed), and the name with each sentence of
    the description: a message usually asks for what one sentence says, and a long description's average
    drowns it. The MCP's label is not joined to the name here (it has its own text, `mcp_text`): a short
    "Telegram: get me" sat close to almost any message an encoder reads badly (a language it was not trained
    on), so such messages drew a whole family of unrelated tools.
    """
    action = " ".join(name_words(tool.name, tool.mcp)) or tool.name
    description = plain_description(tool.description)
    texts = [f"{action}: {description}" if description else action]
    sentences = [part.strip() for part in _SENTENCE_END.split(description) if part.strip()]
    if len(sentences) > 1:
        texts.extend(f"{action}: {sentence}" for sentence in sentences[:MAX_TOOL_SENTENCES])
    return list(dict.fromkeys(texts))


def mcp_text(mcp: McpInfo | None, name: str, tools: Sequence[ToolInfo]) -> str:
    """What is embedded for an MCP: its label, group and keywords, then its tools' names as words."""
    label = f"{mcp.label} ({mcp.tool_group})" if mcp is not None and mcp.label else name
    keywords = ", ".join(mcp.keywords) if mcp is not None else ""
    actions = ", ".join(dict.fromkeys(" ".join(name_words(tool.name, tool.mcp)) for tool in tools))
    return f"{label}: {keywords}. {actions}" if keywords else f"{label}: {actions}"


def context_text(previous_user_message: str, message: str, previous_assistant_message: str = "") -> str:
    """A follow-up read together with the exchange it follows: the request, then the answer (which often names
    the thing the follow-up acts on: "Wednesday 16:00, 'Hairdresser'" before "move it to Thursday")."""
    answer = previous_assistant_message.strip()[:300]
    return " ".join(part for part in (previous_user_message.strip()[:500], answer, message.strip()) if part)


@dataclass(frozen=True)
class Catalog:
    """The candidate tools (core tools excluded: they are always sent) prepared for scoring."""

    names: tuple[str, ...]
    index: Mapping[str, int]
    lexical: LexicalIndex
    members: Mapping[str, np.ndarray]
    routes: tuple[Route, ...]
    lookups: Mapping[int, tuple[tuple[int, ...], ...]]
    """Tool index → its lookup companions, in preference tiers (search/find first, then list)."""
    servers: np.ndarray
    """Tool index → a number per MCP (the same for all tools of one MCP), -1 for tools of no MCP."""
    twins: tuple[tuple[int, int], ...] = ()
    """(a tool, the tool it stands for) index pairs, both candidates: one choice offered as the first."""
    costs: Mapping[str, int] = field(default_factory=dict)
    """Tool name → characters of the definition the model is sent (`definition_size`)."""
    accepts: Mapping[str, np.ndarray] = field(default_factory=dict)
    """Kind of typed value (`url`, `email`, `path`) → mask of the tools that take it (`_typed`)."""
    readers: Mapping[str, int] = field(default_factory=dict)
    """Kind of typed value → index of the tool that reads such a value (`read_file` for a path; `_typed`)."""

    @property
    def size(self) -> int:
        return len(self.names)


def lookup_companions(tools: Sequence[ToolInfo]) -> dict[int, tuple[tuple[int, ...], ...]]:
    """For each tool that requires an id, the tools of the same MCP that find such ids.

    A required parameter named `*_id`, `*_ids` or `*_number` means the model must get the id from somewhere:
    from a tool of the same MCP whose name starts with search/find/list and shares an object word with the
    tool or the parameter (`scheduler_delete_reminder(reminder_id)` → `scheduler_list_reminders`).
    """
    parsed = []
    for tool in tools:
        parts = name_words(tool.name, tool.mcp)
        parsed.append((tool.mcp, parts[0] if parts else "", {stem(w) for w in parts[1:]}))
    companions: dict[int, tuple[tuple[int, ...], ...]] = {}
    for index, tool in enumerate(tools):
        required = tool.input_schema.get("required")
        id_parameters = [p for p in required if isinstance(p, str) and _ID_PARAMETER.search(p)] if required else []
        mcp, _, objects = parsed[index]
        if not id_parameters or mcp is None:
            continue
        objects = objects | {stem(w) for p in id_parameters for w in words(p) if w not in ("id", "ids", "number")}
        tiers = []
        for verbs in LOOKUP_TIERS:
            tier = tuple(
                other
                for other, (other_mcp, verb, other_objects) in enumerate(parsed)
                if other != index and other_mcp == mcp and verb in verbs and other_objects & objects
            )
            if tier:
                tiers.append(tier)
        if tiers:
            companions[index] = tuple(tiers)
    return companions


def definition_size(tool: ToolInfo) -> int:
    """Characters of the tool's definition as the model is sent it (`function_definition`'s function part): what
    offering the tool costs in the prompt, about 3.5 characters a token."""
    return len(json.dumps(function_definition(tool.name, tool.description, tool.input_schema)["function"]))


def build_catalog(
    tools: Sequence[ToolInfo],
    mcps: Sequence[McpInfo],
    core: Collection[str],
    *,
    builtin_routes: bool = True,
    concepts: bool = True,
) -> Catalog:
    candidates = [tool for tool in tools if tool.name not in core]
    by_name = {mcp.name: mcp for mcp in mcps}
    bags = [tool_terms(tool, by_name.get(tool.mcp) if tool.mcp else None, concepts=concepts) for tool in candidates]
    names = tuple(tool.name for tool in candidates)
    return Catalog(
        names=names,
        index={name: i for i, name in enumerate(names)},
        lexical=LexicalIndex(bags, concepts=concepts),
        members=group_members(names, [tool.mcp for tool in candidates]),
        routes=(*(BUILTIN_ROUTES if builtin_routes else ()), *auto_routes(mcps)),
        lookups=lookup_companions(candidates),
        servers=server_numbers([tool.mcp for tool in candidates]),
        twins=tuple(
            (index, names.index(tool.stands_for))
            for index, tool in enumerate(candidates)
            if tool.stands_for in names and tool.stands_for != tool.name
        ),
        costs={tool.name: definition_size(tool) for tool in candidates},
        accepts=acceptance(candidates),
        readers=readers(candidates),
    )


def merge_twins(scores: np.ndarray, twins: Sequence[tuple[int, int]]) -> np.ndarray:
    """Each pair ranked as one choice, in place: the standing-in tool gets the better score of the two, the tool
    it stands for none. `store_fact` and `memory_store_fact` both picked spent two of ten slots on one action.
    A pair of which one is not permitted (score -inf) is left as it is."""
    for alias, target in twins:
        if np.isfinite(scores[alias]) and np.isfinite(scores[target]):
            scores[alias] = max(scores[alias], scores[target])
            scores[target] = -np.inf
    return scores


def server_numbers(mcp_of: Sequence[str | None]) -> np.ndarray:
    """One number per MCP, -1 for a tool of none (the hub's own tools, the Thinker's essentials)."""
    numbers: dict[str, int] = {}
    return np.array([-1 if mcp is None else numbers.setdefault(mcp, len(numbers)) for mcp in mcp_of], dtype=np.intp)


def text_scores(catalog: Catalog, text: str, config: SelectionConfig) -> np.ndarray:
    """Lexical, route and typed-value evidence of one text for every tool (no embedding)."""
    scores = np.zeros(catalog.size, dtype=np.float64)
    if config.lexical_weight:
        scores += config.lexical_weight * catalog.lexical.score(text)
    if config.route_weight:
        scores += config.route_weight * route_scores(text, catalog.routes, catalog.members, catalog.size)
    if config.typed_weight:
        scores += config.typed_weight * typed_evidence(text, catalog.accepts, catalog.size)
    return scores


def pick(
    scores: np.ndarray,
    *,
    gap: float,
    least: int,
    most: int,
    floor: float,
    servers: np.ndarray | None = None,
    per_server: int = 0,
) -> list[int]:
    """Indices of the best scores: the first `least`, then any within `gap` of the best, `most` in all.

    Nothing under `floor` is picked, so a message with no evidence picks nothing. Ties keep catalog order.
    With `per_server` > 0, at most that many tools of one MCP (`servers[i]`, -1 for none: no limit) are
    picked: a wrong first guess at the MCP cannot fill every slot with its siblings.
    """
    order = [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] >= floor]
    if per_server > 0 and servers is not None:
        taken: dict[int, int] = {}
        kept = []
        for i in order:
            server = int(servers[i])
            if server >= 0 and taken.get(server, 0) >= per_server:
                continue
            taken[server] = taken.get(server, 0) + 1
            kept.append(i)
        order = kept
    if not order:
        return []
    best = scores[order[0]]
    return [i for rank, i in enumerate(order[:most]) if rank < least or scores[i] >= best - gap]


def family_evidence(cosine: np.ndarray, servers: np.ndarray, top: int) -> np.ndarray:
    """Per tool, the mean of the best `top` cosines among its MCP's tools (0 for a tool of no MCP).

    An MCP several of whose tools fit the message is likely the right family even when the one tool needed
    ranks low on its own (a message in another language reads the family better than the exact verb)."""
    out = np.zeros_like(cosine)
    for server in np.unique(servers[servers >= 0]):
        members = servers == server
        best = np.sort(cosine[members])[::-1][: max(top, 1)]
        out[members] = float(np.mean(best))
    return out


def split_clauses(message: str) -> list[str]:
    """The parts of a multi-part request ("delete X and add Y"), or [] when it has one part.

    Splits at sentence ends and at "and", "then", "also", "plus", "after that"; fragments under two words are
    dropped (so "Tom and Anna" does not become two requests).
    """
    parts = [part.strip() for part in _CLAUSE_BREAK.split(message) if part and _is_request(part)]
    return parts if len(parts) >= 2 else []


def _is_request(part: str) -> bool:
    """Two words or more (four characters or more in scripts written without spaces)."""
    return len(part.split()) >= 2 or len(_CJK.findall(part)) >= 4


def looks_like_followup(message: str) -> bool:
    """Short, or leaning on earlier turns ("send it to him too"): the conversation decides what it needs."""
    tokens = words(message)
    return len(tokens) <= FOLLOWUP_MAX_WORDS or any(token in _REFERENCE_WORDS for token in tokens)


def sticky_tools(
    recent_tools_used: Sequence[Sequence[str]], *, lookback: int, limit: int, exclude: Collection[str]
) -> list[str]:
    """Tools called in the last `lookback` turns (oldest turn first in the input), newest first, at most `limit`."""
    if lookback <= 0 or limit <= 0:
        return []
    found: list[str] = []
    for turn in reversed(recent_tools_used[-lookback:]):
        for name in turn:
            if name not in exclude and name not in found:
                found.append(name)
                if len(found) == limit:
                    return found
    return found


def apply_cap(
    core: Sequence[str],
    pinned: Sequence[str],
    ranked: Sequence[str],
    cap: int,
    reserved: int = 0,
    *,
    costs: Mapping[str, int] | None = None,
    budget: int = 0,
) -> tuple[list[str], list[str]]:
    """Keep core tools always, then the first `reserved` of `ranked` (the picks, best first), then pinned ones in
    order, then the rest of `ranked`; return (kept, dropped).

    With a `budget` (> 0), a tool after the reserved ones is kept only while the `costs` of the non-core tools
    kept so far and its own stay within it (a tool that does not fit is dropped, a smaller one after it may
    still be kept).
    """
    kept: list[str] = []
    for name in core:
        if name not in kept:
            kept.append(name)
    ranked = [name for name in dict.fromkeys(ranked) if name not in kept]
    dropped: list[str] = []
    spent = 0
    order = [*ranked[:reserved], *pinned, *ranked[reserved:]]
    for position, name in enumerate(order):
        if name in kept or name in dropped:
            continue
        cost = costs.get(name, 0) if costs else 0
        within = not budget or position < reserved or spent + cost <= budget
        if len(kept) < cap and within:
            kept.append(name)
            spent += cost
        else:
            dropped.append(name)
    return kept, dropped


def _method(config: SelectionConfig, cosine: np.ndarray | None) -> Method:
    if cosine is None:
        return "regex"
    return "hybrid" if config.lexical_weight or config.route_weight else "embedding"


def select_tools(
    catalog: Catalog,
    message: str,
    config: SelectionConfig,
    *,
    cosine: np.ndarray | None = None,
    clause_cosines: Mapping[str, np.ndarray] | None = None,
    context_cosine: np.ndarray | None = None,
    mcp_cosine: np.ndarray | None = None,
    recent_user_messages: Sequence[str] = (),
    recent_assistant_messages: Sequence[str] = (),
    recent_tools_used: Sequence[Sequence[str]] = (),
    playbook_tools: Sequence[str] = (),
    allowed: Callable[[str], bool] | None = None,
) -> Selection:
    """The whole pipeline for one message; `cosine[i]` is the similarity of the message to tool `i`."""
    permitted = np.array([allowed is None or allowed(name) for name in catalog.names], dtype=bool)
    core = [name for name in config.core_tools if allowed is None or allowed(name)]

    scores = text_scores(catalog, message, config)
    meaning = None
    if cosine is not None:
        meaning = cosine
        if context_cosine is not None and looks_like_followup(message):
            # A follow-up's meaning is partly in the turn it follows: "and in Porto?" after a weather question.
            meaning = np.maximum(meaning, config.context_weight * context_cosine)
        scores += config.embedding_weight * meaning
    if mcp_cosine is not None and config.mcp_weight:
        scores += config.mcp_weight * mcp_cosine
    if meaning is not None and config.family_weight:
        scores += config.family_weight * family_evidence(meaning, catalog.servers, config.family_top)
    if recent_assistant_messages and config.assistant_context_weight:
        scores += config.assistant_context_weight * text_scores(catalog, recent_assistant_messages[-1], config)
    scores[~permitted] = -np.inf
    merge_twins(scores, catalog.twins)

    chosen = pick(
        scores,
        gap=config.score_gap,
        least=config.min_tools,
        most=config.top_k,
        floor=config.threshold,
        servers=catalog.servers,
        per_server=config.per_server,
    )

    clause_rankings: list[list[int]] = []
    if config.clause_top > 0:
        for clause in split_clauses(message):
            clause_scores = text_scores(catalog, clause, config)
            if clause_cosines and clause in clause_cosines:
                clause_scores += config.embedding_weight * clause_cosines[clause]
            clause_scores[~permitted] = -np.inf
            merge_twins(clause_scores, catalog.twins)
            clause_rankings.append(
                pick(clause_scores, gap=config.clause_gap, least=1, most=config.clause_top, floor=config.threshold)
            )

    def add(indices: list[int]) -> None:
        chosen.extend(i for i in indices if i not in chosen)

    for ranking in clause_rankings:
        add(ranking)

    if config.context_top > 0 and (recent_user_messages or recent_assistant_messages) and looks_like_followup(message):
        previous = np.zeros(catalog.size, dtype=np.float64)
        if recent_user_messages:
            previous += text_scores(catalog, recent_user_messages[-1], config)
        if recent_assistant_messages:
            previous += PREVIOUS_ASSISTANT_SHARE * text_scores(catalog, recent_assistant_messages[-1], config)
        previous[~permitted] = -np.inf
        merge_twins(previous, catalog.twins)
        add(pick(previous, gap=config.context_gap, least=1, most=config.context_top, floor=config.threshold))

    companion: dict[int, int] = {}
    if config.lookup_companions:
        for index in list(chosen):
            for tier in catalog.lookups.get(index, ()):
                usable = [i for i in tier if permitted[i]]
                if usable:
                    companion[index] = max(usable, key=lambda i: scores[i])
                    add([companion[index]])
                    break

    # A file name or a web address in the message names something to read before anything is done with it;
    # ranked by score, the reader lost to the tools of what is to be done ("put the visit in
    # stairlift-letter.txt in our calendar" sent the calendar and `create_file`, not `read_file`).
    named: list[int] = []
    if config.typed_readers:
        named = [i for kind in sorted(typed_values(message)) if (i := catalog.readers.get(kind)) is not None]
        named = [i for i in named if permitted[i]]
        add(named)

    # The order the cap reads: the message's best pick, then each clause's best, then all by score (ties
    # alphabetical). By score alone, the message's ranking (the first request's siblings, mostly) filled the
    # cap and the budget before any clause's pick: "check my calendar and write the events into agenda.md"
    # lost its file tool.
    by_score = sorted(chosen, key=lambda i: (-scores[i], catalog.names[i]))
    clause_bests = [ranking[0] for ranking in clause_rankings if ranking]

    # The lookup companion of the message's best pick and of each clause's best goes right after it: ranked by
    # its own score it fell to the cap and the budget behind weaker picks, and the tool it serves arrived
    # without a way to find its ids ("pause my Saturday reminder" sent `update_skill` but not `list_skills`).
    def with_companions(indices: Collection[int]) -> list[int]:
        return [i for index in indices for i in (index, companion.get(index)) if i is not None]

    heads = [*with_companions(by_score[:1]), *named, *with_companions(clause_bests)]
    order = list(dict.fromkeys([*heads, *by_score]))

    picked = {catalog.names[i]: float(scores[i]) for i in chosen}

    def offerable(name: str) -> bool:
        index = catalog.index.get(name)
        return index is not None and bool(permitted[index])

    # A pinned tool an essential stands for is pinned as the essential: a playbook naming `memory_store_fact`
    # beside a picked `store_fact` sent the model the same action twice, in two of its ten slots.
    stand_ins = {catalog.names[target]: catalog.names[alias] for alias, target in catalog.twins}

    def pinned_as(names: Sequence[str]) -> list[str]:
        offered = [alias if (alias := stand_ins.get(name)) and offerable(alias) else name for name in names]
        return [name for name in dict.fromkeys(offered) if offerable(name)]

    playbook = pinned_as(playbook_tools)
    sticky = sticky_tools(
        [pinned_as(turn) for turn in recent_tools_used],
        lookback=config.sticky_lookback,
        limit=config.sticky_max,
        exclude=set(config.core_tools),
    )
    kept, dropped = apply_cap(
        core,
        [*playbook, *sticky],
        [catalog.names[i] for i in order],
        config.max_tools,
        config.reserved_picks,
        costs=catalog.costs,
        budget=config.schema_budget,
    )

    top_score = None
    if cosine is not None and permitted.any():
        top_score = float(np.max(cosine[permitted]))
    return Selection(
        names=tuple(kept),
        method=_method(config, cosine),
        scores={name: picked[name] for name in kept if name in picked},
        top_score=top_score,
        dropped=tuple(dropped),
    )
