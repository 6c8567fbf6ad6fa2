"""`ToolSelector`: the one part of tool selection that talks to the embedder.

It keeps the prepared catalog and one vector per tool text (keyed by the text's hash, so a refresh re-embeds
only tools that are new or whose description changed), embeds each message once, and hands the cosine
similarities to the pure pipeline in `_pipeline`. When the embedder is missing or fails, selection goes on
without it (method "regex"): lexical and route evidence alone still pick tools.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence

import numpy as np

from shared.embeddings import Embedder, EmbeddingError
from thinker.selection._pipeline import build_catalog, select_tools, tool_text
from thinker.selection._types import McpInfo, Selection, SelectionConfig, ToolInfo

log = logging.getLogger(__name__)


def _text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class ToolSelector:
    """Chooses the tools to offer for each message. Call `refresh` whenever the hub's tool list changes."""

    def __init__(self, config: SelectionConfig, embedder: Embedder | None) -> None:
        self.config = config
        self.embedder = embedder
        self._catalog = build_catalog((), (), config.core_tools)
        self._texts: list[str] = []
        self._vectors: dict[bytes, np.ndarray] = {}
        self._matrix: np.ndarray | None = None

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The candidate tools (core tools excluded) as of the last refresh."""
        return self._catalog.names

    async def refresh(self, tools: Sequence[ToolInfo], mcps: Sequence[McpInfo]) -> None:
        """Prepare a new tool list; embeds only the tool texts not embedded before."""
        catalog = build_catalog(tools, mcps, self.config.core_tools)
        by_name = {tool.name: tool for tool in tools}
        self._catalog = catalog
        self._texts = [tool_text(by_name[name]) for name in catalog.names]
        # Forget vectors of tools that are gone, so a long-running Thinker does not accumulate them.
        wanted = {_text_key(text) for text in self._texts}
        self._vectors = {key: vector for key, vector in self._vectors.items() if key in wanted}
        self._matrix = None
        await self._embed_tools()

    async def _embed_tools(self) -> bool:
        """Fill in missing tool vectors and build the matrix; False when there is no embedder or it failed."""
        if self.embedder is None:
            return False
        missing = list(dict.fromkeys(text for text in self._texts if _text_key(text) not in self._vectors))
        if missing:
            try:
                vectors = await self.embedder.embed(missing)
            except EmbeddingError as exc:
                log.warning("tool embeddings unavailable, selecting without them", extra={"reason": str(exc)})
                return False
            for text, vector in zip(missing, vectors, strict=True):
                self._vectors[_text_key(text)] = np.asarray(vector, dtype=np.float32)
        if self._texts:
            self._matrix = np.stack([self._vectors[_text_key(text)] for text in self._texts])
        else:
            self._matrix = np.zeros((0, self.embedder.dimension), dtype=np.float32)
        return True

    async def _cosine(self, message: str) -> np.ndarray | None:
        if self.embedder is None:
            return None
        if self._matrix is None:
            await self._embed_tools()
        matrix = self._matrix
        if matrix is None:
            return None
        try:
            vector = (await self.embedder.embed([message]))[0]
        except EmbeddingError as exc:
            log.warning("message embedding failed, selecting without it", extra={"reason": str(exc)})
            return None
        # Rows and the message vector are unit length: the dot product is the cosine similarity.
        return (matrix @ np.asarray(vector, dtype=np.float32)).astype(np.float64)

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
        cosine = await self._cosine(message)
        selection = select_tools(
            self._catalog,
            message,
            self.config,
            cosine=cosine,
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
                "candidates": self._catalog.size,
                "top_score": None if selection.top_score is None else round(selection.top_score, 3),
                "dropped": list(selection.dropped),
            },
        )
        return selection
