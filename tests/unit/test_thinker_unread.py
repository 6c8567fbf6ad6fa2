"""A state-changing call made before the file or page the request names was read is refused once
(thinker/unread.py, through the agent loop)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.contracts.hub_api import ToolListing
from tests.unit.test_thinker_loop import Hub, Model, make_loop
from thinker.catalog import catalog_of
from thinker.selection import named_values
from thinker.sessions.messages import assistant_message, tool_call, user_message
from thinker.tiers import ToolSet
from thinker.unread import read_first, unread_values

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}


def _tool(name: str, required: dict[str, str], annotations: dict[str, bool] | None = None) -> dict[str, Any]:
    schema = {"type": "object", "properties": {p: {"type": "string"} for p in required}, "required": list(required)}
    return {
        "name": name,
        "description": name,
        "inputSchema": schema,
        **({"annotations": annotations} if annotations else {}),
    }


LISTING = {
    "tools": [
        _tool("files_read_file", {"path": "string"}, READ_ONLY),
        _tool("files_create_file", {"path": "string", "content": "string"}),
        _tool("mail_send_email", {"to": "string", "body": "string"}),
    ],
    "mcps": {"files": {"label": "Files", "toolGroup": "Files", "toolCount": 2}},
}
READERS = {"path": "files_read_file"}
SEND = ("mail_send_email", {"to": "jo@example.com", "body": "The list: tent, torch."})


def tools(*offered: str, sandbox: bool = False) -> ToolSet:
    catalog = catalog_of(ToolListing.model_validate(LISTING))
    return ToolSet(catalog, offered, reader_of=READERS.get, sandbox=sandbox)


@pytest.mark.parametrize(
    ("request_text", "arguments", "earlier", "expected"),
    [
        ("mail Jo the list in camp-packing.txt", {"to": "jo@x.org"}, [], [("path", "camp-packing.txt")]),
        ("mail Jo the list in Camp-Packing.TXT", {"to": "jo@x.org"}, ["camp-packing.txt"], []),  # read before
        ("save the list as camp-packing.txt", {"path": "camp-packing.txt"}, [], []),  # the call names it itself
        # A call on one of the named files acts on the file, not its content: the other file is not to be read.
        ("delete draft.txt, leave final.txt alone", {"path": "draft.txt"}, [], []),
        ("summarise https://example.org/a.html for me", {}, [], [("url", "https://example.org/a.html")]),
        ("mail Jo the list", {"to": "jo@x.org"}, [], []),  # nothing named
    ],
)
def test_a_named_value_is_unread_until_a_call_names_it(
    request_text: str, arguments: dict[str, Any], earlier: list[str], expected: list[tuple[str, str]]
) -> None:
    conversation = [user_message(request_text)]
    for index, value in enumerate(earlier):
        conversation.append(assistant_message(None, [tool_call(f"c{index}", "files_read_file", {"path": value})]))
    assert unread_values(named_values(request_text), arguments, conversation) == expected


def test_the_refusal_names_what_to_read_and_with_what() -> None:
    told = read_first("mail_send_email", [("path", "camp-packing.txt")], "files_read_file")
    assert told == (
        "Not run: the request names camp-packing.txt, which nothing has read yet. Read it first with "
        "files_read_file, then call mail_send_email with what it says."
    )
    assert len(read_first("x", [("path", "a" * 10_000 + ".txt")] * 50, "r")) < 400  # bounded whatever is named


@pytest.mark.parametrize("words_first", [False, True], ids=["read at once", "words first"])
async def test_a_send_before_reading_the_named_file_is_refused_once_and_the_reader_is_offered(words_first: bool):
    model, hub = Model(), Hub()
    model.calls(SEND)
    if words_first:
        model.text("I'll read the list first.")
    model.calls(("files_read_file", {"path": "camp-packing.txt"}))
    model.calls(SEND)
    model.text("Sent.")
    request = [user_message("email the packing list in camp-packing.txt to jo@example.com")]
    result = await make_loop(model, hub).run(request, tools("mail_send_email"))
    refused = model.tool_results(1)[0]
    assert refused["errorCode"] == "INVALID_ARGUMENTS"
    assert "Read it first with files_read_file, then call mail_send_email" in refused["error"]
    offered = [[tool["function"]["name"] for tool in request["tools"]] for request in model.requests]
    assert "files_read_file" not in offered[0] and "files_read_file" in offered[1]
    assert model.requests[2].get("tool_choice") == ("required" if words_first else None)
    assert [call["name"] for call in hub.calls] == ["files_read_file", "mail_send_email"]
    assert result.success and result.response == "Sent."


async def test_the_guard_nudges_once_a_turn_and_never_in_a_skills_fixed_tool_set():
    model, hub = Model(), Hub()
    model.calls(SEND)
    model.calls(SEND)  # insisting: the second time it runs
    model.text("Sent.")
    request = [user_message("email the packing list in camp-packing.txt to jo@example.com")]
    await make_loop(model, hub).run(request, tools("mail_send_email"))
    assert [call["name"] for call in hub.calls] == ["mail_send_email"]

    model, hub = Model(), Hub()
    model.calls(SEND)
    model.text("Sent.")
    await make_loop(model, hub).run(request, tools("mail_send_email", sandbox=True))
    assert [call["name"] for call in hub.calls] == ["mail_send_email"]  # no reader to offer in a sandbox: it runs
