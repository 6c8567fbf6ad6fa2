"""Typed values in a message (file names, web and e-mail addresses) and the tools whose schemas take them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from thinker.selection import ToolInfo
from thinker.selection._typed import acceptance, accepted_kinds, readers, typed_evidence, typed_values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("put it in notes/agenda.md", {"path"}),
        ("lies bericht_2025.PDF", {"path"}),
        ("résume https://example.org/a.html", {"url"}),
        ("see www.example.com", {"url"}),
        ("mail it to ana.silva@example.co.uk", {"email"}),
        ("send report.csv to li@example.org", {"path", "email"}),
        ("what's new on example.com", set()),
        ("it costs 3.50 and weighs 2.5 kg", set()),
        ("", set()),
    ],
)
def test_typed_values_finds_file_names_links_and_addresses(text: str, expected: set[str]) -> None:
    assert typed_values(text) == expected


def _tool(name: str, properties: dict[str, Any], required: list[str], mcp: str | None = None) -> ToolInfo:
    return ToolInfo(name, "", {"type": "object", "properties": properties, "required": required}, mcp)


def test_the_kinds_a_tool_takes_come_from_its_required_parameters() -> None:
    assert accepted_kinds(_tool("write", {"path": {"type": "string"}}, ["path"])) == {"path"}
    assert accepted_kinds(_tool("send", {"to": {"type": "string"}}, ["to"])) == {"email"}
    assert accepted_kinds(_tool("fetch", {"url": {"type": "string"}}, ["url"])) == {"url"}
    attach = _tool("attach", {"file_path": {"description": "A file in the workspace."}}, ["file_path"])
    assert accepted_kinds(attach) == {"path"}
    add = _tool("add", {"who": {"description": "The person's e-mail address."}}, ["who"])
    assert accepted_kinds(add) == {"email"}
    # An optional path, an id described with the word "email", a chat id starting with "to": none of them.
    assert accepted_kinds(_tool("list", {"path": {"type": "string"}}, [])) == set()
    assert accepted_kinds(_tool("delete", {"message_id": {"description": "The email's id."}}, ["message_id"])) == set()
    assert accepted_kinds(_tool("forward", {"to_chat_id": {"type": "integer"}}, ["to_chat_id"])) == set()
    assert accepted_kinds(ToolInfo("bare", "", {})) == set()


def test_typed_evidence_marks_every_tool_taking_a_kind_the_text_contains() -> None:
    tools = [
        _tool("write", {"path": {}}, ["path"]),
        _tool("send", {"to": {}}, ["to"]),
        _tool("fetch", {"url": {}}, ["url"]),
    ]
    accepts = acceptance(tools)
    assert typed_evidence("save it as a.txt and mail b@example.org", accepts, 3).tolist() == [1.0, 1.0, 0.0]
    assert np.all(typed_evidence("hello", accepts, 3) == 0.0)


def test_each_kind_has_one_reader_the_tool_that_takes_only_such_a_value_and_reads_it() -> None:
    tools = [
        _tool("files_create_file", {"path": {}, "content": {}}, ["path", "content"], "files"),
        _tool("files_read_file", {"path": {}}, ["path"], "files"),
        _tool("files_delete_file", {"path": {}}, ["path"], "files"),  # takes only a path, but does not read
        _tool("web_fetch", {"url": {}}, ["url"], "web"),  # the verb need not come first
        _tool("mail_send_email", {"to": {}, "body": {}}, ["to", "body"], "mail"),
    ]
    assert readers(tools) == {"path": 1, "url": 3}
    # Two tools that could each be the reader: offering either would be a guess, so neither is.
    assert readers([*tools, _tool("docs_open_document", {"path": {}}, ["path"], "docs")]) == {"url": 3}
