"""Benchmark: do the tools an agent task needs reach the model on its first turn?

The agent tasks (`agent_tasks.py`) say what a user asks; each task's scripted perfect model says which tools its
first turn calls (`update_skill` and the `list_skills` that finds its id, for "pause my Saturday reminder"). This
runs the Thinker's tool selection - `ToolSelector` with the default `SelectionConfig`, USE with e5's second
opinion, on this project's real catalog (`project_catalog.py`) - on each task's first message and counts how many
of those tools were sent. A tool the selection leaves out is one a small model will not find on its own (it
rarely asks `browse_tools`), so this is the part of a task's failure that routing causes, measured in a minute
instead of the real model's half hour.

Counting: `recall` is the share of needed tools sent over all tasks' first turns (the Thinker's essentials and
the hub tools they call count as one: `store_fact` for `memory_store_fact`); `all_covered` the share of tasks
with every needed tool sent; `tools_sent` the mean number sent, meta-tools included. Only the first turn is
scored: later turns' selection depends on what the model did before.

    python benchmarks/task_routing.py [--set first --set fresh-2026-11-27 ...] [--misses]

`--misses` lists each task with a needed tool left out (do not use it on a batch whose real-model figures are
not recorded yet: that is reading it). The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_tasks import ESSENTIALS, TASK_SETS
from agent_taskset import Task
from tool_selection import config_with, real_catalog

from shared.embeddings.e5 import E5SmallEmbedder
from shared.embeddings.multilingual import MultilingualEmbedder
from thinker.selection import ToolSelector

ONE_CHOICE = {**ESSENTIALS, **{hub: essential for essential, hub in ESSENTIALS.items()}}
"""An essential and the hub tool it calls, both ways: sending either lets the model make the call."""


def needed(task: Task, catalog: set[str]) -> list[str]:
    """The tools the task's perfect first turn calls, as far as the catalog has them."""
    if not task.script:
        return []
    names = dict.fromkeys(call.name for call in task.script[0])
    return [name for name in names if name in catalog or ONE_CHOICE.get(name) in catalog]


def left_out(need: Sequence[str], sent: set[str]) -> list[str]:
    return [name for name in need if name not in sent and ONE_CHOICE.get(name) not in sent]


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


async def run(tasks: Sequence[Task], show_misses: bool) -> dict[str, Any]:
    tools, mcps, _ = await real_catalog()
    first = MultilingualEmbedder()
    second = E5SmallEmbedder()
    await first.prepare()
    await second.prepare()
    selector = ToolSelector(config_with([]), first, second)
    await selector.refresh(tools, mcps)
    await selector.prepare()
    catalog = {tool.name for tool in tools}

    counts = {"en": [0, 0], "other": [0, 0]}
    covered = scored = sent_total = 0
    for task in tasks:
        need = needed(task, catalog)
        if not need:
            continue
        selection = await selector.select(task.turns[0])
        sent = set(selection.names)
        missing = left_out(need, sent)
        group = counts["en" if task.lang == "en" else "other"]
        group[0] += len(need) - len(missing)
        group[1] += len(need)
        scored += 1
        covered += not missing
        sent_total += len(sent)
        if missing and show_misses:
            print(f"{task.id:36} {task.lang:3} left out {', '.join(missing)}")
    found = counts["en"][0] + counts["other"][0]
    total = counts["en"][1] + counts["other"][1]
    return {
        "tasks": scored,
        "needed_tools": total,
        "recall": share(found, total),
        "english": share(*counts["en"]),
        "non_english": share(*counts["other"]),
        "all_covered": share(covered, scored),
        "tools_sent": round(sent_total / scored, 2) if scored else None,
    }


def main(argv: Sequence[str] | None = None) -> None:
    logging.disable(logging.INFO)  # one log line per selection would bury the figures
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--set",
        action="append",
        choices=sorted(TASK_SETS),
        help="a group of tasks, repeatable (default: all)",
    )
    parser.add_argument("--misses", action="store_true", help="list the tasks with a needed tool left out")
    args = parser.parse_args(argv)
    sets = args.set or ["all"]
    tasks = list({task.id: task for name in sets for task in TASK_SETS[name]}.values())
    summary = {"sets": sets, **asyncio.run(run(tasks, args.misses))}
    print(
        f"{summary['tasks']} tasks, {summary['needed_tools']} needed tools: recall {summary['recall']} "
        f"(English {summary['english']}, other languages {summary['non_english']}), every needed tool sent in "
        f"{summary['all_covered']} of tasks, {summary['tools_sent']} tools sent on average"
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
