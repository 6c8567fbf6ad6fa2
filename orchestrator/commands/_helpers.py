"""Small pieces several commands share: argument parsing, Guardian calls, envelope unwrapping, formatting."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orchestrator.commands.registry import CommandError, usage_error

if TYPE_CHECKING:
    pass


def parse_count(args: str, *, command: str, default: int, maximum: int) -> int:
    """`/logs 20` → 20; no argument → `default`; above `maximum` → `maximum`; anything else is a usage error."""
    text = args.strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise usage_error(command, f"'{text}' is not a positive number.")
    return min(int(text), maximum)


def data_of(envelope: dict[str, Any], what: str) -> Any:
    """The envelope's `data`, or a CommandError saying which source failed and why."""
    if not envelope.get("success"):
        raise CommandError(f"Could not read {what}: {envelope.get('error') or 'no reason given'}")
    return envelope.get("data")
