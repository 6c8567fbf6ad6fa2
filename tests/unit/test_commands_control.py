"""/kill, /resume, /clear and /delete."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from orchestrator.commands.chat import DeleteWindow, parse_window, select_outgoing
from orchestrator.commands.registry import CommandError, run_command
from orchestrator.halt import HaltState
from shared.contracts.thinker_api import Acknowledgement
from tests.fakes.command_context import fake_context


async def reply(text: str, ctx: Any) -> str:
    answer = await run_command(text, ctx)
    assert answer is not None
    return answer.text


async def test_kill_halts_persistently_and_answers_with_a_status_line(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path, channel="http")
    text = await reply("/kill thinker spending too much", ctx)
    assert text.splitlines()[0] == "Halted: thinker. Send /resume thinker to undo."
    assert text.splitlines()[1].startswith("Status: 3/3 MCPs up; agents: annabelle running; halted: thinker since")
    again = HaltState(tmp_path / "data" / "halt.json")
    assert again.halted("thinker") and again.describe()["reason"] == "spending too much"
    ctx.agents.states[0]["paused"] = True  # type: ignore[attr-defined]
    assert "Resumed: thinker. Cost pause lifted for: annabelle." in await reply("/resume thinker", ctx)
    assert not HaltState(tmp_path / "data" / "halt.json").halted("thinker")
    assert (await reply("/resume thinker", ctx)).startswith("Resumed: thinker.\nStatus:")


async def test_kill_all_without_a_reason_records_where_it_came_from(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path, channel="telegram")
    assert (await reply("/kill ALL", ctx)).startswith("Halted: thinker, channel, scheduler. Send /resume all")
    assert ctx.halt.describe()["reason"] == "/kill from telegram"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/kill", "Which part? Usage: /kill <all|thinker|channel|scheduler> [reason]"),
        ("/kill telegram", "Unknown halt target 'telegram': use one of all, thinker, channel, scheduler."),
        ("/resume", "Which part? Usage: /resume <all|thinker|channel|scheduler>"),
    ],
)
async def test_kill_and_resume_explain_their_usage(tmp_path: Path, text: str, expected: str) -> None:
    assert (await reply(text, fake_context(tmp_path))).startswith(expected)


async def test_clear_forgets_the_session_of_the_agent_bound_to_this_chat(tmp_path: Path) -> None:
    ctx = fake_context(tmp_path, channel="http", chat_id="cli")
    assert await reply("/clear", ctx) == "Cleared: Session x cleared. (agent annabelle)"
    assert ctx.agents.cleared == [("annabelle", "cli")]  # type: ignore[attr-defined]
    ctx.agents.clear_answer = Acknowledgement(success=False, error="Agent unreachable.")  # type: ignore[attr-defined]
    assert await reply("/clear", ctx) == "Could not clear the session: Agent unreachable."


NOW = datetime(2026, 3, 2, 15, 30, tzinfo=timezone(timedelta(hours=1)))


@pytest.mark.parametrize(
    ("arg", "since", "until", "count"),
    [
        ("today", NOW.replace(hour=0, minute=0), None, None),
        ("yesterday", NOW.replace(day=1, hour=0, minute=0), NOW.replace(hour=0, minute=0), None),
        ("week", NOW - timedelta(days=7), None, None),
        ("6h", NOW - timedelta(hours=6), None, None),
        ("25", None, None, 25),
    ],
)
def test_delete_windows(arg: str, since: datetime | None, until: datetime | None, count: int | None) -> None:
    window = parse_window(arg, NOW)
    assert (window.since, window.until, window.count) == (since, until, count)


@pytest.mark.parametrize("arg", ["", "0", "501", "169h", "0h", "forever"])
def test_bad_delete_windows_say_how_to_use_the_command(arg: str) -> None:
    with pytest.raises(CommandError, match="Usage: /delete"):
        parse_window(arg, NOW)


def message(message_id: int, hours_ago: float, outgoing: bool = True, now: datetime = NOW) -> dict[str, Any]:
    moment = now.astimezone(UTC) - timedelta(hours=hours_ago)
    return {"message_id": message_id, "outgoing": outgoing, "date": moment.strftime("%Y-%m-%dT%H:%M:%SZ")}


def test_only_the_bots_own_messages_in_the_window_are_chosen() -> None:
    newest_first = [message(9, 0.1), message(8, 0.2, outgoing=False), message(7, 3), message(6, 20), message(5, 40)]
    assert select_outgoing(newest_first, DeleteWindow("x", since=NOW - timedelta(hours=4))) == [9, 7]
    assert select_outgoing(newest_first, DeleteWindow("x", count=3)) == [9, 7, 6]
    yesterday = parse_window("yesterday", NOW)
    assert select_outgoing(newest_first, yesterday) == [6]


async def test_delete_reads_pages_and_deletes_in_batches(tmp_path: Path) -> None:
    stored = [message(i, (300 - i) / 100) for i in range(300, 0, -1)]  # newest first, one every 36 s

    def get_messages(arguments: dict[str, Any]) -> dict[str, Any]:
        before = arguments.get("offset_id")
        older = [m for m in stored if before is None or m["message_id"] < before]
        return {"messages": older[: arguments["limit"]]}

    deleted: list[list[int]] = []

    def delete(arguments: dict[str, Any]) -> dict[str, Any]:
        deleted.append(arguments["message_ids"])
        return {"deleted": arguments["message_ids"]}

    ctx = fake_context(tmp_path, tools={"telegram_get_messages": get_messages, "telegram_delete_messages": delete})
    assert await reply("/delete 150", ctx) == "Deleted 150 of my 150 message(s) from the last 150 message(s)."
    assert [len(batch) for batch in deleted] == [100, 50] and deleted[0][0] == 300
    assert [args.get("offset_id") for name, args in ctx.hub.calls if name == "telegram_get_messages"] == [None, 201]  # type: ignore[attr-defined]


async def test_delete_reports_what_telegram_refused(tmp_path: Path) -> None:
    ctx = fake_context(
        tmp_path,
        tools={
            "telegram_get_messages": {"messages": [message(1, 0.1, now=datetime.now(UTC))]},
            "telegram_delete_messages": {
                "success": False,
                "error": "Message can't be deleted.",
                "errorCode": "TOOL_ERROR",
            },
        },
    )
    text = await reply("/delete 1h", ctx)
    assert (
        text == "Deleted 0 of my 1 message(s) from the last 1 h. Telegram refused the rest: Message can't be deleted."
    )


async def test_delete_only_applies_to_telegram(tmp_path: Path) -> None:
    text = await reply("/delete today", fake_context(tmp_path, channel="http"))
    assert text.startswith("/delete only applies to Telegram")
