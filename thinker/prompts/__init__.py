"""The shipped prompt texts (Markdown beside this file), read with `prompt(name)`.

- `tool_preamble.md`    the first layer of every system prompt: call tools for real, never claim undone work
- `default_persona.md`  copied to `$ANNABELLE_HOME/agents/<id>/instructions.md` on an agent's first start
- `tainted_caution.md`  added when the hub flags the inbound message as untrusted
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def prompt(name: str) -> str:
    """The text of `<name>.md`, without trailing whitespace."""
    return files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8").strip()
