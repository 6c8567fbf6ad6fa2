"""The slash-command table: parsing, registration, dispatch, and failures that become replies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.commands import registry
from orchestrator.commands.registry import (
    COMMANDS,
    CommandError,
    CommandReply,
    ParsedCommand,
    command,
    commands,
    is_command,
    parse_command,
    run_command,
)
from tests.fakes.command_context import fake_context


@pytest.fixture
def scratch_commands() -> Iterator[None]:
    """Commands a test registers are removed afterwards."""
    before = dict(COMMANDS)
    yield
    COMMANDS.clear()
    COMMANDS.update(before)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/help", ParsedCommand("help", "")),
        ("  /Status   summary ", ParsedCommand("status", "summary")),
        ("/status@annabelle_bot summary", ParsedCommand("status", "summary")),
        ("/logs 20", ParsedCommand("logs", "20")),
        ("/kill thinker too\nmany calls", ParsedCommand("kill", "thinker too\nmany calls")),
        ("/etc/hosts is a file", None),
        ("hello /help", None),
        ("/", None),
        ("/ help", None),
        ("", None),
    ],
)
def test_parsing_finds_the_command_word_and_its_arguments(text: str, expected: ParsedCommand | None) -> None:
    assert parse_command(text) == expected


def test_only_registered_words_are_commands() -> None:
    assert is_command("/help") and is_command("/HELP@bot") and is_command("/status summary")
    assert not is_command("/nosuchcommand") and not is_command("/etc/hosts") and not is_command("help")


def test_every_built_in_command_is_registered_with_a_summary() -> None:
    names = {cmd.name for cmd in commands()}
    expected = {"help", "status", "logs", "security", "cron", "kill", "resume", "delete", "clear", "diagnose"}
    assert expected <= names
    assert all(cmd.summary for cmd in commands())
    assert [cmd.name for cmd in commands()] == sorted(names)


@pytest.mark.usefixtures("scratch_commands")
async def test_another_part_adds_a_command_with_the_decorator(tmp_path: Path) -> None:
    @command("echoargs", "Echo the arguments", usage="<text>")
    async def echo(ctx: registry.CommandContext, args: str) -> str:
        return f"{ctx.channel}:{args}"

    assert is_command("/echoargs hi")
    assert await run_command("/EchoArgs  hi there", fake_context(tmp_path)) == CommandReply("telegram:hi there")
    assert next(c for c in commands() if c.name == "echoargs").synopsis == "/echoargs <text>"


@pytest.mark.usefixtures("scratch_commands")
def test_registering_a_name_twice_is_a_developer_error() -> None:
    async def first(ctx: registry.CommandContext, args: str) -> str:
        return ""

    async def second(ctx: registry.CommandContext, args: str) -> str:
        return ""

    command("twice", "x")(first)
    command("twice", "x")(first)  # the same function again (a re-import) is fine
    with pytest.raises(ValueError, match="registered twice"):
        command("twice", "x")(second)
    with pytest.raises(ValueError, match="not a valid command name"):
        command("bad name", "x")


async def test_text_that_is_not_a_command_gives_none(tmp_path: Path) -> None:
    assert await run_command("hello", fake_context(tmp_path)) is None
    assert await run_command("/nosuch", fake_context(tmp_path)) is None


@pytest.mark.usefixtures("scratch_commands")
async def test_a_failing_command_answers_command_failed_and_a_refusal_answers_as_is(tmp_path: Path) -> None:
    @command("boom", "Fails")
    async def boom(ctx: registry.CommandContext, args: str) -> str:
        raise RuntimeError("the disk is on fire")

    @command("refuse", "Refuses")
    async def refuse(ctx: registry.CommandContext, args: str) -> str:
        raise CommandError("Not here.")

    assert await run_command("/boom", fake_context(tmp_path)) == CommandReply("Command failed: the disk is on fire")
    assert await run_command("/refuse", fake_context(tmp_path)) == CommandReply("Not here.")
