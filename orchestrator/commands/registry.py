"""Slash commands: a name → handler table that any part of the hub adds to with `@command(...)`.

A command costs no LLM tokens: it answers from the hub's own state and plain tool calls. The channel manager
(Telegram), `POST /message` (HTTP) and `annabelle chat` (through HTTP) all dispatch here:

    if is_command(text):
        reply = await run_command(text, ctx)      # never raises; a failure is "Command failed: ..."

The built-in commands live in sibling modules that register themselves when imported; they are imported on
first use of the table, so a caller needs only this module. Another part of the hub (skills, operations)
registers its own command the same way, from its own module.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from orchestrator.callers import Caller, system

if TYPE_CHECKING:
    from orchestrator.agents import AgentManager
    from orchestrator.halt import HaltState
    from orchestrator.hub import Hub
    from orchestrator.settings import OrchestratorSettings

log = logging.getLogger(__name__)

# The modules whose `@command`s are built in; imported lazily (see `_load_builtins`).
BUILTIN_MODULES = ("status", "logs", "security", "cron", "control", "chat", "diagnose", "browser", "approvals")

# "/Status@annabelle_bot summary" → name "status", args "summary". Telegram appends the bot's name in groups.
_NAME = r"[A-Za-z][A-Za-z0-9_-]*"
_COMMAND = re.compile(rf"^/(?P<name>{_NAME})(?:@[A-Za-z0-9_]+)?(?:\s+(?P<args>.*))?$", re.S)


@dataclass
class CommandContext:
    """What a command may use, and where it was sent from."""

    hub: Hub
    agents: AgentManager
    halt: HaltState
    settings: OrchestratorSettings
    channel: str  # "telegram" | "http" | "cli"
    chat_id: str
    command: str = ""
    """The command being run (set by `run_command`), or what else uses the context (`diagnose`, `doctor`)."""
    owner: bool = True
    """Sent by the owner (their chat, the token's HTTP API, the CLI); commands that decide for the owner check it."""

    @property
    def caller(self) -> Caller:
        """How this command's tool calls are made: a hub feature, named after the command in traces."""
        return system(f"/{self.command}" if self.command else self.channel)


@dataclass(frozen=True)
class CommandReply:
    text: str


class CommandError(Exception):
    """A usage mistake or a refusal: the message is shown to the user as is (no "Command failed")."""


Handler = Callable[[CommandContext, str], Awaitable[str]]


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    usage: str
    handler: Handler

    @property
    def synopsis(self) -> str:
        return f"/{self.name}" + (f" {self.usage}" if self.usage else "")


@dataclass(frozen=True)
class ParsedCommand:
    name: str
    args: str


COMMANDS: dict[str, Command] = {}
_builtins_loaded = False


def command(name: str, summary: str, usage: str = "") -> Callable[[Handler], Handler]:
    """Register `async def handler(ctx, args) -> str` as `/name`; `usage` documents the arguments."""
    key = name.lower()
    if not re.fullmatch(_NAME, key):
        raise ValueError(f"/{name} is not a valid command name: use letters, digits, '_' or '-'.")

    def register(handler: Handler) -> Handler:
        existing = COMMANDS.get(key)
        if existing is not None and existing.handler is not handler:
            raise ValueError(f"/{key} is registered twice ({existing.handler.__module__} and {handler.__module__}).")
        COMMANDS[key] = Command(key, summary, usage, handler)
        return handler

    return register


def _load_builtins() -> None:
    global _builtins_loaded
    if _builtins_loaded:
        return
    _builtins_loaded = True
    for module in BUILTIN_MODULES:
        importlib.import_module(f"orchestrator.commands.{module}")


def commands() -> list[Command]:
    """Every registered command, by name."""
    _load_builtins()
    return [COMMANDS[name] for name in sorted(COMMANDS)]


def parse_command(text: str) -> ParsedCommand | None:
    """The command word (lower case, without a `@botname`) and the rest; None unless `text` has that shape."""
    match = _COMMAND.match(text.strip())
    if match is None:
        return None
    return ParsedCommand(match["name"].lower(), (match["args"] or "").strip())


def is_command(text: str) -> bool:
    """True when `text` starts with `/` and its word is a registered command (so `/etc/hosts?` goes to the agent)."""
    parsed = parse_command(text)
    if parsed is None:
        return False
    _load_builtins()
    return parsed.name in COMMANDS


async def run_command(text: str, ctx: CommandContext) -> CommandReply | None:
    """Run the command in `text`; None when it is not one. Never raises: a failure is a reply that says so."""
    parsed = parse_command(text)
    if parsed is None:
        return None
    _load_builtins()
    found = COMMANDS.get(parsed.name)
    if found is None:
        return None
    log.info("slash command", extra={"command": parsed.name, "channel": ctx.channel, "chat": ctx.chat_id})
    try:
        return CommandReply(await found.handler(replace(ctx, command=parsed.name), parsed.args))
    except CommandError as exc:
        return CommandReply(str(exc))
    except Exception as exc:  # one broken command must not take the chat down with it
        log.exception("slash command failed", extra={"command": parsed.name})
        return CommandReply(f"Command failed: {exc or type(exc).__name__}")


def usage_error(name: str, problem: str = "") -> CommandError:
    """`CommandError("<problem> Usage: /name <usage>")` for a command of the table."""
    _load_builtins()
    found = COMMANDS.get(name)
    synopsis = found.synopsis if found else f"/{name}"
    return CommandError(f"{problem} Usage: {synopsis}".strip())
