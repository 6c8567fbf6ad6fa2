"""BM25 over tool texts, fielded and concept-expanded. Pure, no I/O.

Each tool is a weighted bag of terms from three fields: its name (the strongest evidence: tool names are
`{mcp}_{verb}_{object}`), its description, and its parameter names. The MCP's label and group count like the
description. A message is scored against every tool at once: one precomputed row per term, summed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from thinker.selection._text import expand, stems
from thinker.selection._types import McpInfo, ToolInfo

NAME_WEIGHT = 3.0
DESCRIPTION_WEIGHT = 1.0
PARAMETER_WEIGHT = 0.3
K1 = 1.2
"""BM25 saturation: a term repeated across fields counts more, but never more than (k1 + 1) times its idf."""

_HUB_TAG = re.compile(r"^\s*\[[^\]]*\]\s*")


def plain_description(description: str) -> str:
    """The description without the hub's leading `[Label | Group]` tag (the label is read from McpInfo)."""
    return _HUB_TAG.sub("", description, count=1).strip()


def parameter_names(schema: Mapping[str, object]) -> list[str]:
    properties = schema.get("properties")
    return [str(name) for name in properties] if isinstance(properties, Mapping) else []


def tool_terms(tool: ToolInfo, mcp: McpInfo | None, *, concepts: bool = True) -> dict[str, float]:
    """Term → field-weighted frequency for one tool."""
    fields: list[tuple[str, float]] = [
        (tool.name, NAME_WEIGHT),
        (plain_description(tool.description), DESCRIPTION_WEIGHT),
        (" ".join(parameter_names(tool.input_schema)), PARAMETER_WEIGHT),
    ]
    if mcp is not None:
        fields.append((f"{mcp.label} {mcp.tool_group}", DESCRIPTION_WEIGHT))
    bag: dict[str, float] = {}
    for text, weight in fields:
        for term, strength in expand(stems(text), concepts=concepts).items():
            bag[term] = bag.get(term, 0.0) + weight * strength
    return bag


class LexicalIndex:
    """Scores a text against a fixed list of tools."""

    def __init__(self, bags: Sequence[Mapping[str, float]], *, concepts: bool = True) -> None:
        self.size = len(bags)
        self.concepts = concepts
        document_frequency: dict[str, int] = {}
        for bag in bags:
            for term in bag:
                document_frequency[term] = document_frequency.get(term, 0) + 1
        self._rows: dict[str, np.ndarray] = {}
        for term, count in document_frequency.items():
            idf = math.log(1.0 + (self.size - count + 0.5) / (count + 0.5))
            row = np.zeros(self.size, dtype=np.float64)
            for index, bag in enumerate(bags):
                frequency = bag.get(term)
                if frequency:
                    row[index] = idf * frequency / (frequency + K1)
            self._rows[term] = row

    def score(self, text: str) -> np.ndarray:
        """One BM25 score per tool (0 where the text shares no term with it)."""
        total = np.zeros(self.size, dtype=np.float64)
        for term, weight in expand(stems(text), concepts=self.concepts).items():
            row = self._rows.get(term)
            if row is not None:
                total += weight * row
        return total
