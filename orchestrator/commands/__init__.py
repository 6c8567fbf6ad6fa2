"""Slash commands (zero LLM tokens): the registry and the built-in commands. See docs/commands.md."""

from orchestrator.commands.registry import (
    CommandContext,
    CommandError,
    CommandReply,
    command,
    commands,
    is_command,
    run_command,
)

__all__ = ["CommandContext", "CommandError", "CommandReply", "command", "commands", "is_command", "run_command"]
