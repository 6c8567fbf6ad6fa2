"""Tool selection: which of the hub's tools the model sees for one message.

    selector = ToolSelector(SelectionConfig(), selection_embedder(settings))   # None: EMBEDDING_PROVIDER=none
    await selector.refresh(tools, mcps)                       # whenever the hub's tool list changes (no I/O)
    await selector.prepare()                                  # in the background: load the model, embed tools
    ToolSelector(config, first, second_opinion_embedder(settings))   # with e5's opinion beside USE
    selection = await selector.select(message, recent_user_messages=..., recent_tools_used=...)
    selection.names                                           # core tools first, then the picks, best first

A skill with `required_tools` bypasses it: `required_selection(required, available)`. Playbooks whose keywords
a message contains: `match_playbooks(message, playbooks)`. The file names and web addresses a message names:
`named_values(message)`, each read by `selector.reader_of(kind)`. The pipeline is described in docs/tool-selection.md.
"""

from thinker.selection._playbooks import match_playbooks, required_selection
from thinker.selection._selector import ToolSelector, second_opinion_embedder, selection_embedder
from thinker.selection._typed import named_values
from thinker.selection._types import CORE_TOOLS, McpInfo, Playbook, Selection, SelectionConfig, ToolInfo

__all__ = [
    "CORE_TOOLS",
    "McpInfo",
    "Playbook",
    "Selection",
    "SelectionConfig",
    "ToolInfo",
    "ToolSelector",
    "match_playbooks",
    "named_values",
    "required_selection",
    "second_opinion_embedder",
    "selection_embedder",
]
